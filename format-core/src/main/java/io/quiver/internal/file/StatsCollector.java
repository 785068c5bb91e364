package io.quiver.internal.file;

import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.FileStats;
import io.quiver.manifest.StatValue;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.ArrowBufPointer;
import org.apache.arrow.memory.util.ByteFunctionHelpers;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.util.ReusableByteArray;

/**
 * Column statistics of a data file as it is written (docs/format.md §3.1, §5.2): per record batch and per
 * atomic column, the null count (a struct member is null where an enclosing struct is), the NaN count of
 * floating-point columns, and the least and greatest non-null, non-NaN value in the order the predicate
 * evaluator compares values; the file's statistics merge its batches'. Strings and binaries are truncated.
 * Columns of other types (interval, lists, maps) get counts only. Statistics here are keyed by atomic
 * column index; the table layer maps them to field ids.
 */
final class StatsCollector {
  private enum Kind { SIGNED, UNSIGNED, UINT64, FIXED32, FIXED64, FLOAT, BOOL, DECIMAL, UTF8, BINARY, FIXED_BINARY, NONE }

  private final Kind[] kinds;
  private final long[] masks;
  /** Whether string and binary bounds are truncated (as written) or exact (the least and greatest value). */
  private final boolean truncate;
  private final List<FileStats> zones = new ArrayList<>();
  private final ColumnStats[] file;
  private long rows;

  StatsCollector(org.apache.arrow.vector.types.pojo.Schema schema) {
    this(schema, true);
  }

  /** With {@code truncate} false, string and binary bounds are the exact least and greatest values. */
  StatsCollector(org.apache.arrow.vector.types.pojo.Schema schema, boolean truncate) {
    this.truncate = truncate;
    SchemaLayout layout = new SchemaLayout(schema);
    int n = layout.atomicField.length;
    kinds = new Kind[n];
    masks = new long[n];
    file = new ColumnStats[n];
    for (int c = 0; c < n; c++) {
      ArrowType t = layout.fields[layout.atomicField[c]].getType();
      kinds[c] = kindOf(t);
      if (t instanceof ArrowType.Int i && !i.getIsSigned() && i.getBitWidth() < 64) {
        masks[c] = (1L << i.getBitWidth()) - 1;
      }
    }
  }

  private static Kind kindOf(ArrowType t) {
    if (t instanceof ArrowType.Int i) {
      return i.getIsSigned() ? Kind.SIGNED : i.getBitWidth() == 64 ? Kind.UINT64 : Kind.UNSIGNED;
    }
    if (t instanceof ArrowType.FloatingPoint) {
      return Kind.FLOAT;
    }
    if (t instanceof ArrowType.Bool) {
      return Kind.BOOL;
    }
    if (t instanceof ArrowType.Decimal) {
      return Kind.DECIMAL;
    }
    if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8) {
      return Kind.UTF8;
    }
    if (t instanceof ArrowType.Binary || t instanceof ArrowType.LargeBinary) {
      return Kind.BINARY;
    }
    if (t instanceof ArrowType.FixedSizeBinary) {
      return Kind.FIXED_BINARY;
    }
    if (t instanceof ArrowType.Date d) {
      return d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? Kind.FIXED32 : Kind.FIXED64;
    }
    if (t instanceof ArrowType.Time tm) {
      return tm.getBitWidth() == 32 ? Kind.FIXED32 : Kind.FIXED64;
    }
    if (t instanceof ArrowType.Timestamp || t instanceof ArrowType.Duration) {
      return Kind.FIXED64;
    }
    return Kind.NONE;
  }

  /** Records one record batch: {@code columnBytes} per atomic column, the bytes its buffers take in the file. */
  void addBatch(VectorSchemaRoot batch, long[] columnBytes) {
    List<FieldVector[]> chains = new ArrayList<>();
    for (FieldVector v : batch.getFieldVectors()) {
      collect(v, new ArrayList<>(), chains);
    }
    int n = batch.getRowCount();
    List<ColumnStats> columns = new ArrayList<>(chains.size());
    for (int c = 0; c < chains.size(); c++) {
      ColumnStats zone = columnStats(c, chains.get(c), n);
      columns.add(zone);
      ColumnStats withBytes = new ColumnStats(c, zone.nullCount(), zone.nanCount(), zone.lower(), zone.upper(),
          columnBytes[c]);
      file[c] = file[c] == null ? withBytes : merge(file[c], withBytes, rows, n);
    }
    zones.add(new FileStats(n, columns));
    rows += n;
  }

  /** The file's statistics per atomic column (field id = column index), for the rows added so far. */
  List<ColumnStats> fileColumns() {
    List<ColumnStats> out = new ArrayList<>();
    for (int c = 0; c < file.length; c++) {
      out.add(file[c] != null ? file[c] : new ColumnStats(c, 0, kinds[c] == Kind.FLOAT ? OptionalLong.of(0)
          : OptionalLong.empty(), Optional.empty(), Optional.empty(), 0));
    }
    return out;
  }

  /** Per record batch, its statistics (field id = column index). */
  List<FileStats> zones() {
    return List.copyOf(zones);
  }

  private static void collect(FieldVector v, List<FieldVector> ancestors, List<FieldVector[]> out) {
    if (v instanceof StructVector s) {
      List<FieldVector> inner = new ArrayList<>(ancestors);
      inner.add(s);
      for (FieldVector child : s.getChildrenFromFields()) {
        collect(child, inner, out);
      }
      return;
    }
    FieldVector[] chain = new FieldVector[ancestors.size() + 1];
    for (int i = 0; i < ancestors.size(); i++) {
      chain[i] = ancestors.get(i);
    }
    chain[ancestors.size()] = v;
    out.add(chain);
  }

  /**
   * Whether some row of the first {@code n} may be null in the chain: false when no vector of it has a null
   * among its values (then no row's validity needs reading).
   */
  private static boolean mayHaveNulls(FieldVector[] chain, int n) {
    for (FieldVector v : chain) {
      if (v.getValueCount() < n || v.getNullCount() > 0) {
        return true;
      }
    }
    return false;
  }

  private static boolean isNull(FieldVector[] chain, int row) {
    for (FieldVector v : chain) {
      if (v.isNull(row)) {
        return true;
      }
    }
    return false;
  }

  private ColumnStats columnStats(int c, FieldVector[] chain, int n) {
    FieldVector v = chain[chain.length - 1];
    Kind kind = kinds[c];
    long nulls = 0;
    long nans = 0;
    StatValue lower = null;
    StatValue upper = null;
    boolean nullable = mayHaveNulls(chain, n);
    switch (kind) {
      case SIGNED, UNSIGNED, UINT64, FIXED32, FIXED64 -> {
        long min = 0;
        long max = 0;
        boolean any = false;
        boolean unsigned = kind == Kind.UINT64;
        ArrowBuf data = kind == Kind.FIXED32 || kind == Kind.FIXED64 ? ((BaseFixedWidthVector) v).getDataBuffer() : null;
        for (int i = 0; i < n; i++) {
          if (nullable && isNull(chain, i)) {
            nulls++;
            continue;
          }
          long x = switch (kind) {
            case FIXED32 -> data.getInt((long) i * 4);
            case FIXED64 -> data.getLong((long) i * 8);
            case UNSIGNED -> ((BaseIntVector) v).getValueAsLong(i) & masks[c];
            default -> ((BaseIntVector) v).getValueAsLong(i);
          };
          if (!any) {
            min = x;
            max = x;
            any = true;
          } else if (unsigned) {
            min = Long.compareUnsigned(x, min) < 0 ? x : min;
            max = Long.compareUnsigned(x, max) > 0 ? x : max;
          } else {
            min = Math.min(min, x);
            max = Math.max(max, x);
          }
        }
        if (any) {
          lower = unsigned ? new StatValue.UInt64(min) : new StatValue.Int(min);
          upper = unsigned ? new StatValue.UInt64(max) : new StatValue.Int(max);
        }
      }
      case FLOAT -> {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        boolean any = false;
        FloatingPointVector fp = (FloatingPointVector) v;
        for (int i = 0; i < n; i++) {
          if (nullable && isNull(chain, i)) {
            nulls++;
            continue;
          }
          double x = fp.getValueAsDouble(i);
          if (Double.isNaN(x)) {
            nans++;
            continue;
          }
          any = true;
          min = Math.min(min, x);
          max = Math.max(max, x);
        }
        if (any) {
          // -0.0 and 0.0 compare equal: bound conservatively for readers with a total order.
          lower = new StatValue.Real(min == 0 ? -0.0 : min);
          upper = new StatValue.Real(max == 0 ? 0.0 : max);
        }
      }
      case BOOL -> {
        boolean sawFalse = false;
        boolean sawTrue = false;
        BitVector bits = (BitVector) v;
        for (int i = 0; i < n; i++) {
          if (nullable && isNull(chain, i)) {
            nulls++;
          } else if (bits.get(i) != 0) {
            sawTrue = true;
          } else {
            sawFalse = true;
          }
        }
        if (sawFalse || sawTrue) {
          lower = new StatValue.Bool(!sawFalse);
          upper = new StatValue.Bool(sawTrue);
        }
      }
      case DECIMAL -> {
        BigInteger min = null;
        BigInteger max = null;
        for (int i = 0; i < n; i++) {
          if (nullable && isNull(chain, i)) {
            nulls++;
            continue;
          }
          BigInteger x = (v instanceof DecimalVector d ? d.getObject(i) : ((Decimal256Vector) v).getObject(i))
              .unscaledValue();
          min = min == null || x.compareTo(min) < 0 ? x : min;
          max = max == null || x.compareTo(max) > 0 ? x : max;
        }
        if (min != null) {
          lower = new StatValue.Decimal(min);
          upper = new StatValue.Decimal(max);
        }
      }
      case UTF8, BINARY, FIXED_BINARY -> {
        byte[] min = null;
        byte[] max = null;
        ReusableByteArray scratch = new ReusableByteArray();
        ArrowBufPointer pointer = new ArrowBufPointer();
        for (int i = 0; i < n; i++) {
          if (nullable && isNull(chain, i)) {
            nulls++;
            continue;
          }
          if (v instanceof BaseVariableWidthVector strings) {
            // compared where they are: only a new least or greatest value is copied out
            ArrowBuf data = strings.getDataBuffer();
            int start = strings.getStartOffset(i);
            int end = strings.getEndOffset(i);
            if (min == null || ByteFunctionHelpers.compare(data, start, end, min, 0, min.length) < 0) {
              min = new byte[end - start];
              data.getBytes(start, min);
            }
            if (max == null || ByteFunctionHelpers.compare(data, start, end, max, 0, max.length) > 0) {
              max = new byte[end - start];
              data.getBytes(start, max);
            }
            continue;
          }
          byte[] buf;
          int len;
          if (kind == Kind.FIXED_BINARY) {
            ((BaseFixedWidthVector) v).getDataPointer(i, pointer);
            len = (int) pointer.getLength();
            buf = new byte[len];
            pointer.getBuf().getBytes(pointer.getOffset(), buf);
          } else {
            ((VariableWidthFieldVector) v).read(i, scratch);
            buf = scratch.getBuffer();
            len = (int) scratch.getLength();
          }
          if (min == null || java.util.Arrays.compareUnsigned(buf, 0, len, min, 0, min.length) < 0) {
            min = java.util.Arrays.copyOf(buf, len);
          }
          if (max == null || java.util.Arrays.compareUnsigned(buf, 0, len, max, 0, max.length) > 0) {
            max = java.util.Arrays.copyOf(buf, len);
          }
        }
        if (min != null && !truncate) {
          lower = new StatValue.Bytes(min);
          upper = new StatValue.Bytes(max);
        } else if (min != null) {
          boolean utf8 = kind == Kind.UTF8;
          lower = new StatValue.Bytes(StatValues.truncateLower(min, min.length, utf8));
          upper = StatValues.truncateUpper(max, max.length, utf8).map(StatValue.Bytes::new).orElse(null);
        }
      }
      case NONE -> {
        for (int i = 0; i < n; i++) {
          if (nullable && isNull(chain, i)) {
            nulls++;
          }
        }
      }
      default -> throw new IllegalStateException("unknown kind " + kind);
    }
    return new ColumnStats(c, nulls, kind == Kind.FLOAT ? OptionalLong.of(nans) : OptionalLong.empty(),
        Optional.ofNullable(lower), Optional.ofNullable(upper), 0);
  }

  /**
   * Statistics of the union of two row sets of {@code aRows} and {@code bRows} rows. A bound missing on a side
   * that has values (a string with no upper bound) stays missing.
   */
  static ColumnStats merge(ColumnStats a, ColumnStats b, long aRows, long bRows) {
    boolean aValues = hasBoundedValues(a, aRows);
    boolean bValues = hasBoundedValues(b, bRows);
    Optional<StatValue> lower = StatValues.union(a.lower(), b.lower(), aValues, bValues, -1);
    Optional<StatValue> upper = StatValues.union(a.upper(), b.upper(), aValues, bValues, 1);
    OptionalLong nans = a.nanCount().isPresent() && b.nanCount().isPresent()
        ? OptionalLong.of(a.nanCount().getAsLong() + b.nanCount().getAsLong()) : OptionalLong.empty();
    return new ColumnStats(a.fieldId(), a.nullCount() + b.nullCount(), nans, lower, upper,
        a.columnBytes() + b.columnBytes());
  }

  /** Whether some row of the set holds a non-null, non-NaN value. */
  static boolean hasBoundedValues(ColumnStats s, long rows) {
    return rows - s.nullCount() - s.nanCount().orElse(0) > 0;
  }
}
