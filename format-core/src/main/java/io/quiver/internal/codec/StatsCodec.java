package io.quiver.internal.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.quiver.manifest.ColumnStats;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.FileStats;
import io.quiver.manifest.StatValue;
import io.quiver.internal.proto.BatchStats;
import io.quiver.internal.proto.ZoneStats;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Protobuf forms of column statistics (table.proto {@code FileStats}, {@code ColumnStats}, {@code StatValue},
 * {@code ZoneStats}; distributed.proto {@code FieldBounds}); docs/format.md §3.1 and §5.2.
 */
public final class StatsCodec {
  /** The zone-statistics version this library writes and reads. */
  public static final int ZONE_STATS_VERSION = 1;

  /** Zone statistics larger than this (base64 characters) are not decoded: no file of ours comes near it. */
  private static final int MAX_ZONE_CHARS = 64 << 20;

  private StatsCodec() {}

  public static io.quiver.internal.proto.FileStats encode(FileStats s) {
    io.quiver.internal.proto.FileStats.Builder b = io.quiver.internal.proto.FileStats.newBuilder()
        .setRowCount(s.rowCount());
    s.columns().forEach(c -> b.addColumns(encode(c)));
    return b.build();
  }

  /** @throws IllegalArgumentException if the statistics are inconsistent (a count above the row count, ...) */
  public static FileStats decode(io.quiver.internal.proto.FileStats s) {
    List<ColumnStats> columns = new ArrayList<>(s.getColumnsCount());
    for (io.quiver.internal.proto.ColumnStats c : s.getColumnsList()) {
      columns.add(decode(c));
    }
    return new FileStats(s.getRowCount(), columns);
  }

  static io.quiver.internal.proto.ColumnStats encode(ColumnStats c) {
    io.quiver.internal.proto.ColumnStats.Builder b = io.quiver.internal.proto.ColumnStats.newBuilder()
        .setFieldId(c.fieldId())
        .setNullCount(c.nullCount())
        .setColumnBytes(c.columnBytes());
    c.nanCount().ifPresent(b::setNanCount);
    c.lower().ifPresent(v -> b.setLower(encode(v)));
    c.upper().ifPresent(v -> b.setUpper(encode(v)));
    return b.build();
  }

  static ColumnStats decode(io.quiver.internal.proto.ColumnStats c) {
    return new ColumnStats(c.getFieldId(), c.getNullCount(),
        c.hasNanCount() ? OptionalLong.of(c.getNanCount()) : OptionalLong.empty(),
        c.hasLower() ? decode(c.getLower()) : Optional.empty(),
        c.hasUpper() ? decode(c.getUpper()) : Optional.empty(),
        c.getColumnBytes());
  }

  static io.quiver.internal.proto.StatValue encode(StatValue v) {
    io.quiver.internal.proto.StatValue.Builder b = io.quiver.internal.proto.StatValue.newBuilder();
    if (v instanceof StatValue.Int i) {
      b.setIntValue(i.value());
    } else if (v instanceof StatValue.UInt64 u) {
      b.setUintValue(u.bits());
    } else if (v instanceof StatValue.Real r) {
      b.setFloatValue(r.value());
    } else if (v instanceof StatValue.Bool x) {
      b.setBoolValue(x.value());
    } else if (v instanceof StatValue.Decimal d) {
      b.setDecimalValue(ByteString.copyFrom(d.unscaled().toByteArray()));
    } else if (v instanceof StatValue.Bytes bytes) {
      b.setBytesValue(ByteString.copyFrom(bytes.value()));
    }
    return b.build();
  }

  /** Empty for a value with no kind set (or NaN: never a bound), which reads as an unknown bound. */
  static Optional<StatValue> decode(io.quiver.internal.proto.StatValue v) {
    return switch (v.getKindCase()) {
      case INT_VALUE -> Optional.of(new StatValue.Int(v.getIntValue()));
      case UINT_VALUE -> Optional.of(new StatValue.UInt64(v.getUintValue()));
      case FLOAT_VALUE -> Double.isNaN(v.getFloatValue()) ? Optional.empty()
          : Optional.of(new StatValue.Real(v.getFloatValue()));
      case BOOL_VALUE -> Optional.of(new StatValue.Bool(v.getBoolValue()));
      case DECIMAL_VALUE -> v.getDecimalValue().isEmpty() ? Optional.empty()
          : Optional.of(new StatValue.Decimal(new BigInteger(v.getDecimalValue().toByteArray())));
      case BYTES_VALUE -> Optional.of(new StatValue.Bytes(v.getBytesValue().toByteArray()));
      case KIND_NOT_SET -> Optional.empty();
    };
  }

  // ---- scan task bounds

  static io.quiver.internal.proto.FieldBounds encode(FieldBounds f) {
    io.quiver.internal.proto.FieldBounds.Builder b = io.quiver.internal.proto.FieldBounds.newBuilder()
        .setFieldId(f.fieldId())
        .setMayHaveNulls(f.mayHaveNulls())
        .setMayHaveValues(f.mayHaveValues())
        .setMayHaveNan(f.mayHaveNan())
        .setTight(f.tight());
    f.nullCount().ifPresent(b::setNullCount);
    f.nanCount().ifPresent(b::setNanCount);
    f.lower().ifPresent(v -> b.setLower(encode(v)));
    f.upper().ifPresent(v -> b.setUpper(encode(v)));
    return b.build();
  }

  static FieldBounds decode(io.quiver.internal.proto.FieldBounds f) {
    return new FieldBounds(f.getFieldId(), f.getMayHaveNulls(), f.getMayHaveValues(),
        f.hasNullCount() ? OptionalLong.of(f.getNullCount()) : OptionalLong.empty(),
        f.hasNanCount() ? OptionalLong.of(f.getNanCount()) : OptionalLong.empty(),
        f.getMayHaveNan(),
        f.hasLower() ? decode(f.getLower()) : Optional.empty(),
        f.hasUpper() ? decode(f.getUpper()) : Optional.empty(),
        f.getTight());
  }

  // ---- zone statistics (data-file footer)

  /** The footer value of zone statistics: base64 (RFC 4648, padded) of a ZoneStats message. */
  public static String encodeZones(List<FileStats> batches) {
    ZoneStats.Builder b = ZoneStats.newBuilder().setVersion(ZONE_STATS_VERSION);
    for (FileStats batch : batches) {
      BatchStats.Builder bb = BatchStats.newBuilder().setRowCount(batch.rowCount());
      batch.columns().forEach(c -> bb.addColumns(encode(c)));
      b.addBatches(bb);
    }
    return Base64.getEncoder().encodeToString(MetadataCodec.deterministic(b.build()));
  }

  /**
   * Zone statistics from a footer value, one {@link FileStats} per record batch (field id = atomic column
   * index); empty when the value does not decode, is of another version, or is inconsistent (zone statistics
   * are advisory: a reader that cannot use them reads every batch).
   */
  public static Optional<List<FileStats>> decodeZones(String value) {
    if (value == null || value.length() > MAX_ZONE_CHARS) {
      return Optional.empty();
    }
    try {
      ZoneStats z = ZoneStats.parseFrom(Base64.getDecoder().decode(value));
      if (z.getVersion() != ZONE_STATS_VERSION) {
        return Optional.empty();
      }
      List<FileStats> out = new ArrayList<>(z.getBatchesCount());
      for (BatchStats b : z.getBatchesList()) {
        List<ColumnStats> columns = new ArrayList<>(b.getColumnsCount());
        for (io.quiver.internal.proto.ColumnStats c : b.getColumnsList()) {
          columns.add(decode(c));
        }
        out.add(new FileStats(b.getRowCount(), columns));
      }
      return Optional.of(out);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
