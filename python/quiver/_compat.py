"""Work-arounds for types pyarrow reads from IPC but cannot hold in Python."""
import ctypes

import pyarrow as pa

MONTH_INTERVAL_ID = 21  # arrow::Type::INTERVAL_MONTHS


def _sub(t):
    if t.id == MONTH_INTERVAL_ID:
        return pa.int32(), True
    if pa.types.is_struct(t):
        fs, ch = [], False
        for i in range(t.num_fields):
            f = t.field(i)
            nt, c = _sub(f.type)
            ch |= c
            fs.append(f.with_type(nt))
        return (pa.struct(fs), True) if ch else (t, False)
    if pa.types.is_map(t):
        kt, c1 = _sub(t.key_type)
        it, c2 = _sub(t.item_type)
        if c1 or c2:
            return pa.map_(t.key_field.with_type(kt), t.item_field.with_type(it), t.keys_sorted), True
        return t, False
    if pa.types.is_fixed_size_list(t):
        vt, c = _sub(t.value_type)
        return (pa.list_(t.value_field.with_type(vt), t.list_size), True) if c else (t, False)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        vt, c = _sub(t.value_type)
        if not c:
            return t, False
        f = t.value_field.with_type(vt)
        return (pa.list_(f) if pa.types.is_list(t) else pa.large_list(f)), True
    return t, False


def substitute_schema(schema):
    """The schema with every month_interval replaced by int32, or None if it has none."""
    fields, changed = [], False
    for f in schema:
        t, c = _sub(f.type)
        changed |= c
        fields.append(f.with_type(t))
    return pa.schema(fields, metadata=schema.metadata) if changed else None


class _ArrowArray(ctypes.Structure):
    _fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64), ("buffers", ctypes.c_void_p),
                ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p), ("release", ctypes.c_void_p),
                ("private_data", ctypes.c_void_p)]


def reinterpret(batch, schema):
    """The batch's data under a layout-identical schema (through the Arrow C data interface)."""
    arr = _ArrowArray()
    batch._export_to_c(ctypes.addressof(arr))
    return pa.RecordBatch._import_from_c(ctypes.addressof(arr), schema)
