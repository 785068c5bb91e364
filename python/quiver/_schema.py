"""Table schemas (schema.proto) as pyarrow schemas with field ids (docs/format.md §4)."""
import pyarrow as pa

from .errors import QuiverError

FIELD_ID_KEY = "quiver:field_id"
ROW_ADDR = "_rowaddr"

_UNITS = {1: "s", 2: "ms", 3: "us", 4: "ns"}


class Node:
    """One schema node: id, name, nullable, arrow type (of the whole subtree), children, parent."""

    __slots__ = ("id", "name", "nullable", "kind", "type", "children", "parent", "metadata", "proto")

    def __init__(self, proto, parent):
        self.proto = proto
        self.id = proto.id
        self.name = proto.name
        self.nullable = proto.nullable
        self.parent = parent
        self.metadata = dict(proto.metadata)
        if proto.type.WhichOneof("type") == "interval" and proto.type.interval.unit == 1:
            self.metadata["quiver:type"] = "interval_year_month"
        self.kind = proto.type.WhichOneof("type")
        self.children = [Node(c, self) for c in proto.children]
        self.type = _arrow_type(self)

    @property
    def is_struct(self):
        return self.kind == "struct"

    def arrow_field(self, with_ids=True):
        md = dict(self.metadata)
        if with_ids:
            md[FIELD_ID_KEY] = str(self.id)
        return pa.field(self.name, self.arrow_type(with_ids), self.nullable, metadata=md or None)

    def arrow_type(self, with_ids=True):
        if not with_ids:
            return self.type
        return _arrow_type(self, with_ids=True)

    def atomic(self):
        """The atomic fields at or under this node (structs recursed), depth-first."""
        if self.is_struct:
            out = []
            for c in self.children:
                out.extend(c.atomic())
            return out
        return [self]

    def path(self):
        p, n = [], self
        while n is not None:
            p.append(n.name)
            n = n.parent
        return ".".join(reversed(p))

    def struct_ancestors(self):
        out, n = [], self.parent
        while n is not None:
            out.append(n)
            n = n.parent
        return list(reversed(out))


def _arrow_type(node, with_ids=False):
    t = node.proto.type
    k = node.kind
    kids = [c.arrow_field(with_ids) if with_ids else pa.field(c.name, c.type, c.nullable, metadata=c.metadata or None)
            for c in node.children]
    if k == "bool":
        return pa.bool_()
    if k == "int":
        w, s = t.int.bit_width, t.int.signed
        m = {(8, True): pa.int8(), (16, True): pa.int16(), (32, True): pa.int32(), (64, True): pa.int64(),
             (8, False): pa.uint8(), (16, False): pa.uint16(), (32, False): pa.uint32(), (64, False): pa.uint64()}
        return m[(w, s)]
    if k == "floating_point":
        return {1: pa.float16(), 2: pa.float32(), 3: pa.float64()}[t.floating_point.precision]
    if k == "utf8":
        return pa.utf8()
    if k == "large_utf8":
        return pa.large_utf8()
    if k == "binary":
        return pa.binary()
    if k == "large_binary":
        return pa.large_binary()
    if k == "fixed_size_binary":
        return pa.binary(t.fixed_size_binary.byte_width)
    if k == "decimal":
        d = t.decimal
        return pa.decimal256(d.precision, d.scale) if d.bit_width == 256 else pa.decimal128(d.precision, d.scale)
    if k == "date":
        return pa.date32() if t.date.unit == 1 else pa.date64()
    if k == "time":
        unit = _UNITS[t.time.unit]
        return pa.time32(unit) if t.time.bit_width == 32 else pa.time64(unit)
    if k == "timestamp":
        tz = t.timestamp.timezone if t.timestamp.HasField("timezone") else None
        return pa.timestamp(_UNITS[t.timestamp.unit], tz)
    if k == "duration":
        return pa.duration(_UNITS[t.duration.unit])
    if k == "interval":
        u = t.interval.unit
        if u == 1:
            # pyarrow cannot hold interval(year-month) arrays in Python (it has no array class for them): the
            # reader returns them as int32 months (the same bytes), field metadata quiver:type = interval_year_month.
            return pa.int32()
        if u == 2:
            raise QuiverError("interval(day-time) columns are not supported by pyarrow")
        return pa.month_day_nano_interval()
    if k == "list":
        return pa.list_(kids[0])
    if k == "large_list":
        return pa.large_list(kids[0])
    if k == "fixed_size_list":
        return pa.list_(kids[0], t.fixed_size_list.list_size)
    if k == "map":
        entries = node.children[0]
        key, value = (kids_of(entries, with_ids))
        return pa.map_(key, value, keys_sorted=t.map.keys_sorted)
    if k == "struct":
        return pa.struct(kids)
    raise QuiverError("field '%s' has a type this reader does not know (%s)" % (node.name, k))


def kids_of(entries, with_ids):
    return [c.arrow_field(with_ids) if with_ids else pa.field(c.name, c.type, c.nullable, metadata=c.metadata or None)
            for c in entries.children]


_YM = None


def _interval_ym():
    """interval(year-month): pyarrow reads it from IPC (month_interval) but has no constructor for it, so the
    type is imported through the Arrow C data interface (format string "tiM")."""
    global _YM
    if _YM is None:
        import ctypes

        class ArrowSchema(ctypes.Structure):
            pass

        RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
        ArrowSchema._fields_ = [
            ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
            ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
            ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p),
            ("release", RELEASE), ("private_data", ctypes.c_void_p)]

        def release(p):
            p.contents.release = RELEASE()

        cb = RELEASE(release)
        s = ArrowSchema(b"tiM", b"", None, 2, 0, None, None, cb, None)
        _YM = pa.DataType._import_from_c(ctypes.addressof(s))
        _interval_ym.keep = (cb, s)
    return _YM


class TableSchema:
    def __init__(self, proto):
        self.proto = proto
        self.fields = [Node(f, None) for f in proto.fields]
        self.metadata = dict(proto.metadata)
        self.by_id = {}
        for f in self.fields:
            self._index(f)
        self.atomic = []
        for f in self.fields:
            self.atomic.extend(f.atomic())

    def _index(self, n):
        self.by_id[n.id] = n
        for c in n.children:
            self._index(c)

    def arrow(self, with_ids=True):
        return pa.schema([f.arrow_field(with_ids) for f in self.fields], metadata=self.metadata or None)

    def resolve(self, name):
        """A top-level name or dotted path into structs -> Node."""
        parts = name.split(".")
        level = self.fields
        node = None
        for i, p in enumerate(parts):
            node = next((f for f in level if f.name == p), None)
            if node is None:
                # a top-level name may contain dots
                if i == 0:
                    whole = next((f for f in self.fields if f.name == name), None)
                    if whole is not None:
                        return whole
                raise QuiverError("no column '%s' in the table (columns: %s)"
                                  % (name, ", ".join(f.name for f in self.fields)))
            if i < len(parts) - 1:
                if not node.is_struct:
                    raise QuiverError("column '%s' is not a struct; cannot select '%s'" % (node.path(), name))
                level = node.children
        return node
