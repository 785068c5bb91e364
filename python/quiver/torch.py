"""A PyTorch ``IterableDataset`` over a Quiver table, sharding fragments across DataLoader workers (and, with
``rank``/``world_size``, across processes). torch is imported when this module is."""
import torch.utils.data as _tud

from .table import open as _open


class QuiverIterableDataset(_tud.IterableDataset):
    """Yields pyarrow RecordBatches (or, with ``transform``, whatever it returns per batch). Fragment ``i`` of
    the version goes to shard ``i % (world_size * workers)``, so every fragment is read by exactly one worker."""

    def __init__(self, uri, columns=None, filter=None, version=None, storage_options=None, transform=None,  # noqa: A002
                 rank=0, world_size=1):
        self.uri, self.columns, self.filter = uri, columns, filter
        self.storage_options = storage_options
        self.transform = transform
        self.rank, self.world_size = rank, world_size
        self.version = version if version is not None else _open(uri, storage_options=storage_options).version

    def shard(self, worker_id, num_workers):
        table = _open(self.uri, version=self.version, storage_options=self.storage_options)
        return table, table.shard_fragment_ids(self.rank * num_workers + worker_id, self.world_size * num_workers)

    def __iter__(self):
        info = _tud.get_worker_info()
        worker_id, num_workers = (info.id, info.num_workers) if info is not None else (0, 1)
        table, ids = self.shard(worker_id, num_workers)
        for batch in table.to_batches_of_fragments(ids, columns=self.columns, filter=self.filter):
            yield self.transform(batch) if self.transform else batch
