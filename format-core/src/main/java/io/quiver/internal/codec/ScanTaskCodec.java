package io.quiver.internal.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.QuiverException;
import io.quiver.internal.proto.PredicateComparison;
import io.quiver.internal.proto.PredicateDecimal;
import io.quiver.internal.proto.PredicateIn;
import io.quiver.internal.proto.PredicateList;
import io.quiver.internal.proto.PredicateLiteral;
import io.quiver.internal.proto.PredicateTimestamp;
import io.quiver.internal.proto.ScanPredicate;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.roaringbitmap.RoaringBitmap;

/**
 * Bytes of a scan task: a {@code quiver.v1.ScanTask} (distributed.proto) in the metadata envelope, magic
 * {@code QVP1}, deterministic protobuf, so equal tasks encode to equal bytes. The filter is encoded node by
 * node with each literal's Java type kept, so a decoded filter equals the planned one.
 */
public final class ScanTaskCodec {
  private static final byte[] MAGIC = "QVP1".getBytes(StandardCharsets.US_ASCII);
  private static final String WHAT = "scan task";

  /** Deepest filter a task encodes (NOT, AND and OR levels); protobuf's parser needs a bound. */
  public static final int MAX_FILTER_DEPTH = 200;

  private ScanTaskCodec() {}

  /** The fields of a scan task, as encoded. */
  public record Task(
      String tableUri,
      String tableLocation,
      long version,
      long fragmentId,
      long rowStart,
      long rowEnd,
      List<Integer> fieldIds,
      Optional<Predicate> filter,
      boolean withRowAddress,
      int batchSize,
      OptionalLong limit,
      long rowCount,
      long bytesEstimate,
      List<FieldBounds> fieldBounds,
      boolean withRowLineage,
      Optional<RoaringBitmap> selection) {
    /** A task reading every offset of its range. */
    public Task(String tableUri, String tableLocation, long version, long fragmentId, long rowStart, long rowEnd,
        List<Integer> fieldIds, Optional<Predicate> filter, boolean withRowAddress, int batchSize, OptionalLong limit,
        long rowCount, long bytesEstimate, List<FieldBounds> fieldBounds, boolean withRowLineage) {
      this(tableUri, tableLocation, version, fragmentId, rowStart, rowEnd, fieldIds, filter, withRowAddress, batchSize,
          limit, rowCount, bytesEstimate, fieldBounds, withRowLineage, Optional.empty());
    }

    /** A task without the row lineage columns. */
    public Task(String tableUri, String tableLocation, long version, long fragmentId, long rowStart, long rowEnd,
        List<Integer> fieldIds, Optional<Predicate> filter, boolean withRowAddress, int batchSize, OptionalLong limit,
        long rowCount, long bytesEstimate, List<FieldBounds> fieldBounds) {
      this(tableUri, tableLocation, version, fragmentId, rowStart, rowEnd, fieldIds, filter, withRowAddress, batchSize,
          limit, rowCount, bytesEstimate, fieldBounds, false);
    }

    /** A task without field bounds (all unknown). */
    public Task(String tableUri, String tableLocation, long version, long fragmentId, long rowStart, long rowEnd,
        List<Integer> fieldIds, Optional<Predicate> filter, boolean withRowAddress, int batchSize, OptionalLong limit,
        long rowCount, long bytesEstimate) {
      this(tableUri, tableLocation, version, fragmentId, rowStart, rowEnd, fieldIds, filter, withRowAddress, batchSize,
          limit, rowCount, bytesEstimate, List.of());
    }

    public Task {
      fieldBounds = List.copyOf(fieldBounds);
      Objects.requireNonNull(tableUri, "tableUri");
      Objects.requireNonNull(tableLocation, "tableLocation");
      fieldIds = List.copyOf(fieldIds);
      Objects.requireNonNull(filter, "filter");
      Objects.requireNonNull(limit, "limit");
      if (version < 1) {
        throw new IllegalArgumentException("version must be >= 1, got " + version);
      }
      if (fragmentId < 0 || fragmentId > Fragment.MAX_ID) {
        throw new IllegalArgumentException("fragment id must be in [0, " + Fragment.MAX_ID + "], got " + fragmentId);
      }
      if (rowStart < 0 || rowStart > rowEnd || rowEnd > Fragment.MAX_ROWS) {
        throw new IllegalArgumentException("row range [" + rowStart + ", " + rowEnd + ") is not a range of offsets");
      }
      if (batchSize < 1) {
        throw new IllegalArgumentException("batch size must be >= 1, got " + batchSize);
      }
      if (limit.isPresent() && limit.getAsLong() < 0) {
        throw new IllegalArgumentException("limit must be >= 0, got " + limit.getAsLong());
      }
      if (rowCount < 0 || bytesEstimate < 0) {
        throw new IllegalArgumentException("row count and bytes estimate must be >= 0");
      }
      Objects.requireNonNull(selection, "selection");
      if (selection.isPresent()) {
        RoaringBitmap s = selection.get();
        if (!s.isEmpty() && (Integer.toUnsignedLong(s.first()) < rowStart
            || Integer.toUnsignedLong(s.last()) >= rowEnd)) {
          throw new IllegalArgumentException("the selection's offsets [" + Integer.toUnsignedLong(s.first()) + ", "
              + Integer.toUnsignedLong(s.last()) + "] are not all within the task's range [" + rowStart + ", "
              + rowEnd + ")");
        }
        selection = Optional.of(s.clone()); // a task is a value: the caller keeps its own bitmap
      }
    }

    /** The selection's offsets, or null for every offset of the range. */
    public RoaringBitmap selectionOrNull() {
      return selection.map(RoaringBitmap::clone).orElse(null);
    }
  }

  /**
   * @throws InvalidArgumentException if the filter nests deeper than {@link #MAX_FILTER_DEPTH}
   */
  public static byte[] encode(Task task) {
    io.quiver.internal.proto.ScanTask.Builder b = io.quiver.internal.proto.ScanTask.newBuilder()
        .setTableUri(task.tableUri())
        .setTableLocation(task.tableLocation())
        .setVersion(task.version())
        .setFragmentId(task.fragmentId())
        .setRowStart(task.rowStart())
        .setRowEnd(task.rowEnd())
        .addAllFieldIds(task.fieldIds())
        .setWithRowAddress(task.withRowAddress())
        .setBatchSize(task.batchSize())
        .setRowCount(task.rowCount())
        .setBytesEstimate(task.bytesEstimate())
        .setWithRowLineage(task.withRowLineage());
    task.filter().ifPresent(f -> b.setFilter(encode(f)));
    task.limit().ifPresent(b::setLimit);
    task.fieldBounds().forEach(f -> b.addFieldBounds(StatsCodec.encode(f)));
    task.selection().ifPresent(s -> b.setSelection(bitmap(s)));
    return MetadataCodec.envelope(MAGIC, MetadataCodec.deterministic(b.build()));
  }

  /**
   * @throws CorruptFileException if the bytes are damaged, not a scan task, or hold an invalid one
   */
  public static Task decode(byte[] bytes) {
    if (bytes == null) {
      throw new CorruptFileException(WHAT, "no bytes (null) to decode; pass the bytes ScanTask.encode() returned");
    }
    byte[] payload = MetadataCodec.open(MAGIC, bytes, WHAT, "QVP1 metadata");
    io.quiver.internal.proto.ScanTask t;
    try {
      CodedInputStream in = CodedInputStream.newInstance(payload);
      in.setRecursionLimit(2 * MAX_FILTER_DEPTH + 8);
      t = io.quiver.internal.proto.ScanTask.parseFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(WHAT, "payload is not valid protobuf: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CorruptFileException(WHAT, "payload could not be read: " + e.getMessage(), e);
    }
    try {
      if (t.getBatchSize() < 1) {
        throw new IllegalArgumentException("batch size must be >= 1, got " + Integer.toUnsignedString(t.getBatchSize()));
      }
      return new Task(
          t.getTableUri(),
          t.getTableLocation(),
          t.getVersion(),
          t.getFragmentId(),
          t.getRowStart(),
          t.getRowEnd(),
          t.getFieldIdsList(),
          t.hasFilter() ? Optional.of(decode(t.getFilter(), 0)) : Optional.empty(),
          t.getWithRowAddress(),
          t.getBatchSize(),
          t.hasLimit() ? OptionalLong.of(t.getLimit()) : OptionalLong.empty(),
          t.getRowCount(),
          t.getBytesEstimate(),
          t.getFieldBoundsList().stream().map(StatsCodec::decode).toList(),
          t.getWithRowLineage(),
          t.hasSelection() ? Optional.of(bitmap(t.getSelection())) : Optional.empty());
    } catch (IllegalArgumentException | java.time.DateTimeException | QuiverException e) {
      throw new CorruptFileException(WHAT, "invalid scan task: " + e.getMessage(), e);
    }
  }

  /**
   * Checks that a filter can travel in a task.
   *
   * @throws InvalidArgumentException if it nests deeper than {@link #MAX_FILTER_DEPTH}
   */
  public static void checkEncodable(Predicate filter) {
    if (hasColumnComparison(filter)) {
      throw new InvalidArgumentException(
          "the filter " + filter + " compares two columns; a scan task carries comparisons with literals only."
              + " Filter the task's batches with the predicate instead");
    }
    int depth = depth(filter);
    if (depth > MAX_FILTER_DEPTH) {
      throw new InvalidArgumentException(
          "the filter nests " + depth + " levels of NOT, AND and OR; a scan task carries at most " + MAX_FILTER_DEPTH
              + ". Flatten chains: Predicate.and and Predicate.or take any number of operands");
    }
  }

  private static boolean hasColumnComparison(Predicate p) {
    if (p instanceof Predicate.ColumnComparison) {
      return true;
    }
    if (p instanceof Predicate.Not n) {
      return hasColumnComparison(n.child());
    }
    List<Predicate> children = p instanceof Predicate.And a ? a.children()
        : p instanceof Predicate.Or o ? o.children() : List.of();
    return children.stream().anyMatch(ScanTaskCodec::hasColumnComparison);
  }

  private static int depth(Predicate p) {
    if (p instanceof Predicate.Not n) {
      return 1 + depth(n.child());
    }
    List<Predicate> children = p instanceof Predicate.And a ? a.children()
        : p instanceof Predicate.Or o ? o.children() : List.of();
    int deepest = 0;
    for (Predicate c : children) {
      deepest = Math.max(deepest, depth(c));
    }
    return children.isEmpty() ? 0 : 1 + deepest;
  }

  // ------------------------------------------------------------------ selection

  /**
   * Portable RoaringBitmap bytes, canonical for the offsets: rebuilt from them (so the containers do not depend on
   * how the bitmap was computed) and run-optimized, so equal selections encode to equal bytes.
   */
  private static ByteString bitmap(RoaringBitmap selection) {
    RoaringBitmap canonical = RoaringBitmap.bitmapOf(selection.toArray());
    canonical.runOptimize();
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(canonical.serializedSizeInBytes());
    canonical.serialize(buffer);
    return ByteString.copyFrom(buffer.array());
  }

  private static RoaringBitmap bitmap(ByteString bytes) {
    RoaringBitmap bitmap = new RoaringBitmap();
    java.nio.ByteBuffer buffer = bytes.asReadOnlyByteBuffer();
    try {
      bitmap.deserialize(buffer);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("the selection is not a portable RoaringBitmap: " + e.getMessage(), e);
    }
    if (bitmap.serializedSizeInBytes() != bytes.size()) { // deserialize(ByteBuffer) does not move the position
      throw new IllegalArgumentException("the selection holds " + bytes.size() + " bytes, its RoaringBitmap "
          + bitmap.serializedSizeInBytes());
    }
    return bitmap;
  }

  // ------------------------------------------------------------------ predicates

  static ScanPredicate encode(Predicate p) {
    checkEncodable(p);
    return node(p);
  }

  private static ScanPredicate node(Predicate p) {
    ScanPredicate.Builder b = ScanPredicate.newBuilder();
    if (p instanceof Predicate.Comparison c) {
      b.setComparison(PredicateComparison.newBuilder()
          .setColumn(c.column())
          .setOp(op(c.op()))
          .setValue(literal(c.value())));
    } else if (p instanceof Predicate.In in) {
      PredicateIn.Builder l = PredicateIn.newBuilder().setColumn(in.column());
      in.values().forEach(v -> l.addValues(literal(v)));
      b.setIn(l);
    } else if (p instanceof Predicate.IsNull n) {
      b.setIsNull(n.column());
    } else if (p instanceof Predicate.Not n) {
      b.setNot(node(n.child()));
    } else if (p instanceof Predicate.And a) {
      b.setAnd(list(a.children()));
    } else if (p instanceof Predicate.Or o) {
      b.setOr(list(o.children()));
    } else if (p instanceof Predicate.True) {
      b.setAlwaysTrue(io.quiver.internal.proto.Empty.getDefaultInstance());
    } else {
      throw new IllegalStateException("unknown predicate " + p);
    }
    return b.build();
  }

  private static PredicateList list(List<Predicate> children) {
    PredicateList.Builder l = PredicateList.newBuilder();
    children.forEach(c -> l.addChildren(node(c)));
    return l.build();
  }

  private static Predicate decode(ScanPredicate p, int depth) {
    if (depth > MAX_FILTER_DEPTH) {
      throw new IllegalArgumentException("the filter nests deeper than " + MAX_FILTER_DEPTH + " levels");
    }
    switch (p.getNodeCase()) {
      case COMPARISON: {
        PredicateComparison c = p.getComparison();
        if (!c.hasValue()) {
          throw new IllegalArgumentException("comparison of column '" + c.getColumn() + "' has no literal");
        }
        return Predicate.compare(c.getColumn(), op(c.getOp()), literal(c.getValue()));
      }
      case IN: {
        List<Object> values = new ArrayList<>();
        for (PredicateLiteral l : p.getIn().getValuesList()) {
          values.add(literal(l));
        }
        return new Predicate.In(p.getIn().getColumn(), values);
      }
      case IS_NULL:
        return new Predicate.IsNull(p.getIsNull());
      case NOT:
        return new Predicate.Not(decode(p.getNot(), depth + 1));
      case AND:
        return new Predicate.And(children(p.getAnd(), depth));
      case OR:
        return new Predicate.Or(children(p.getOr(), depth));
      case ALWAYS_TRUE:
        return Predicate.TRUE;
      default:
        throw new IllegalArgumentException("a filter node holds no predicate");
    }
  }

  private static List<Predicate> children(PredicateList list, int depth) {
    List<Predicate> out = new ArrayList<>();
    for (ScanPredicate c : list.getChildrenList()) {
      out.add(decode(c, depth + 1));
    }
    return out;
  }

  private static PredicateComparison.Op op(Predicate.Op op) {
    switch (op) {
      case EQ:
        return PredicateComparison.Op.EQ;
      case NE:
        return PredicateComparison.Op.NE;
      case LT:
        return PredicateComparison.Op.LT;
      case LE:
        return PredicateComparison.Op.LE;
      case GT:
        return PredicateComparison.Op.GT;
      case GE:
        return PredicateComparison.Op.GE;
      default:
        throw new IllegalStateException(op.name());
    }
  }

  private static Predicate.Op op(PredicateComparison.Op op) {
    switch (op) {
      case EQ:
        return Predicate.Op.EQ;
      case NE:
        return Predicate.Op.NE;
      case LT:
        return Predicate.Op.LT;
      case LE:
        return Predicate.Op.LE;
      case GT:
        return Predicate.Op.GT;
      case GE:
        return Predicate.Op.GE;
      default:
        throw new IllegalArgumentException("comparison has no known operator (" + op + ")");
    }
  }

  private static PredicateLiteral literal(Object v) {
    PredicateLiteral.Builder b = PredicateLiteral.newBuilder();
    if (v instanceof Boolean x) {
      b.setBoolValue(x);
    } else if (v instanceof Byte x) {
      b.setInt8Value(x);
    } else if (v instanceof Short x) {
      b.setInt16Value(x);
    } else if (v instanceof Integer x) {
      b.setInt32Value(x);
    } else if (v instanceof Long x) {
      b.setInt64Value(x);
    } else if (v instanceof BigInteger x) {
      b.setBigIntegerValue(ByteString.copyFrom(x.toByteArray()));
    } else if (v instanceof Float x) {
      b.setFloat32Value(x);
    } else if (v instanceof Double x) {
      b.setFloat64Value(x);
    } else if (v instanceof BigDecimal x) {
      b.setDecimalValue(PredicateDecimal.newBuilder()
          .setUnscaled(ByteString.copyFrom(x.unscaledValue().toByteArray()))
          .setScale(x.scale()));
    } else if (v instanceof String x) {
      b.setStringValue(x);
    } else if (v instanceof byte[] x) {
      b.setBinaryValue(ByteString.copyFrom(x));
    } else if (v instanceof LocalDate x) {
      b.setDateValue(x.toEpochDay());
    } else if (v instanceof Instant x) {
      b.setInstantValue(PredicateTimestamp.newBuilder().setSeconds(x.getEpochSecond()).setNanos(x.getNano()));
    } else if (v instanceof LocalDateTime x) {
      b.setLocalDateTimeValue(PredicateTimestamp.newBuilder()
          .setSeconds(x.toEpochSecond(ZoneOffset.UTC)).setNanos(x.getNano()));
    } else {
      throw new IllegalStateException("literal of unsupported type " + v.getClass().getName());
    }
    return b.build();
  }

  private static Object literal(PredicateLiteral l) {
    switch (l.getValueCase()) {
      case BOOL_VALUE:
        return l.getBoolValue();
      case INT8_VALUE:
        return narrow(l.getInt8Value(), Byte.MIN_VALUE, Byte.MAX_VALUE, "int8").byteValue();
      case INT16_VALUE:
        return narrow(l.getInt16Value(), Short.MIN_VALUE, Short.MAX_VALUE, "int16").shortValue();
      case INT32_VALUE:
        return l.getInt32Value();
      case INT64_VALUE:
        return l.getInt64Value();
      case BIG_INTEGER_VALUE:
        return new BigInteger(nonEmpty(l.getBigIntegerValue(), "big integer"));
      case FLOAT32_VALUE:
        return l.getFloat32Value();
      case FLOAT64_VALUE:
        return l.getFloat64Value();
      case DECIMAL_VALUE:
        return new BigDecimal(new BigInteger(nonEmpty(l.getDecimalValue().getUnscaled(), "decimal")),
            l.getDecimalValue().getScale());
      case STRING_VALUE:
        return l.getStringValue();
      case BINARY_VALUE:
        return l.getBinaryValue().toByteArray();
      case DATE_VALUE:
        return LocalDate.ofEpochDay(l.getDateValue());
      case INSTANT_VALUE:
        return Instant.ofEpochSecond(l.getInstantValue().getSeconds(), nanos(l.getInstantValue()));
      case LOCAL_DATE_TIME_VALUE:
        return LocalDateTime.ofEpochSecond(l.getLocalDateTimeValue().getSeconds(), nanos(l.getLocalDateTimeValue()),
            ZoneOffset.UTC);
      default:
        throw new IllegalArgumentException("a filter literal holds no value");
    }
  }

  private static Integer narrow(int value, int min, int max, String type) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(type + " literal " + value + " is out of range");
    }
    return value;
  }

  private static byte[] nonEmpty(ByteString bytes, String what) {
    if (bytes.isEmpty()) {
      throw new IllegalArgumentException(what + " literal has no bytes");
    }
    return bytes.toByteArray();
  }

  private static int nanos(PredicateTimestamp t) {
    if (Integer.compareUnsigned(t.getNanos(), 999_999_999) > 0) {
      throw new IllegalArgumentException("timestamp literal has " + Integer.toUnsignedString(t.getNanos())
          + " nanoseconds; expected 0..999999999");
    }
    return t.getNanos();
  }
}
