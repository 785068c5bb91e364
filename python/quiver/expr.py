"""A small filter expression API, its pyarrow.compute form, and pruning by statistics (docs/format.md §3.1).

``col("id") < 100``, ``&``, ``|``, ``~``, ``isin``, ``is_null``. Filters are evaluated exactly with
pyarrow.compute (a row where the filter is null, SQL's unknown, is not returned); before that, manifest,
segment and file statistics skip whatever cannot match.
"""
import datetime
import decimal
import math

import pyarrow as pa
import pyarrow.compute as pc

from .errors import QuiverError

_OPS = {"==": pc.equal, "!=": pc.not_equal, "<": pc.less, "<=": pc.less_equal, ">": pc.greater,
        ">=": pc.greater_equal}
_NEGATE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_FLIP = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


class Expr:
    def __and__(self, other):
        return And(self, _expr(other))

    def __rand__(self, other):
        return And(_expr(other), self)

    def __or__(self, other):
        return Or(self, _expr(other))

    def __ror__(self, other):
        return Or(_expr(other), self)

    def __invert__(self):
        return Not(self)

    def __bool__(self):
        raise TypeError("a quiver filter has no truth value: combine filters with &, | and ~, not and/or/not")

    def columns(self):
        out = []
        self._columns(out)
        return out


def _expr(x):
    if isinstance(x, Expr):
        return x
    raise TypeError("expected a quiver filter expression, got %r" % (x,))


class Col(Expr):
    def __init__(self, name):
        self.name = name

    def _cmp(self, op, value):
        if isinstance(value, Col):
            raise QuiverError("comparisons of two columns are not supported; compare a column with a literal")
        return Cmp(op, self, value)

    def __eq__(self, v):  # noqa: D105
        return self._cmp("==", v)

    def __ne__(self, v):
        return self._cmp("!=", v)

    def __lt__(self, v):
        return self._cmp("<", v)

    def __le__(self, v):
        return self._cmp("<=", v)

    def __gt__(self, v):
        return self._cmp(">", v)

    def __ge__(self, v):
        return self._cmp(">=", v)

    __hash__ = object.__hash__

    def isin(self, values):
        return IsIn(self, list(values))

    def is_null(self):
        return IsNull(self)

    def is_not_null(self):
        return Not(IsNull(self))

    def to_pyarrow(self):
        return pc.field(*self.name.split(".")) if "." in self.name else pc.field(self.name)

    def _columns(self, out):
        out.append(self.name)

    def __repr__(self):
        return "col(%r)" % self.name


def col(name):
    """A column by top-level name or dotted path into structs (``"s.x"``)."""
    return Col(name)


class Cmp(Expr):
    def __init__(self, op, column, value):
        self.op, self.column, self.value = op, column, value

    def to_pyarrow(self):
        return _OPS[self.op](self.column.to_pyarrow(), pc.scalar(self.value))

    def _columns(self, out):
        self.column._columns(out)

    def __repr__(self):
        return "(%r %s %r)" % (self.column, self.op, self.value)


class IsIn(Expr):
    def __init__(self, column, values):
        self.column, self.values = column, values

    def to_pyarrow(self):
        vals = [v for v in self.values if v is not None]
        return pc.is_in(self.column.to_pyarrow(), value_set=pa.array(vals)) if vals else pc.scalar(False)

    def _columns(self, out):
        self.column._columns(out)

    def __repr__(self):
        return "%r.isin(%r)" % (self.column, self.values)


class IsNull(Expr):
    def __init__(self, column):
        self.column = column

    def to_pyarrow(self):
        return pc.is_null(self.column.to_pyarrow())

    def _columns(self, out):
        self.column._columns(out)

    def __repr__(self):
        return "%r.is_null()" % self.column


class And(Expr):
    def __init__(self, a, b):
        self.a, self.b = a, b

    def to_pyarrow(self):
        return self.a.to_pyarrow() & self.b.to_pyarrow()

    def _columns(self, out):
        self.a._columns(out)
        self.b._columns(out)

    def __repr__(self):
        return "(%r & %r)" % (self.a, self.b)


class Or(Expr):
    def __init__(self, a, b):
        self.a, self.b = a, b

    def to_pyarrow(self):
        return self.a.to_pyarrow() | self.b.to_pyarrow()

    def _columns(self, out):
        self.a._columns(out)
        self.b._columns(out)

    def __repr__(self):
        return "(%r | %r)" % (self.a, self.b)


class Not(Expr):
    def __init__(self, a):
        self.a = a

    def to_pyarrow(self):
        return ~self.a.to_pyarrow()

    def _columns(self, out):
        self.a._columns(out)

    def __repr__(self):
        return "~%r" % (self.a,)


# ---------------------------------------------------------------------------------------------- pruning


class Bounds:
    """What is known of one atomic field over some rows: may it hold nulls, non-null non-NaN values, NaN;
    lower / upper bounds (python values in the stats order, or None: unknown)."""

    __slots__ = ("nulls", "values", "nan", "lower", "upper")

    def __init__(self, nulls=True, values=True, nan=True, lower=None, upper=None):
        self.nulls, self.values, self.nan, self.lower, self.upper = nulls, values, nan, lower, upper

    def union(self, o):
        if o is None:
            return None
        lower = None if (self.values and self.lower is None) or (o.values and o.lower is None) else \
            _min([b.lower for b in (self, o) if b.values])
        upper = None if (self.values and self.upper is None) or (o.values and o.upper is None) else \
            _max([b.upper for b in (self, o) if b.values])
        return Bounds(self.nulls or o.nulls, self.values or o.values, self.nan or o.nan, lower, upper)


def _min(xs):
    xs = [x for x in xs if x is not None]
    return min(xs) if xs else None


def _max(xs):
    xs = [x for x in xs if x is not None]
    return max(xs) if xs else None


def stat_value(sv, type_):
    """StatValue -> comparable python value for the field type, or None (unknown / not comparable)."""
    if sv is None:
        return None
    kind = sv.WhichOneof("kind")
    if kind is None:
        return None
    if pa.types.is_boolean(type_):
        return sv.bool_value if kind == "bool_value" else None
    if pa.types.is_unsigned_integer(type_) and type_.bit_width == 64:
        return sv.uint_value if kind == "uint_value" else None
    if pa.types.is_integer(type_):
        return sv.int_value if kind == "int_value" else None
    if pa.types.is_floating(type_):
        return sv.float_value if kind == "float_value" else None
    if pa.types.is_string(type_) or pa.types.is_large_string(type_) or pa.types.is_binary(type_) \
            or pa.types.is_large_binary(type_) or pa.types.is_fixed_size_binary(type_):
        return sv.bytes_value if kind == "bytes_value" else None
    if pa.types.is_decimal(type_):
        if kind != "decimal_value":
            return None
        return decimal.Decimal(int.from_bytes(sv.decimal_value, "big", signed=True)).scaleb(-type_.scale)
    return None  # temporal: the stored integer; literals of those types are not pruned on


def literal_key(value, type_):
    """A filter literal in the order of the field's statistics, or None when this reader does not prune on it."""
    if value is None or isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        return None
    if pa.types.is_boolean(type_):
        return value if isinstance(value, bool) else None
    if isinstance(value, bool):
        return None
    if pa.types.is_integer(type_):
        if isinstance(value, int):
            return value
        if isinstance(value, float) and not math.isnan(value):
            return value
        return None
    if pa.types.is_floating(type_):
        if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
            return value
        return None
    if pa.types.is_string(type_) or pa.types.is_large_string(type_):
        return value.encode("utf-8") if isinstance(value, str) else None
    if pa.types.is_binary(type_) or pa.types.is_large_binary(type_) or pa.types.is_fixed_size_binary(type_):
        return bytes(value) if isinstance(value, (bytes, bytearray)) else None
    if pa.types.is_decimal(type_):
        return decimal.Decimal(value) if isinstance(value, (int, decimal.Decimal)) else None
    return None


def might_match(e, bounds_of):
    """False only when no row with these bounds can satisfy ``e``. ``bounds_of(name)`` -> (Bounds or None, type)."""
    return _might(e, bounds_of, False)


def _might(e, bf, negated):
    if isinstance(e, Not):
        return _might(e.a, bf, not negated)
    if isinstance(e, And):
        if negated:  # ~(a & b) = ~a | ~b
            return _might(e.a, bf, True) or _might(e.b, bf, True)
        return _might(e.a, bf, False) and _might(e.b, bf, False)
    if isinstance(e, Or):
        if negated:
            return _might(e.a, bf, True) and _might(e.b, bf, True)
        return _might(e.a, bf, False) or _might(e.b, bf, False)
    b, type_ = bf(e.column.name)
    if b is None:
        return True
    if isinstance(e, IsNull):
        return (b.values or b.nan) if negated else b.nulls
    if isinstance(e, IsIn):
        if negated:
            return True
        return any(_cmp_might("==", literal_key(v, type_), b) for v in e.values if v is not None) \
            if all(literal_key(v, type_) is not None for v in e.values if v is not None) else True
    if isinstance(e, Cmp):
        key = literal_key(e.value, type_)
        if key is None:
            return True
        return _cmp_might(_NEGATE[e.op] if negated else e.op, key, b)
    return True


def _cmp_might(op, v, b):
    if v is None:
        return True
    if b.nan:
        return True  # NaN compares in ways this reader does not model; never skip on it
    if not b.values:
        return False  # only nulls (and no NaN): every comparison is unknown, so no row matches
    lo, hi = b.lower, b.upper
    try:
        if op == "==":
            return not ((lo is not None and v < lo) or (hi is not None and v > hi))
        if op == "!=":
            return not (lo is not None and hi is not None and lo == hi == v)
        if op == "<":
            return lo is None or lo < v
        if op == "<=":
            return lo is None or lo <= v
        if op == ">":
            return hi is None or hi > v
        if op == ">=":
            return hi is None or hi >= v
    except TypeError:
        return True
    return True


def column_stats_bounds(cs, type_):
    """ColumnStats of one file (row_count rows) -> Bounds; None when unknown."""
    if cs is None:
        return None
    is_float = pa.types.is_floating(type_)
    nan_known = cs.HasField("nan_count")
    nan = (cs.nan_count > 0) if nan_known else is_float
    lower = stat_value(cs.lower if cs.HasField("lower") else None, type_)
    upper = stat_value(cs.upper if cs.HasField("upper") else None, type_)
    has_bounds = cs.HasField("lower") or cs.HasField("upper")
    return _Partial(cs.null_count, nan, nan_known, cs.nan_count if nan_known else 0, lower, upper, has_bounds)


class _Partial:
    def __init__(self, null_count, nan, nan_known, nan_count, lower, upper, has_bounds):
        self.null_count, self.nan, self.nan_known, self.nan_count = null_count, nan, nan_known, nan_count
        self.lower, self.upper, self.has_bounds = lower, upper, has_bounds

    def bounds(self, row_count):
        values = row_count - self.null_count - self.nan_count > 0 if self.nan_known or not self.nan else \
            row_count - self.null_count > 0
        if values and not self.has_bounds:
            return Bounds(self.null_count > 0, True, self.nan, None, None)
        lo, hi = self.lower, self.upper
        if lo is not None and hi is not None:
            try:
                if lo > hi:
                    return None  # contradictory: unknown
            except TypeError:
                return None
        return Bounds(self.null_count > 0, values or self.has_bounds, self.nan, lo, hi)


def segment_bounds(sb, type_):
    return Bounds(sb.may_have_nulls, sb.may_have_values, sb.may_have_nan,
                  stat_value(sb.lower if sb.HasField("lower") else None, type_),
                  stat_value(sb.upper if sb.HasField("upper") else None, type_))
