package io.quiver.internal.codec;

import io.quiver.internal.proto.DateUnit;
import io.quiver.internal.proto.DecimalType;
import io.quiver.internal.proto.DurationType;
import io.quiver.internal.proto.Empty;
import io.quiver.internal.proto.FixedSizeBinaryType;
import io.quiver.internal.proto.FixedSizeListType;
import io.quiver.internal.proto.FloatPrecision;
import io.quiver.internal.proto.FloatingPointType;
import io.quiver.internal.proto.IntType;
import io.quiver.internal.proto.IntervalType;
import io.quiver.internal.proto.IntervalUnit;
import io.quiver.internal.proto.MapType;
import io.quiver.internal.proto.TimeType;
import io.quiver.internal.proto.TimeUnit;
import io.quiver.internal.proto.TimestampType;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Schema ↔ protobuf. Decoding failures surface as {@link IllegalArgumentException}. */
final public class SchemaCodec {
  private SchemaCodec() {}

  private static final Empty EMPTY = Empty.getDefaultInstance();

  static io.quiver.internal.proto.Schema encode(Schema schema) {
    io.quiver.internal.proto.Schema.Builder b = io.quiver.internal.proto.Schema.newBuilder();
    for (Field f : schema.fields()) {
      b.addFields(encode(f));
    }
    b.putAllMetadata(schema.metadata());
    return b.build();
  }

  static Schema decode(io.quiver.internal.proto.Schema proto) {
    List<Field> fields = new ArrayList<>();
    for (io.quiver.internal.proto.Field f : proto.getFieldsList()) {
      fields.add(decode(f));
    }
    return new Schema(fields, proto.getMetadataMap());
  }

  private static io.quiver.internal.proto.Field encode(Field f) {
    io.quiver.internal.proto.Field.Builder b =
        io.quiver.internal.proto.Field.newBuilder()
            .setId(f.id())
            .setParentId(f.parentId())
            .setName(f.name())
            .setNullable(f.nullable())
            .setType(encodeType(f.type()))
            .putAllMetadata(f.metadata());
    for (Field child : f.children()) {
      b.addChildren(encode(child));
    }
    return b.build();
  }

  private static Field decode(io.quiver.internal.proto.Field f) {
    List<Field> children = new ArrayList<>();
    for (io.quiver.internal.proto.Field child : f.getChildrenList()) {
      children.add(decode(child));
    }
    return new Field(
        f.getId(), f.getParentId(), f.getName(), decodeType(f.getType(), f.getName()), f.getNullable(),
        f.getMetadataMap(), children);
  }

  static io.quiver.internal.proto.ArrowType encodeType(ArrowType type) {
    io.quiver.internal.proto.ArrowType.Builder b = io.quiver.internal.proto.ArrowType.newBuilder();
    switch (type.getTypeID()) {
      case Bool -> b.setBool(EMPTY);
      case Int -> {
        ArrowType.Int t = (ArrowType.Int) type;
        b.setInt(IntType.newBuilder().setBitWidth(t.getBitWidth()).setSigned(t.getIsSigned()));
      }
      case FloatingPoint -> {
        FloatPrecision p =
            switch (((ArrowType.FloatingPoint) type).getPrecision()) {
              case HALF -> FloatPrecision.HALF;
              case SINGLE -> FloatPrecision.SINGLE;
              case DOUBLE -> FloatPrecision.DOUBLE;
            };
        b.setFloatingPoint(FloatingPointType.newBuilder().setPrecision(p));
      }
      case Utf8 -> b.setUtf8(EMPTY);
      case LargeUtf8 -> b.setLargeUtf8(EMPTY);
      case Binary -> b.setBinary(EMPTY);
      case LargeBinary -> b.setLargeBinary(EMPTY);
      case FixedSizeBinary ->
          b.setFixedSizeBinary(
              FixedSizeBinaryType.newBuilder().setByteWidth(((ArrowType.FixedSizeBinary) type).getByteWidth()));
      case Decimal -> {
        ArrowType.Decimal t = (ArrowType.Decimal) type;
        b.setDecimal(
            DecimalType.newBuilder()
                .setPrecision(t.getPrecision())
                .setScale(t.getScale())
                .setBitWidth(t.getBitWidth()));
      }
      case Date ->
          b.setDate(
              io.quiver.internal.proto.DateType.newBuilder()
                  .setUnit(
                      ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY
                          ? DateUnit.DAY
                          : DateUnit.DATE_MILLISECOND));
      case Time -> {
        ArrowType.Time t = (ArrowType.Time) type;
        b.setTime(TimeType.newBuilder().setUnit(encodeUnit(t.getUnit())).setBitWidth(t.getBitWidth()));
      }
      case Timestamp -> {
        ArrowType.Timestamp t = (ArrowType.Timestamp) type;
        TimestampType.Builder tb = TimestampType.newBuilder().setUnit(encodeUnit(t.getUnit()));
        if (t.getTimezone() != null) {
          tb.setTimezone(t.getTimezone());
        }
        b.setTimestamp(tb);
      }
      case Duration ->
          b.setDuration(DurationType.newBuilder().setUnit(encodeUnit(((ArrowType.Duration) type).getUnit())));
      case Interval -> {
        IntervalUnit u =
            switch (((ArrowType.Interval) type).getUnit()) {
              case YEAR_MONTH -> IntervalUnit.YEAR_MONTH;
              case DAY_TIME -> IntervalUnit.DAY_TIME;
              case MONTH_DAY_NANO -> IntervalUnit.MONTH_DAY_NANO;
            };
        b.setInterval(IntervalType.newBuilder().setUnit(u));
      }
      case List -> b.setList(EMPTY);
      case LargeList -> b.setLargeList(EMPTY);
      case FixedSizeList ->
          b.setFixedSizeList(
              FixedSizeListType.newBuilder().setListSize(((ArrowType.FixedSizeList) type).getListSize()));
      case Map -> b.setMap(MapType.newBuilder().setKeysSorted(((ArrowType.Map) type).getKeysSorted()));
      case Struct -> b.setStruct(EMPTY);
      default -> throw new IllegalArgumentException("Arrow type " + type + " is not part of Quiver format 1");
    }
    return b.build();
  }

  static ArrowType decodeType(io.quiver.internal.proto.ArrowType t, String fieldName) {
    return switch (t.getTypeCase()) {
      case BOOL -> ArrowType.Bool.INSTANCE;
      case INT -> new ArrowType.Int(t.getInt().getBitWidth(), t.getInt().getSigned());
      case FLOATING_POINT ->
          new ArrowType.FloatingPoint(
              switch (t.getFloatingPoint().getPrecision()) {
                case HALF -> FloatingPointPrecision.HALF;
                case SINGLE -> FloatingPointPrecision.SINGLE;
                case DOUBLE -> FloatingPointPrecision.DOUBLE;
                default -> throw bad(fieldName, "floating point precision " + t.getFloatingPoint().getPrecision());
              });
      case UTF8 -> ArrowType.Utf8.INSTANCE;
      case LARGE_UTF8 -> ArrowType.LargeUtf8.INSTANCE;
      case BINARY -> ArrowType.Binary.INSTANCE;
      case LARGE_BINARY -> ArrowType.LargeBinary.INSTANCE;
      case FIXED_SIZE_BINARY -> new ArrowType.FixedSizeBinary(t.getFixedSizeBinary().getByteWidth());
      case DECIMAL ->
          new ArrowType.Decimal(
              t.getDecimal().getPrecision(), t.getDecimal().getScale(), t.getDecimal().getBitWidth());
      case DATE ->
          new ArrowType.Date(
              switch (t.getDate().getUnit()) {
                case DAY -> org.apache.arrow.vector.types.DateUnit.DAY;
                case DATE_MILLISECOND -> org.apache.arrow.vector.types.DateUnit.MILLISECOND;
                default -> throw bad(fieldName, "date unit " + t.getDate().getUnit());
              });
      case TIME -> new ArrowType.Time(decodeUnit(t.getTime().getUnit(), fieldName), t.getTime().getBitWidth());
      case TIMESTAMP ->
          new ArrowType.Timestamp(
              decodeUnit(t.getTimestamp().getUnit(), fieldName),
              t.getTimestamp().hasTimezone() ? t.getTimestamp().getTimezone() : null);
      case DURATION -> new ArrowType.Duration(decodeUnit(t.getDuration().getUnit(), fieldName));
      case INTERVAL ->
          new ArrowType.Interval(
              switch (t.getInterval().getUnit()) {
                case YEAR_MONTH -> org.apache.arrow.vector.types.IntervalUnit.YEAR_MONTH;
                case DAY_TIME -> org.apache.arrow.vector.types.IntervalUnit.DAY_TIME;
                case MONTH_DAY_NANO -> org.apache.arrow.vector.types.IntervalUnit.MONTH_DAY_NANO;
                default -> throw bad(fieldName, "interval unit " + t.getInterval().getUnit());
              });
      case LIST -> ArrowType.List.INSTANCE;
      case LARGE_LIST -> ArrowType.LargeList.INSTANCE;
      case FIXED_SIZE_LIST -> new ArrowType.FixedSizeList(t.getFixedSizeList().getListSize());
      case MAP -> new ArrowType.Map(t.getMap().getKeysSorted());
      case STRUCT -> ArrowType.Struct.INSTANCE;
      case TYPE_NOT_SET -> throw bad(fieldName, "no type");
    };
  }

  private static IllegalArgumentException bad(String fieldName, String what) {
    return new IllegalArgumentException("field '" + fieldName + "' has unknown or missing " + what);
  }

  private static TimeUnit encodeUnit(org.apache.arrow.vector.types.TimeUnit unit) {
    return switch (unit) {
      case SECOND -> TimeUnit.SECOND;
      case MILLISECOND -> TimeUnit.MILLISECOND;
      case MICROSECOND -> TimeUnit.MICROSECOND;
      case NANOSECOND -> TimeUnit.NANOSECOND;
    };
  }

  private static org.apache.arrow.vector.types.TimeUnit decodeUnit(TimeUnit unit, String fieldName) {
    return switch (unit) {
      case SECOND -> org.apache.arrow.vector.types.TimeUnit.SECOND;
      case MILLISECOND -> org.apache.arrow.vector.types.TimeUnit.MILLISECOND;
      case MICROSECOND -> org.apache.arrow.vector.types.TimeUnit.MICROSECOND;
      case NANOSECOND -> org.apache.arrow.vector.types.TimeUnit.NANOSECOND;
      default -> throw bad(fieldName, "time unit " + unit);
    };
  }
}
