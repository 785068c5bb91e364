"""Cell-for-cell comparison of a quiver read with an Arrow IPC file the Java reader exported."""
import decimal
import math

import pyarrow as pa
import pyarrow.ipc as ipc

from quiver._compat import reinterpret, substitute_schema


def read_expected(path):
    with pa.memory_map(path) as src:
        r = ipc.open_file(src)
        sub = substitute_schema(r.schema)
        batches = [r.get_record_batch(i) for i in range(r.num_record_batches)]
        if sub is not None:
            batches = [reinterpret(b, sub) for b in batches]
        schema = sub or r.schema
        return pa.Table.from_batches(batches, schema=schema)


def _norm(v):
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, float) and v == 0.0:
        return ("zero", math.copysign(1.0, v))
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_norm(x) for x in v]
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


def assert_same(got, want, what):
    assert got.column_names == want.column_names, "%s: columns %s, Java %s" % (what, got.column_names, want.column_names)
    assert got.num_rows == want.num_rows, "%s: %d rows, Java %d" % (what, got.num_rows, want.num_rows)
    for name in want.column_names:
        g = got.column(name).to_pylist()
        w = want.column(name).to_pylist()
        for i, (a, b) in enumerate(zip(g, w)):
            if _norm(a) != _norm(b):
                raise AssertionError("%s: column %s row %d: python %r, Java %r" % (what, name, i, a, b))
