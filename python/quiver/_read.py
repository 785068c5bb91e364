"""Reading one fragment: data files, deletions, overlays (newest wins) and struct validity (docs/format.md §3, §5)."""
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from . import _roaring
from ._compat import reinterpret, substitute_schema
from ._manifest import DATA_FILE_MAJOR, check_path
from .errors import CorruptFileError, UnsupportedFeatureError
from .expr import Bounds, column_stats_bounds

TOMBSTONE = -2

try:  # optional: only makes index arrays faster
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None


def arange(start, n, type_=pa.int64()):
    """pa.array(range(start, start + n)) without a Python loop when numpy is there."""
    if _np is not None:
        return pa.array(_np.arange(start, start + n, dtype=_np.uint64 if type_ == pa.uint64() else _np.int64))
    return pa.array(range(start, start + n), type_)


def without(n, deleted):
    """The offsets 0..n-1 not in the sorted list ``deleted``, as an int64 array."""
    if _np is not None:
        mask = _np.ones(n, dtype=bool)
        mask[_np.asarray(deleted, dtype=_np.int64)] = False
        return pa.array(_np.flatnonzero(mask).astype(_np.int64))
    ds = set(deleted)
    return pa.array([o for o in range(n) if o not in ds], pa.int64())
FULL_VALIDATION = True


def _read_options(included_fields):
    # One thread: the IPC reader's threads decompress the buffers of one record batch in parallel, which for
    # batches of 8,192 rows costs more in hand-offs than it saves (benchmarks/RESULTS.md, Python reader).
    return ipc.IpcReadOptions(included_fields=included_fields, use_threads=False)


class Proj:
    """A projected schema node: ``kids`` None for the whole subtree, else the projected children."""

    def __init__(self, node, kids=None):
        self.node, self.kids = node, kids

    def children(self):
        return self.kids if self.kids is not None else [Proj(c) for c in self.node.children]

    def atomic(self):
        if self.node.is_struct:
            out = []
            for k in self.children():
                out.extend(k.atomic())
            return out
        return [self.node]

    def arrow_field(self):
        n = self.node
        if n.is_struct:
            t = pa.struct([k.arrow_field() for k in self.children()])
        else:
            t = n.arrow_type(True)
        md = dict(n.metadata)
        md["quiver:field_id"] = str(n.id)
        return pa.field(n.name, t, n.nullable, metadata=md)


def build_projection(schema, columns):
    if columns is None:
        return [Proj(f) for f in schema.fields]
    tops = []
    by_top = {}
    for name in columns:
        node = schema.resolve(name)
        chain = node.struct_ancestors() + [node]
        top = chain[0]
        if top.id not in by_top:
            p = Proj(top, None if len(chain) == 1 else [])
            by_top[top.id] = p
            tops.append(p)
        p = by_top[top.id]
        for n in chain[1:]:
            if p.kids is None:
                break
            nxt = next((k for k in p.kids if k.node.id == n.id), None)
            if nxt is None:
                nxt = Proj(n, None if n is node else [])
                p.kids.append(nxt)
            p = nxt
        else:
            p.kids = None
    return tops


def _atomic_paths(schema):
    """File Arrow schema -> list of index paths (top-level index, child indices...) per atomic column."""
    out = []

    def walk(field, path):
        if pa.types.is_struct(field.type):
            for i in range(field.type.num_fields):
                walk(field.type.field(i), path + (i,))
        else:
            out.append(path)

    for i, f in enumerate(schema):
        walk(f, (i,))
    return out


class DataFileReader:
    """One data file of a fragment, read whole (the columns asked for) and kept for the fragment's read."""

    def __init__(self, store, df, stats):
        self.store, self.df = store, df
        self.path = check_path(df.path, store.location("(manifest)"), "data/")
        self.location = store.location(self.path)
        if df.file_major != DATA_FILE_MAJOR:
            raise UnsupportedFeatureError(
                "data-file format %d.%d" % (df.file_major, df.file_minor),
                "data file %s is in data-file format %d.%d; this reader supports %d.x; upgrade quiver"
                % (self.location, df.file_major, df.file_minor, DATA_FILE_MAJOR))
        self._reader = None
        self._paths = None
        self._columns = {}
        self.stats = stats
        # Full validation (offsets within bounds, valid UTF-8) of what a file holds, before any kernel touches
        # it: data files are hostile input (docs/format.md §5).
        self.full_validation = FULL_VALIDATION

    def _open(self):
        if self._reader is None:
            try:
                f = self.store.open_random(self.path)
            except FileNotFoundError:
                raise CorruptFileError(self.location, "the data file is missing") from None
            size = f.size()
            if self.df.size_bytes and size != self.df.size_bytes:
                raise CorruptFileError(self.location, "%d bytes, the manifest says %d (truncated or replaced)"
                                       % (size, self.df.size_bytes))
            try:
                self._reader = ipc.open_file(f)
            except (pa.ArrowInvalid, pa.ArrowIOError, OSError, ValueError) as e:
                raise CorruptFileError(self.location, "not a readable Arrow IPC file: %s" % e) from e
            self.stats.files_opened += 1
            self._paths = _atomic_paths(self._reader.schema)
            self._sub = substitute_schema(self._reader.schema)
        return self._reader

    def num_rows(self):
        r = self._open()
        try:
            return sum(r.get_record_batch(i).num_rows for i in range(r.num_record_batches)) \
                if r.num_record_batches else 0
        except (pa.ArrowInvalid, OSError) as e:
            raise CorruptFileError(self.location, "a record batch does not read: %s" % e) from e

    def _top(self, i):
        """Top-level column ``i`` of the file, every batch, as one array (only its buffers are read)."""
        if i not in self._columns:
            r = self._open()
            try:
                f = self.store.open_random(self.path)
                one = ipc.open_file(f, options=_read_options([i]))
                batches = [one.get_record_batch(b) for b in range(one.num_record_batches)]
                if self._sub is not None:
                    sub = pa.schema([self._sub.field(i)])
                    batches = [reinterpret(b, sub) for b in batches]
                chunks = [b.column(0) for b in batches]
                arr = (chunks[0] if len(chunks) == 1 else pa.concat_arrays(chunks)) if chunks \
                    else pa.array([], (self._sub or r.schema).field(i).type)
                arr.validate(full=self.full_validation)
            except (pa.ArrowInvalid, pa.ArrowIOError, OSError, ValueError, IndexError) as e:
                raise CorruptFileError(self.location, "column %d does not read: %s" % (i, e)) from e
            self._columns[i] = arr
        return self._columns[i]

    def path_of(self, column_index):
        self._open()
        if not 0 <= column_index < len(self._paths):
            raise CorruptFileError(self.location, "the manifest names atomic column %d; the file has %d"
                                   % (column_index, len(self._paths)))
        return self._paths[column_index]

    def atomic(self, column_index):
        path = self.path_of(column_index)
        arr = self._top(path[0])
        for i in path[1:]:
            arr = arr.field(i)
        return arr

    def struct_copy(self, column_index, depth):
        """The file's copy of the struct ``depth`` levels above the atomic column (0 = top-level)."""
        path = self.path_of(column_index)
        arr = self._top(path[0])
        for i in path[1:depth + 1]:
            arr = arr.field(i)
        return arr


def _as_type(arr, t, where):
    if arr.type == t:
        return arr
    try:
        return arr.view(t)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError):
        try:
            return arr.cast(t)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise CorruptFileError(where, "column of type %s where the table has %s: %s" % (arr.type, t, e)) from e


def _valid(arr):
    if arr.null_count == 0:
        return pa.array([True] * len(arr), pa.bool_()) if len(arr) < 1 else pc.is_valid(arr)
    return pc.is_valid(arr)


class _Assemble:
    def assemble(self, proj):
        n = proj.node
        if not n.is_struct:
            return self.atomic(n)
        kids = proj.children()
        arrays = [self.assemble(k) for k in kids]
        valid = self.struct_validity(n)
        fields = [k.arrow_field() for k in kids]
        if not fields:
            return pa.StructArray.from_arrays([], fields=[], mask=pc.invert(valid))
        return pa.StructArray.from_arrays(arrays, fields=fields, mask=pc.invert(valid))



class BatchSource(_Assemble):
    """The columns of one record batch of a fragment's only data file (no overlays): what a read of such a
    fragment assembles batch by batch, without concatenating the file's batches."""

    def __init__(self, fr, reader, batch, positions):
        self.fr, self.reader, self.batch, self.positions = fr, reader, batch, positions
        self.n = batch.num_rows

    def _path_array(self, column_index, depth=None):
        path = self.reader.path_of(column_index)
        arr = self.batch.column(self.positions[path[0]])
        for i in path[1:] if depth is None else path[1:depth + 1]:
            arr = arr.field(i)
        return arr

    def atomic(self, node):
        t = node.arrow_type(True)
        src = self.fr.base_source(node.id)
        if src is None:
            return pa.nulls(self.n, t)
        return _as_type(self._path_array(src[1]), t, self.reader.location)

    def struct_validity(self, node):
        depth = len(node.struct_ancestors())
        for a in node.atomic():
            src = self.fr.base_source(a.id)
            if src is not None:
                return _valid(self._path_array(src[1], depth))
        return pa.array([False] * self.n, pa.bool_())


class FragmentRead(_Assemble):
    def __init__(self, snapshot, frag, stats):
        self.snap, self.frag, self.stats = snapshot, frag, stats
        self.store = snapshot.store
        self.schema = snapshot.schema
        self.n = frag.physical_rows
        self._files = {}
        self._atomic = {}
        self._deleted = None
        self._overlays = None

    # ---- files
    def file(self, df):
        key = id(df)
        if key not in self._files:
            self._files[key] = DataFileReader(self.store, df, self.stats)
        return self._files[key]

    def base_source(self, field_id):
        for df in self.frag.files:
            for i, f in enumerate(df.fields):
                if f == field_id:
                    if i >= len(df.column_indices):
                        raise CorruptFileError(self.store.location(df.path), "fields and column indices differ in"
                                               " length in the manifest")
                    return df, df.column_indices[i]
        return None

    def overlays(self):
        if self._overlays is None:
            ovs = sorted(enumerate(self.frag.overlays), key=lambda e: (e[1].committed_version, e[0]))
            out = []
            for _, ov in ovs:
                df = ov.data_file
                r = self.file(df)
                where = r.location
                kind = ov.WhichOneof("coverage")
                try:
                    if kind == "shared_offsets":
                        shared = _roaring.decode(ov.shared_offsets)
                        cov = [shared] * len(df.fields)
                    elif kind == "per_field":
                        cov = [_roaring.decode(b) for b in ov.per_field.offsets]
                        if len(cov) != len(df.fields):
                            raise CorruptFileError(where, "the overlay has %d coverages for %d fields"
                                                   % (len(cov), len(df.fields)))
                    else:
                        raise CorruptFileError(where, "the overlay has no coverage")
                except _roaring.RoaringError as e:
                    raise CorruptFileError(where, "the overlay's coverage bitmap does not decode: %s" % e) from e
                for c in cov:
                    if c and c[-1] >= self.n:
                        raise CorruptFileError(where, "the overlay covers offset %d of a fragment of %d rows"
                                               % (c[-1], self.n))
                rows = r.num_rows()
                want = max([len(c) for c in cov] or [0])
                if rows != want:
                    raise CorruptFileError(where, "the overlay file has %d rows; its coverage needs %d" % (rows, want))
                out.append((ov, r, cov))
            self._overlays = out
        return self._overlays

    def deleted(self):
        if self._deleted is None:
            if not self.frag.HasField("deletion_file"):
                self._deleted = []
            else:
                d = self.frag.deletion_file
                rel = check_path(d.path, self.store.location("(manifest)"), "_deletions/")
                loc = self.store.location(rel)
                try:
                    data = self.store.read(rel)
                except FileNotFoundError:
                    raise CorruptFileError(loc, "the deletion file is missing") from None
                if d.size_bytes and len(data) != d.size_bytes:
                    raise CorruptFileError(loc, "%d bytes, the manifest says %d" % (len(data), d.size_bytes))
                try:
                    vals = _roaring.decode(data)
                except _roaring.RoaringError as e:
                    raise CorruptFileError(loc, "the deletion bitmap does not decode: %s" % e) from e
                if len(vals) != d.deleted_rows or (vals and vals[-1] >= self.n):
                    raise CorruptFileError(loc, "holds %d offsets (up to %s), the manifest says %d of %d rows"
                                           % (len(vals), vals[-1] if vals else "-", d.deleted_rows, self.n))
                self._deleted = vals
        return self._deleted

    # ---- values
    def atomic(self, node):
        if node.id in self._atomic:
            return self._atomic[node.id]
        t = node.arrow_type(True)
        src = self.base_source(node.id)
        if src is None:
            base = pa.nulls(self.n, t)
        else:
            r = self.file(src[0])
            base = _as_type(r.atomic(src[1]), t, r.location)
            if len(base) != self.n:
                raise CorruptFileError(r.location, "%d rows in a fragment of %d" % (len(base), self.n))
        parts, idx, nxt = [base], None, self.n
        for ov, r, cov in self.overlays():
            for i, f in enumerate(ov.data_file.fields):
                if f != node.id:
                    continue
                values = _as_type(r.atomic(ov.data_file.column_indices[i]), t, r.location)
                if idx is None:
                    idx = list(range(self.n))
                for rank, o in enumerate(cov[i]):
                    idx[o] = nxt + rank
                parts.append(values)
                nxt += len(values)
                break
        out = base if idx is None else pc.take(pa.concat_arrays(parts), pa.array(idx, pa.int64()))
        self._atomic[node.id] = out
        return out

    def struct_validity(self, node):
        """Boolean array: is struct ``node`` valid at each offset (the rule of format.md §5)."""
        members = {a.id for a in node.atomic()}
        depth = len(node.struct_ancestors())
        base = None
        for a in node.atomic():
            src = self.base_source(a.id)
            if src is not None:
                r = self.file(src[0])
                base = _valid(r.struct_copy(src[1], depth))
                break
        if base is None:
            base = pa.array([False] * self.n, pa.bool_())
        parts, idx, nxt = [base], None, self.n
        for ov, r, cov in self.overlays():
            copy = None
            assigned = set()
            for i, f in enumerate(ov.data_file.fields):
                if f not in members:
                    continue
                if copy is None:
                    copy = _valid(r.struct_copy(ov.data_file.column_indices[i], depth))
                    if idx is None:
                        idx = list(range(self.n))
                for rank, o in enumerate(cov[i]):
                    if o not in assigned:
                        assigned.add(o)
                        idx[o] = nxt + rank
            if copy is not None:
                parts.append(copy)
                nxt += len(copy)
        return base if idx is None else pc.take(pa.concat_arrays(parts), pa.array(idx, pa.int64()))

    def single_file(self):
        """The fragment's only data file with live fields, when it has no overlays; else None."""
        if len(self.frag.overlays):
            return None
        live = [df for df in self.frag.files if any(f >= 0 for f in df.fields)]
        return live[0] if len(live) == 1 else None

    def zone_stats(self, df):
        """Per record batch of ``df``: (row_count, {atomic column index: ColumnStats}), or None when the file
        has no usable zone statistics (§5.2: they are advisory and ignored when they do not fit the file)."""
        import base64

        from ._proto import table_pb2
        r = self.file(df)
        reader = r._open()
        md = reader.metadata or {}
        raw = md.get(b"quiver.zone_stats")
        if raw is None:
            return None
        try:
            z = table_pb2.ZoneStats()
            z.ParseFromString(base64.b64decode(raw, validate=True))
        except Exception:  # noqa: BLE001 - advisory: anything that does not decode is ignored
            return None
        if z.version != 1 or len(z.batches) != reader.num_record_batches \
                or sum(b.row_count for b in z.batches) != self.n:
            return None
        ncols = len(r._paths)
        out = []
        for b in z.batches:
            cols = {}
            for c in b.columns:
                if not 0 <= c.field_id < ncols or c.field_id in cols:
                    return None
                cols[c.field_id] = c
            out.append((b.row_count, cols))
        return out

    def batch_columns(self, df, nodes):
        """The top-level columns of ``df`` that hold ``nodes`` (atomic fields and the struct copies deciding
        their ancestors), sorted: what ``batches`` reads."""
        r = self.file(df)
        tops = set()
        for node in nodes:
            src = self.base_source(node.id)
            if src is not None:
                tops.add(r.path_of(src[1])[0])
        return sorted(tops)

    def direct_plan(self, df, proj, tops):
        """For a projection of top-level atomic fields only: per output column, (position in the batches of
        ``batches(df, ...)`` or None for a field the file does not hold, the table's type, whether the file's
        type differs from it). None when a struct is projected or a field sits inside a struct in the file (the
        general assembly handles those)."""
        r = self.file(df)
        r._open()
        file_schema = r._sub or r._reader.schema
        positions = {t: i for i, t in enumerate(tops)}
        plan = []
        for p in proj:
            node = p.node
            if node.is_struct:
                return None
            t = node.arrow_type(True)
            src = self.base_source(node.id)
            if src is None:
                plan.append((None, t, False))
                continue
            path = r.path_of(src[1])
            if len(path) != 1:
                return None
            plan.append((positions[path[0]], t, file_schema.field(path[0]).type != t))
        return plan

    def batches(self, df, tops, skip=None):
        """(start offset, record batch) per record batch of ``df``, reading only the top-level columns ``tops``
        (from ``batch_columns``; batch column i is file column tops[i]), each batch fully validated (offsets
        within bounds, valid UTF-8: data files are hostile input, docs/format.md §5) before anything uses it.
        ``skip(row_count, column stats)`` -> True passes over a batch by its zone statistics without decoding
        it."""
        r = self.file(df)
        r._open()
        try:
            f = self.store.open_random(r.path)
            width = len(r._reader.schema)
            # no column wanted (rows only): the first, since an empty selection reads every column
            read = tops or list(range(min(width, 1)))
            # every top-level column: no field selection, so each record batch's body is one read
            one = ipc.open_file(f, options=_read_options(None if len(read) == width else read))
            sub = None if r._sub is None else pa.schema([r._sub.field(t) for t in read])
            start = 0
            zones = self.zone_stats(df) if skip is not None else None
            for b in range(one.num_record_batches):
                if zones is not None and skip(*zones[b]):
                    self.stats.batches_pruned += 1
                    start += zones[b][0]
                    continue
                batch = one.get_record_batch(b)
                if zones is not None and batch.num_rows != zones[b][0]:
                    raise CorruptFileError(r.location, "record batch %d has %d rows, its zone statistics %d"
                                           % (b, batch.num_rows, zones[b][0]))
                if sub is not None:
                    batch = reinterpret(batch, sub)
                batch.validate(full=FULL_VALIDATION)
                yield start, batch
                start += batch.num_rows
        except (pa.ArrowInvalid, pa.ArrowIOError, OSError, ValueError, IndexError) as e:
            raise CorruptFileError(r.location, "a record batch does not read: %s" % e) from e
        if start != self.n:
            raise CorruptFileError(r.location, "%d rows in a fragment of %d" % (start, self.n))

    def live_offsets(self):
        """Int64 array of the live offsets, or None when no row is deleted."""
        d = self.deleted()
        if not d:
            return None
        return without(self.n, d)

    # ---- statistics
    def field_bounds(self, node):
        """Bounds of an atomic field over the fragment (§3.1 FieldBounds), None if unknown."""
        t = node.type
        src = self.base_source(node.id)
        if src is None:
            b = Bounds(True, False, False, None, None)
        else:
            df = src[0]
            if not df.HasField("stats") or df.stats.row_count != self.n:
                return None
            cs = next((c for c in df.stats.columns if c.field_id == node.id), None)
            if cs is None:
                return None
            b = column_stats_bounds(cs, t).bounds(df.stats.row_count)
            if b is None:
                return None
        for ov in self.frag.overlays:
            df = ov.data_file
            if node.id not in df.fields:
                continue
            if not df.HasField("stats"):
                return None
            cs = next((c for c in df.stats.columns if c.field_id == node.id), None)
            if cs is None:
                return None
            ob = column_stats_bounds(cs, t).bounds(df.stats.row_count)
            if ob is None:
                return None
            b = b.union(ob)
        return b
