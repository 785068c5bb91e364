"""Opening a table at a version and reading it."""
import bisect
import datetime

import pyarrow as pa
import pyarrow.compute as pc

from . import _envelope, _manifest
from ._proto import table_pb2
from ._read import BatchSource, FragmentRead, Proj, _as_type, arange, build_projection, without
from ._schema import ROW_ADDR
from ._store import Store
from .errors import CorruptFileError, QuiverError, TableNotFoundError, VersionNotFoundError
from .expr import Bounds, Expr, column_stats_bounds, might_match, segment_bounds

_IDX = "__quiver_row__"


class ScanStats:
    """What the last read skipped by statistics and what it read (``Table.last_scan_stats``)."""

    def __init__(self):
        self.segments_total = 0
        self.segments_pruned = 0
        self.fragments_total = 0
        self.fragments_pruned = 0
        self.fragments_read = 0
        self.batches_pruned = 0
        self.files_opened = 0
        self.rows_scanned = 0
        self.rows_returned = 0

    def as_dict(self):
        return dict(vars(self))

    def __repr__(self):
        return "ScanStats(%s)" % ", ".join("%s=%d" % kv for kv in vars(self).items())


class VersionInfo:
    def __init__(self, version, timestamp_millis, tags):
        self.version = version
        self.timestamp_millis = timestamp_millis
        self.tags = tags

    @property
    def timestamp(self):
        return datetime.datetime.fromtimestamp(self.timestamp_millis / 1000.0, datetime.timezone.utc)

    def __repr__(self):
        return "VersionInfo(version=%d, timestamp=%s, tags=%s)" % (self.version, self.timestamp.isoformat(), self.tags)


def _millis(ts):
    if isinstance(ts, (int, float)):
        return int(ts)
    if isinstance(ts, datetime.datetime):
        if ts.tzinfo is None:
            ts = ts.replace(tzinfo=datetime.timezone.utc)
        return int(ts.timestamp() * 1000)
    if isinstance(ts, str):
        return _millis(datetime.datetime.fromisoformat(ts.replace("Z", "+00:00")))
    raise TypeError("timestamp must be a datetime, ISO-8601 string or epoch milliseconds")


def open(uri, version=None, tag=None, timestamp=None, storage_options=None):  # noqa: A001
    """Opens a Quiver table read-only: the latest version, or ``version``, ``tag`` or the newest version
    committed at or before ``timestamp`` (datetime, ISO string or epoch milliseconds)."""
    if sum(x is not None for x in (version, tag, timestamp)) > 1:
        raise QuiverError("give at most one of version, tag and timestamp")
    store = Store(str(uri), storage_options)
    versions = _manifest.list_versions(store)
    if not versions:
        raise TableNotFoundError("no Quiver table at %s (no committed version under _versions/)" % uri)
    if tag is not None:
        version = _manifest.read_tag(store, tag)
    elif timestamp is not None:
        want = _millis(timestamp)
        chosen = None
        for v in reversed(versions):
            snap = _manifest.Snapshot(store, v)
            if snap.timestamp_millis <= want:
                chosen = snap
                break
        if chosen is None:
            raise VersionNotFoundError("no version of %s was committed at or before %s" % (uri, timestamp))
        return Table(store, chosen, versions)
    elif version is None:
        version = versions[-1]
    return Table(store, _manifest.Snapshot(store, int(version)), versions)


class Table:
    """One version of a Quiver table, read-only."""

    def __init__(self, store, snapshot, versions):
        self._store = store
        self._snap = snapshot
        self._versions = versions
        self.last_scan_stats = ScanStats()

    # ---- metadata
    @property
    def uri(self):
        return self._store.uri

    @property
    def version(self):
        return self._snap.version

    @property
    def schema(self):
        """The table schema; every field's metadata holds its id under ``quiver:field_id``."""
        return self._snap.schema.arrow(with_ids=True)

    @property
    def config(self):
        return dict(self._snap.config)

    @property
    def timestamp(self):
        return datetime.datetime.fromtimestamp(self._snap.timestamp_millis / 1000.0, datetime.timezone.utc)

    def field_id(self, name):
        return self._snap.schema.resolve(name).id

    def versions(self):
        """Every version still present, oldest first, with commit time and tags."""
        tags = {}
        for name, v in _manifest.list_tags(self._store).items():
            tags.setdefault(v, []).append(name)
        out = []
        for v in _manifest.list_versions(self._store):
            snap = self._snap if v == self.version else _manifest.Snapshot(self._store, v)
            out.append(VersionInfo(v, snap.timestamp_millis, sorted(tags.get(v, []))))
        return out

    def tags(self):
        return _manifest.list_tags(self._store)

    def checkout(self, version=None, tag=None, timestamp=None):
        """Another version of the same table (same store and options)."""
        return open(self._store.uri, version=version, tag=tag, timestamp=timestamp,
                    storage_options=self._store.options)

    # ---- planning
    def _bounds_fn(self, get_bounds):
        schema = self._snap.schema

        def bf(name):
            node = schema.resolve(name)
            if node.is_struct or node.kind in ("list", "large_list", "fixed_size_list", "map"):
                return None, node.type
            return get_bounds(node), node.type
        return bf

    def _fragments(self, filt, stats):
        snap = self._snap
        refs, tail = snap.segments_and_tail()
        for ref, _list in refs:
            stats.segments_total += 1
            if filt is not None:
                bmap = {b.field_id: b for b in ref.bounds}
                ok = might_match(filt, self._bounds_fn(
                    lambda n: segment_bounds(bmap[n.id], n.type) if n.id in bmap else None))
                if not ok:
                    stats.segments_pruned += 1
                    stats.fragments_total += ref.fragment_count
                    stats.fragments_pruned += ref.fragment_count
                    continue
            for frag in snap.read_segment(ref):
                yield frag
        for frag in tail:
            yield frag

    def _check_filter(self, filt):
        if filt is None:
            return None
        if not isinstance(filt, Expr):
            raise TypeError("filter must be a quiver expression such as quiver.col('id') < 100")
        for name in filt.columns():
            node = self._snap.schema.resolve(name)
            for a in node.struct_ancestors():
                if not a.is_struct:
                    raise QuiverError("filter column '%s' is inside a list or map" % name)
        return filt

    def _output_schema(self, proj, with_rowaddr):
        fields = [p.arrow_field() for p in proj]
        if with_rowaddr:
            fields.append(pa.field(ROW_ADDR, pa.uint64(), False))
        return pa.schema(fields, metadata=self._snap.schema.metadata or None)

    def _read_fragment(self, frag, proj, filt, with_rowaddr, schema, stats):
        """The fragment's rows as record batches (one per record batch of its data file when it has one data
        file and no overlays, else one for the fragment)."""
        stats.fragments_total += 1
        fr = FragmentRead(self._snap, frag, stats)
        if filt is not None:
            if not might_match(filt, self._bounds_fn(fr.field_bounds)):
                stats.fragments_pruned += 1
                return
        stats.fragments_read += 1
        n = frag.physical_rows
        deleted = fr.deleted()
        stats.rows_scanned += n - len(deleted)
        ftops = []
        if filt is not None:
            for name in filt.columns():
                top = self._snap.schema.resolve(name)
                top = (top.struct_ancestors() or [top])[0]
                if top not in ftops:
                    ftops.append(top)
        single = fr.single_file()
        if single is None:
            b = self._rows(fr, 0, n, deleted, frag.id, proj, ftops, filt, with_rowaddr, schema, stats)
            if b is not None:
                yield b
            return
        nodes = [a for p in proj for a in p.atomic()] + [a for t in ftops for a in t.atomic()]
        for p in proj:
            if p.node.is_struct:
                nodes.extend(p.node.atomic())
        skip = None
        if filt is not None:
            def skip(rows, cols):
                def bounds(node):
                    src = fr.base_source(node.id)
                    if src is None:
                        return Bounds(True, False, False, None, None)
                    cs = cols.get(src[1])
                    return None if cs is None else column_stats_bounds(cs, node.type).bounds(rows)
                return not might_match(filt, self._bounds_fn(bounds))
        tops = fr.batch_columns(single, nodes)
        plan = fr.direct_plan(single, proj, tops) if filt is None else None
        if plan is not None:
            yield from self._direct(fr, single, tops, plan, deleted, frag.id, with_rowaddr, schema, stats)
            return
        positions = {t: i for i, t in enumerate(tops)}
        reader = fr.file(single)
        for start, batch in fr.batches(single, tops, skip):
            src = BatchSource(fr, reader, batch, positions)
            lo = bisect.bisect_left(deleted, start)
            hi = bisect.bisect_left(deleted, start + src.n)
            b = self._rows(src, start, src.n, [d - start for d in deleted[lo:hi]], frag.id, proj, ftops, filt,
                           with_rowaddr, schema, stats)
            if b is not None:
                yield b

    @staticmethod
    def _direct(fr, df, tops, plan, deleted, fid, with_rowaddr, schema, stats):
        """The batches of a single-file fragment when every projected column is a top-level column of the file
        (``plan`` from FragmentRead.direct_plan) and there is no filter: each output batch is the file's record
        batch under the table's schema, without assembling column by column."""
        where = fr.file(df).location
        identity = bool(plan) and [pos for pos, _, _ in plan] == list(range(len(tops))) \
            and not any(conv for _, _, conv in plan)
        for start, batch in fr.batches(df, tops):
            n = batch.num_rows
            if identity:
                arrays = batch.columns
            else:
                arrays = [pa.nulls(n, t) if pos is None else
                          _as_type(batch.column(pos), t, where) if conv else batch.column(pos)
                          for pos, t, conv in plan]
            keep = None
            if deleted:
                lo = bisect.bisect_left(deleted, start)
                hi = bisect.bisect_left(deleted, start + n)
                if hi > lo:
                    keep = without(n, [d - start for d in deleted[lo:hi]])
                    if len(keep) == 0:
                        continue
                    arrays = [a.take(keep) for a in arrays]
            if with_rowaddr:
                base = (fid << 32) + start
                arrays = list(arrays)
                arrays.append(arange(base, n, pa.uint64()) if keep is None else
                              pc.add(keep.cast(pa.uint64()), pa.scalar(base, pa.uint64())))
            rows = n if keep is None else len(keep)
            stats.rows_returned += rows
            yield pa.RecordBatch.from_arrays(arrays, schema=schema) if arrays else _empty_columns(rows, schema)

    @staticmethod
    def _rows(src, start, n, deleted, fid, proj, ftops, filt, with_rowaddr, schema, stats):
        """Rows start .. start+n of a fragment from ``src`` (anything with assemble()), ``deleted`` relative."""
        keep = without(n, deleted) if deleted else None
        if filt is not None:
            ft = pa.table({t.name: src.assemble(Proj(t)) for t in ftops})
            ft = ft.append_column(_IDX, arange(0, n))
            if keep is not None:
                ft = ft.take(keep)
            try:
                keep = ft.filter(filt.to_pyarrow()).column(_IDX).combine_chunks()
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
                raise QuiverError("filter %r cannot be evaluated: %s" % (filt, e)) from e
        rows = n if keep is None else len(keep)
        if rows == 0:
            return None
        arrays = [src.assemble(p) for p in proj]
        if keep is not None:
            arrays = [a.take(keep) for a in arrays]
        if with_rowaddr:
            base = (fid << 32) + start
            arrays.append(arange(base, n, pa.uint64()) if keep is None else
                          pc.add(keep.cast(pa.uint64()), pa.scalar(base, pa.uint64())))
        stats.rows_returned += rows
        return pa.RecordBatch.from_arrays(arrays, schema=schema) if arrays else _empty_columns(rows, schema)

    # ---- reads
    def to_batches(self, columns=None, filter=None, with_row_address=False):  # noqa: A002
        """A pyarrow.RecordBatchReader over the rows (deletions and overlays applied), fragment by fragment:
        one fragment's columns are in memory at a time."""
        proj = build_projection(self._snap.schema, columns)
        filt = self._check_filter(filter)
        schema = self._output_schema(proj, with_row_address)
        stats = ScanStats()
        self.last_scan_stats = stats

        def gen():
            for frag in self._fragments(filt, stats):
                yield from self._read_fragment(frag, proj, filt, with_row_address, schema, stats)
        return pa.RecordBatchReader.from_batches(schema, gen())

    def scanner(self, columns=None, filter=None, with_row_address=False):  # noqa: A002
        return self.to_batches(columns, filter, with_row_address)

    def to_arrow(self, columns=None, filter=None, with_row_address=False):  # noqa: A002
        return self.to_batches(columns, filter, with_row_address).read_all()

    def count_rows(self, filter=None):  # noqa: A002
        if filter is None:
            stats = ScanStats()
            total = 0
            for frag in self._fragments(None, stats):
                stats.fragments_total += 1
                total += frag.physical_rows - (frag.deletion_file.deleted_rows if frag.HasField("deletion_file") else 0)
            stats.rows_returned = total
            self.last_scan_stats = stats
            return total
        cols = sorted({self._snap.schema.resolve(c).struct_ancestors()[0].name
                       if self._snap.schema.resolve(c).struct_ancestors() else c for c in filter.columns()})
        return sum(b.num_rows for b in self.to_batches(columns=cols, filter=filter))

    def take(self, row_addresses, columns=None):
        """Rows by address (``fragment_id << 32 | offset``), in the order given. A deleted row or an address
        that names no row raises QuiverError."""
        proj = build_projection(self._snap.schema, columns)
        schema = self._output_schema(proj, False)
        addrs = [int(a) for a in row_addresses]
        wanted = {}
        for a in addrs:
            wanted.setdefault(a >> 32, set()).add(a & 0xFFFFFFFF)
        stats = ScanStats()
        self.last_scan_stats = stats
        parts = {}
        found = set()
        for frag in self._fragments(None, stats):
            if frag.id not in wanted:
                continue
            found.add(frag.id)
            fr = FragmentRead(self._snap, frag, stats)
            dead = set(fr.deleted())
            offs = sorted(wanted[frag.id])
            for o in offs:
                if o >= frag.physical_rows or o in dead:
                    raise QuiverError("row address %d (fragment %d, offset %d) names no live row in version %d"
                                      % ((frag.id << 32) | o, frag.id, o, self.version))
            idx = pa.array(offs, pa.int64())
            cols = [fr.assemble(p).take(idx) for p in proj]
            parts[frag.id] = (offs, cols)
        for fid in wanted:
            if fid not in found:
                raise QuiverError("row address of fragment %d names no fragment of version %d" % (fid, self.version))
        pieces, order = [], {}
        k = 0
        for fid, (offs, cols) in parts.items():
            pieces.append(pa.RecordBatch.from_arrays(cols, schema=schema) if cols else _empty_columns(len(offs), schema))
            for o in offs:
                order[(fid << 32) | o] = k
                k += 1
        t = pa.Table.from_batches(pieces, schema=schema) if pieces else schema.empty_table()
        return t.take(pa.array([order[a] for a in addrs], pa.int64()))

    def row_lineage(self):
        """The stable row ids of a table with row ids (format 1.4, docs/format.md section 14): one row per live
        row, in fragment and offset order, with ``_rowaddr``, ``_rowid``, ``_row_created_at_version`` and
        ``_row_last_updated_at_version`` (uint64), from the manifest and the deletion files alone (no data file is
        read). Join it with ``to_arrow(with_row_address=True)`` on ``_rowaddr``. A version without row ids raises
        QuiverError; a lineage whose runs do not cover the fragment's rows raises CorruptFileError."""
        m = self._snap.manifest
        if not m.HasField("next_row_id"):
            raise QuiverError("version %d of %s has no stable row ids; give the table row ids with the table"
                              " configuration 'row-ids' = 'true' (from the Java library or the CLI)"
                              % (self.version, self.uri))
        stats = ScanStats()
        addrs, ids, created, updated = [], [], [], []
        for frag in self._fragments(None, stats):
            n = frag.physical_rows
            lin = _lineage_of(self._snap, frag, self.uri)
            f_ids = _expand(lin.id_runs, n, True, frag.id, self.uri)
            f_created = _expand(lin.created_runs, n, False, frag.id, self.uri)
            f_updated = _expand(lin.updated_runs, n, False, frag.id, self.uri)
            dead = set(FragmentRead(self._snap, frag, stats).deleted())
            for o in range(n):
                if o not in dead:
                    addrs.append((frag.id << 32) | o)
                    ids.append(f_ids[o])
                    created.append(f_created[o])
                    updated.append(f_updated[o])
        u64 = pa.uint64()
        return pa.table({ROW_ADDR: pa.array(addrs, u64), "_rowid": pa.array(ids, u64),
                         "_row_created_at_version": pa.array(created, u64),
                         "_row_last_updated_at_version": pa.array(updated, u64)})

    def changes(self, from_version, to_version=None, columns=None, filter=None, limit=None):  # noqa: A002
        """The change feed of versions ``from_version + 1`` to ``to_version`` (default: this handle's version) of a
        table with stable row ids (docs/format.md section 14.3), as a ``pyarrow.Table``: the requested columns (by
        name at ``to_version``; all when None; a column a version does not have yet is null in its images, and
        renames are followed by field id), then ``_change_type`` (``insert``, ``delete``, ``update_preimage``,
        ``update_postimage``), ``_commit_version``, ``_commit_timestamp`` (UTC milliseconds) and ``_rowid``.
        Replaying it on ``from_version``'s rows by ``_rowid`` gives ``to_version``'s rows. Each version is compared
        with the one before by row id over the fragments it changed, and only the changed rows' values are read.
        ``filter`` (a quiver expression on the returned columns) keeps the changes whose image matches; ``limit``
        the first ones. Raises QuiverError for a bad range or a ``from_version`` without row ids, and
        VersionNotFoundError naming the versions of the range that are gone."""
        to = self.version if to_version is None else int(to_version)
        a = int(from_version)
        if a < 1 or to <= a:
            raise QuiverError("a change feed runs from a version to a later one (from >= 1, to > from), got from %d"
                              " to %d; changes(a, b) is what versions a + 1 to b changed" % (a, to))
        if limit is not None and limit < 0:
            raise QuiverError("limit must be >= 0, got %d" % limit)
        present = set(_manifest.list_versions(self._store))
        missing = [v for v in range(a, to + 1) if v not in present]
        if missing:
            raise VersionNotFoundError("the change feed from version %d to %d of %s needs every version in between,"
                                       " but %s %s gone (removed by a cleanup, or not committed yet); start the feed"
                                       " after them" % (a, to, self.uri, _version_ranges(missing),
                                                        "is" if len(missing) == 1 else "are"))
        snaps = {v: (self._snap if v == self.version else _manifest.Snapshot(self._store, v)) for v in (a, to)}
        if not snaps[a].manifest.HasField("next_row_id"):
            raise QuiverError("version %d of %s has no stable row ids, so its changes cannot be told apart by row; a"
                              " change feed starts at a version with row ids (table configuration 'row-ids' ="
                              " 'true' gives the table ids from the version that sets it)" % (a, self.uri))
        last = snaps[to]
        proj = build_projection(last.schema, columns)
        user = self._output_schema(proj, False)
        filt = self._check_filter_on(filter, last.schema, proj)
        out_schema = pa.schema(list(user) + [
            pa.field("_change_type", pa.string(), nullable=False),
            pa.field("_commit_version", pa.uint64(), nullable=False),
            pa.field("_commit_timestamp", pa.timestamp("ms", tz="UTC"), nullable=False),
            pa.field("_rowid", pa.uint64(), nullable=False)])
        stats = ScanStats()
        self.last_scan_stats = stats
        pieces, emitted = [], 0
        prev = snaps[a]
        for v in range(a + 1, to + 1):
            if limit is not None and emitted >= limit:
                break
            cur = snaps[to] if v == to else _manifest.Snapshot(self._store, v)
            changes = _changes_of(prev, cur, stats, self.uri)
            if changes:
                before = _take_at(prev, proj, user, [c[3] for c in changes if c[2]], stats)
                after = _take_at(cur, proj, user, [c[3] for c in changes if not c[2]], stats)
                bi = ai = 0
                order = []
                for c in changes:
                    if c[2]:
                        order.append(bi)
                        bi += 1
                    else:
                        order.append(before.num_rows + ai)
                        ai += 1
                images = pa.concat_tables([before, after]).take(pa.array(order, pa.int64())) if order else before
                n = len(changes)
                t = pa.Table.from_arrays(
                    list(images.columns) + [pa.array([c[0] for c in changes], pa.string()),
                                            pa.array([v] * n, pa.uint64()),
                                            pa.array([cur.timestamp_millis] * n, pa.timestamp("ms", tz="UTC")),
                                            pa.array([c[1] for c in changes], pa.uint64())], schema=out_schema)
                if filt is not None:
                    try:
                        t = t.filter(filt.to_pyarrow())
                    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
                        raise QuiverError("filter %r cannot be evaluated: %s" % (filt, e)) from e
                if limit is not None and emitted + t.num_rows > limit:
                    t = t.slice(0, limit - emitted)
                emitted += t.num_rows
                pieces.append(t)
            prev = cur
        return pa.concat_tables(pieces) if pieces else out_schema.empty_table()

    def _check_filter_on(self, filt, schema, proj):
        """``filter`` checked against ``schema`` (the feed's last version) and the projected columns only."""
        if filt is None:
            return None
        if not isinstance(filt, Expr):
            raise TypeError("filter must be a quiver expression such as quiver.col('id') < 100")
        tops = {p.node.name for p in proj}
        for name in filt.columns():
            node = schema.resolve(name)
            top = (node.struct_ancestors() + [node])[0]
            if top.name not in tops:
                raise QuiverError("the change feed's filter names '%s', which is not among the returned columns %s;"
                                  " return it too (columns=...)" % (name, sorted(tops)))
        return filt

    def to_pandas(self, columns=None, filter=None, **kwargs):  # noqa: A002
        return self.to_arrow(columns, filter).to_pandas(**kwargs)

    def to_polars(self, columns=None, filter=None):  # noqa: A002
        try:
            import polars as pl
        except ImportError as e:
            raise ImportError("to_polars() needs polars: pip install polars") from e
        return pl.from_arrow(self.to_arrow(columns, filter))

    def fragment_ids(self):
        return [f.id for f in self._snap.fragments()]

    def shard_fragment_ids(self, shard, shards):
        """The fragment ids of shard ``shard`` of ``shards``: fragment ``i`` (in id order) goes to ``i % shards``,
        so the shards partition the version's fragments."""
        if not 0 <= shard < shards:
            raise QuiverError("shard %d of %d" % (shard, shards))
        return [f for i, f in enumerate(self.fragment_ids()) if i % shards == shard]

    def to_batches_of_fragments(self, fragment_ids, columns=None, filter=None, with_row_address=False):  # noqa: A002
        """Like to_batches, restricted to the given fragments (used to shard reads across workers)."""
        proj = build_projection(self._snap.schema, columns)
        filt = self._check_filter(filter)
        schema = self._output_schema(proj, with_row_address)
        stats = ScanStats()
        ids = set(fragment_ids)

        def gen():
            for frag in self._fragments(filt, stats):
                if frag.id in ids:
                    yield from self._read_fragment(frag, proj, filt, with_row_address, schema, stats)
        return pa.RecordBatchReader.from_batches(schema, gen())

    def __repr__(self):
        return "quiver.Table(%r, version=%d)" % (self.uri, self.version)


def _expand(runs, rows, ranges, fragment_id, where):
    """A lineage run list, (value, count) pairs, as one value per physical row (ids count up within a run)."""
    if len(runs) % 2:
        raise CorruptFileError(where, "fragment %d's row lineage runs are not (value, count) pairs" % fragment_id)
    out = []
    for k in range(0, len(runs), 2):
        value, count = runs[k], runs[k + 1]
        if count <= 0:
            raise CorruptFileError(where, "fragment %d's row lineage has a run of %d rows" % (fragment_id, count))
        out.extend(range(value, value + count) if ranges else [value] * count)
    if len(out) != rows:
        raise CorruptFileError(where, "fragment %d's row lineage covers %d rows, not its %d physical rows"
                               % (fragment_id, len(out), rows))
    return out


def _version_ranges(versions):
    """[3, 4, 5, 9] -> 'versions 3-5, 9'; one -> 'version 3'."""
    parts, i = [], 0
    while i < len(versions):
        j = i
        while j + 1 < len(versions) and versions[j + 1] == versions[j] + 1:
            j += 1
        parts.append(str(versions[i]) if j == i else "%d-%d" % (versions[i], versions[j]))
        i = j + 1
    return ("version " if len(versions) == 1 else "versions ") + ", ".join(parts)


def _outside_shared_segments(snap, other):
    """The fragments of ``snap`` outside the segments ``other`` also lists (shared segments are not read)."""
    shared = {ref.path for ref, _ in other.segment_refs}
    out = []
    for ref, _ in snap.segment_refs:
        if ref.path not in shared:
            out.extend(snap.read_segment(ref))
    out.extend(snap.manifest.fragments)
    return out


_LINEAGE_MAGIC = b"QVN1"
# Lineage files are immutable: decoded once per process, by location (docs/format.md section 14.1).
_LINEAGE_CACHE = {}


def _lineage_of(snap, frag, where):
    """A fragment's RowLineage message: inline, or read from its lineage file (``_lineage/{uuid}.lin``, the
    envelope QVN1 around a RowLineage) and checked against the fragment's reference (size, CRC-32C)."""
    if frag.HasField("lineage"):
        return frag.lineage
    if not frag.HasField("lineage_file"):
        raise CorruptFileError(where, "fragment %d of a table with row ids has no row lineage" % frag.id)
    ref = frag.lineage_file
    store = snap.store
    rel = _manifest.check_path(ref.path, store.location("(manifest)"), "_lineage/")
    loc = store.location(rel)
    cached = _LINEAGE_CACHE.get(loc)
    if cached is not None:
        return cached
    try:
        data = store.read(rel)
    except FileNotFoundError:
        raise CorruptFileError(loc, "the lineage file of fragment %d is missing" % frag.id) from None
    if len(data) != ref.size_bytes:
        raise CorruptFileError(loc, "%d bytes, the manifest says %d (truncated or replaced)" % (len(data), ref.size_bytes))
    lin = _envelope.parse(table_pb2.RowLineage, data, _LINEAGE_MAGIC, loc, "lineage")
    if int.from_bytes(data[4:8], "big") != ref.crc32c:
        raise CorruptFileError(loc, "CRC-32C %x, the manifest says %x (the file was replaced)"
                               % (int.from_bytes(data[4:8], "big"), ref.crc32c))
    if ref.row_id_end:  # the recorded span of the file's ids (0: not recorded, files written before it was)
        runs = lin.id_runs
        for i in range(0, len(runs) - 1, 2):
            if runs[i + 1] > 0 and (runs[i] < ref.first_row_id or runs[i] + runs[i + 1] > ref.row_id_end):
                raise CorruptFileError(loc, "holds row ids %d to %d, outside the span [%d, %d) the manifest records"
                                       % (runs[i], runs[i] + runs[i + 1] - 1, ref.first_row_id, ref.row_id_end))
    _LINEAGE_CACHE[loc] = lin
    return lin


def _changed_fragments(snap, other):
    """The fragments of ``snap`` that ``other`` does not have as they are."""
    theirs = {f.id: f for f in _outside_shared_segments(other, snap)}
    return [f for f in _outside_shared_segments(snap, other) if theirs.get(f.id) != f]


def _live_by_id(snap, frags, fresh, inserts, stats, where):
    """{row id: (address, last updated at)} of the live rows of ``frags``; rows with ids ``fresh`` or more (new in
    this version) go to ``inserts`` instead."""
    out = {}
    for frag in frags:
        n = frag.physical_rows
        lin = _lineage_of(snap, frag, where)
        ids = _expand(lin.id_runs, n, True, frag.id, where)
        updated = _expand(lin.updated_runs, n, False, frag.id, where)
        dead = set(FragmentRead(snap, frag, stats).deleted())
        for o in range(n):
            if o in dead:
                continue
            addr = (frag.id << 32) | o
            if ids[o] >= fresh:
                inserts.append(("insert", ids[o], False, addr))
            else:
                out[ids[o]] = (addr, updated[o])
    return out


def _changes_of(prev, cur, stats, where):
    """The changes of version ``cur`` against ``prev``, in row-id order, a pre-image right before its post-image:
    (type, row id, read from prev?, address) tuples (docs/format.md section 14.3)."""
    fresh = prev.manifest.next_row_id if prev.manifest.HasField("next_row_id") else 0
    before = _live_by_id(prev, _changed_fragments(prev, cur), 1 << 64, None, stats, where)
    out = []
    after = _live_by_id(cur, _changed_fragments(cur, prev), fresh, out, stats, where)
    for rid in sorted(after):
        addr, upd = after[rid]
        b = before.pop(rid, None)
        if b is None:
            out.append(("insert", rid, False, addr))
        elif b[1] != upd or upd == cur.version:
            out.append(("update_preimage", rid, True, b[0]))
            out.append(("update_postimage", rid, False, addr))
    for rid in sorted(before):
        out.append(("delete", rid, True, before[rid][0]))
    out.sort(key=lambda c: c[1])  # stable: a pre-image stays before its post-image
    return out


def _take_at(snap, proj, schema, addrs, stats):
    """The rows at ``addrs`` of version ``snap`` under the projection ``proj`` of a later version's schema (fields
    matched by id: one the version does not have is null), in the order given, as a table of ``schema``."""
    if not addrs:
        return schema.empty_table()
    wanted = {}
    for a in addrs:
        wanted.setdefault(a >> 32, []).append(a & 0xFFFFFFFF)
    parts, order, k = [], {}, 0
    for frag in snap.fragments():
        if frag.id not in wanted:
            continue
        fr = FragmentRead(snap, frag, stats)
        offs = sorted(set(wanted[frag.id]))
        idx = pa.array(offs, pa.int64())
        cols = [fr.assemble(p).take(idx) for p in proj]
        parts.append(pa.RecordBatch.from_arrays(cols, schema=schema) if cols else _empty_columns(len(offs), schema))
        for o in offs:
            order[(frag.id << 32) | o] = k
            k += 1
    missing = [a for a in addrs if a not in order]
    if missing:
        raise CorruptFileError(snap.store.location(_manifest.version_path(snap.version)),
                               "the change feed needs row address %d, which version %d does not hold"
                               % (missing[0], snap.version))
    return pa.Table.from_batches(parts, schema=schema).take(pa.array([order[a] for a in addrs], pa.int64()))


def _empty_columns(rows, schema):
    """A batch of ``rows`` rows and no columns (a projection of nothing still counts rows)."""
    return pa.RecordBatch.from_struct_array(pa.StructArray.from_arrays([], fields=[], mask=None)) if rows == 0 else \
        pa.RecordBatch.from_struct_array(pa.array([{}] * rows, pa.struct([])))
