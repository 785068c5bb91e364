package io.quiver.schema;

import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Random Arrow schemas that Quiver accepts, for property tests across modules (schema conversion,
 * codecs, data round trips). Public and stable: other tests depend on it, so add generators rather
 * than changing what existing ones produce.
 *
 * <p>Every supported type appears; nesting (struct, list, large list, fixed-size list, map) goes up
 * to {@link #MAX_DEPTH} levels; names are short lowercase identifiers, unique among siblings and never
 * reserved; child names of lists/maps vary ("item", "element", "$data$", "entries", ...), since
 * Quiver must preserve them. Some fields and schemas carry metadata.
 */
public final class SchemaArbitraries {
  /** Maximum nesting below a top-level field. */
  public static final int MAX_DEPTH = 3;

  private SchemaArbitraries() {}

  /** Nested random schemas: 1..8 top-level fields, depth up to 3, all supported types. */
  public static Arbitrary<Schema> arrowSchemas() {
    return Combinators.combine(
            fields(MAX_DEPTH, 1, 8), metadata())
        .as((fields, meta) -> new Schema(fields, meta.isEmpty() ? null : meta));
  }

  /** One random field named {@code name} with nesting up to {@code maxDepth}. */
  public static Arbitrary<Field> arrowFields(String name, int maxDepth) {
    return field(Arbitraries.just(name), maxDepth);
  }

  /** Every supported non-nested type, with varied parameters. */
  public static Arbitrary<ArrowType> primitiveTypes() {
    return Arbitraries.oneOf(
        List.of(
            Arbitraries.just(ArrowType.Bool.INSTANCE),
            Combinators.combine(Arbitraries.of(8, 16, 32, 64), Arbitraries.of(true, false))
                .as((w, s) -> new ArrowType.Int(w, s)),
            Arbitraries.of(FloatingPointPrecision.values()).map(ArrowType.FloatingPoint::new),
            Arbitraries.of(
                ArrowType.Utf8.INSTANCE,
                ArrowType.LargeUtf8.INSTANCE,
                ArrowType.Binary.INSTANCE,
                ArrowType.LargeBinary.INSTANCE),
            Arbitraries.integers().between(1, 16).map(ArrowType.FixedSizeBinary::new),
            decimals(),
            Arbitraries.of(DateUnit.values()).map(ArrowType.Date::new),
            Arbitraries.of(
                new ArrowType.Time(TimeUnit.SECOND, 32),
                new ArrowType.Time(TimeUnit.MILLISECOND, 32),
                new ArrowType.Time(TimeUnit.MICROSECOND, 64),
                new ArrowType.Time(TimeUnit.NANOSECOND, 64)),
            Combinators.combine(
                    Arbitraries.of(TimeUnit.values()),
                    Arbitraries.of("", "UTC", "America/New_York", "+05:30"))
                .as((u, tz) -> new ArrowType.Timestamp(u, tz.isEmpty() ? null : tz)),
            Arbitraries.of(TimeUnit.values()).map(ArrowType.Duration::new),
            Arbitraries.of(IntervalUnit.values()).map(ArrowType.Interval::new)));
  }

  /** Short lowercase identifiers; reserved names start with '_' so cannot occur. */
  public static Arbitrary<String> names() {
    return Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(6);
  }

  private static Arbitrary<ArrowType> decimals() {
    Arbitrary<ArrowType> d128 =
        Arbitraries.integers()
            .between(1, 38)
            .flatMap(p -> Arbitraries.integers().between(0, p).map(s -> new ArrowType.Decimal(p, s, 128)));
    Arbitrary<ArrowType> d256 =
        Arbitraries.integers()
            .between(1, 76)
            .flatMap(p -> Arbitraries.integers().between(0, p).map(s -> new ArrowType.Decimal(p, s, 256)));
    return Arbitraries.oneOf(d128, d256);
  }

  private static Arbitrary<List<Field>> fields(int depth, int min, int max) {
    return field(names(), depth).list().ofMinSize(min).ofMaxSize(max).uniqueElements(Field::getName);
  }

  private static Arbitrary<Field> field(Arbitrary<String> name, int depth) {
    Arbitrary<Field> primitive = leaf(name, primitiveTypes());
    if (depth <= 0) {
      return primitive;
    }
    int d = depth - 1;
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(8, primitive),
        net.jqwik.api.Tuple.of(2, struct(name, d)),
        net.jqwik.api.Tuple.of(1, list(name, Arbitraries.just(new ArrowType.List()), d)),
        net.jqwik.api.Tuple.of(1, list(name, Arbitraries.just(new ArrowType.LargeList()), d)),
        net.jqwik.api.Tuple.of(
            1, list(name, Arbitraries.integers().between(1, 4).map(ArrowType.FixedSizeList::new), d)),
        net.jqwik.api.Tuple.of(1, map(name, d)));
  }

  private static Arbitrary<Field> leaf(Arbitrary<String> name, Arbitrary<ArrowType> type) {
    return Combinators.combine(name, type, Arbitraries.of(true, false), metadata())
        .as((n, t, nullable, meta) -> new Field(n, new FieldType(nullable, t, null, meta), null));
  }

  private static Arbitrary<Field> struct(Arbitrary<String> name, int depth) {
    return Combinators.combine(name, Arbitraries.of(true, false), fields(depth, 1, 3))
        .as((n, nullable, children) -> new Field(n, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children));
  }

  private static Arbitrary<Field> list(Arbitrary<String> name, Arbitrary<ArrowType> listType, int depth) {
    Arbitrary<Field> item = field(Arbitraries.of("item", "element", "$data$"), depth);
    return Combinators.combine(name, listType, Arbitraries.of(true, false), item)
        .as((n, t, nullable, child) -> new Field(n, new FieldType(nullable, t, null), List.of(child)));
  }

  private static Arbitrary<Field> map(Arbitrary<String> name, int depth) {
    Arbitrary<Field> key =
        primitiveTypes().map(t -> new Field("key", FieldType.notNullable(t), null));
    Arbitrary<Field> value = field(Arbitraries.just("value"), depth);
    Arbitrary<Field> entries =
        Combinators.combine(Arbitraries.of("entries", "key_value"), key, value)
            .as((n, k, v) -> new Field(n, FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(k, v)));
    return Combinators.combine(name, Arbitraries.of(true, false), Arbitraries.of(true, false), entries)
        .as((n, nullable, sorted, e) -> new Field(n, new FieldType(nullable, new ArrowType.Map(sorted), null), List.of(e)));
  }

  private static Arbitrary<Map<String, String>> metadata() {
    Arbitrary<Map<String, String>> some =
        Arbitraries.maps(
                Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(5),
                Arbitraries.strings().alpha().numeric().ofMaxLength(8))
            .ofMinSize(1)
            .ofMaxSize(2);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, Arbitraries.just(Map.of())), net.jqwik.api.Tuple.of(1, some));
  }
}
