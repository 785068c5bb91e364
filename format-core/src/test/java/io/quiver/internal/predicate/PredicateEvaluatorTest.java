package io.quiver.internal.predicate;

import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.gt;
import static io.quiver.predicate.Predicate.in;
import static io.quiver.predicate.Predicate.isNotNull;
import static io.quiver.predicate.Predicate.isNull;
import static io.quiver.predicate.Predicate.le;
import static io.quiver.predicate.Predicate.lt;
import static io.quiver.predicate.Predicate.ne;
import static io.quiver.predicate.Predicate.not;
import static io.quiver.predicate.Predicate.or;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.predicate.Predicate;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampSecVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Evaluating predicates on Arrow batches: operators, three-valued logic, nesting, literal coercion, type errors. */
class PredicateEvaluatorTest {
  private BufferAllocator allocator;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
    allocator.close();
  }

  // ------------------------------------------------------------------ helpers

  private static Field nullable(String name, ArrowType type) {
    return new Field(name, FieldType.nullable(type), null);
  }

  /** A one-column batch; {@code set(vector, row)} fills a row, a null entry in {@code values} leaves it null. */
  @SafeVarargs
  private <V extends FieldVector, T> VectorSchemaRoot column(Field field, BiConsumer<V, Object[]> fill, T... values) {
    VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(field)), allocator);
    toClose.add(root);
    root.allocateNew();
    @SuppressWarnings("unchecked")
    V v = (V) root.getVector(0);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        v.setNull(i);
      } else {
        fill.accept(v, new Object[] {i, values[i]});
      }
    }
    v.setValueCount(values.length);
    root.setRowCount(values.length);
    return root;
  }

  private VectorSchemaRoot longs(Long... values) {
    return column(nullable("c", new ArrowType.Int(64, true)),
        (BigIntVector v, Object[] a) -> v.setSafe((int) a[0], (Long) a[1]), values);
  }

  private VectorSchemaRoot strings(String... values) {
    return column(nullable("c", ArrowType.Utf8.INSTANCE),
        (VarCharVector v, Object[] a) -> v.setSafe((int) a[0], ((String) a[1]).getBytes(StandardCharsets.UTF_8)),
        values);
  }

  private static List<Integer> rows(BitSet bits) {
    return bits.stream().boxed().toList();
  }

  private static List<Integer> match(Predicate p, VectorSchemaRoot batch) {
    return rows(p.evaluate(batch));
  }

  // ------------------------------------------------------------------ operators

  @Test
  void longInListsAreHashedAndMatchWhatEqualitiesMatch() {
    VectorSchemaRoot b = longs(1L, 5L, 9L, null, 5L, -7L, Long.MAX_VALUE, 40L);
    Object[] values = {9, 1L, (short) 100, (byte) -7, Long.MAX_VALUE, 1000, 1001, 1002, 1003};
    assertThat(values.length).isGreaterThanOrEqualTo(InSet.MIN_VALUES);
    assertThat(match(in("c", values), b)).isEqualTo(List.of(0, 2, 5, 6));
    // NOT IN: the null row is unknown, so it is in neither result.
    assertThat(match(not(in("c", values)), b)).isEqualTo(List.of(1, 4, 7));
    // A list with a non-integral literal is compared value by value: 5.0 equals 5, 5.5 equals nothing.
    Object[] mixed = {5.0, 5.5, 1000, 1001, 1002, 1003, 1004, 1005, 1006};
    assertThat(match(in("c", mixed), b)).isEqualTo(List.of(1, 4));

    VectorSchemaRoot s = strings("a", "", null, "é", "zz", "a");
    Object[] words = {"a", "", "é", "b", "c", "d", "e", "f", "g"};
    assertThat(match(in("c", words), s)).isEqualTo(List.of(0, 1, 3, 5));
    assertThat(match(not(in("c", words)), s)).isEqualTo(List.of(4));
  }

  @Test
  void everyComparisonOperatorOnIntegers() {
    VectorSchemaRoot b = longs(1L, 5L, 9L, null, 5L);
    assertThat(match(eq("c", 5), b)).isEqualTo(List.of(1, 4));
    assertThat(match(ne("c", 5), b)).isEqualTo(List.of(0, 2));
    assertThat(match(lt("c", 5), b)).isEqualTo(List.of(0));
    assertThat(match(le("c", 5), b)).isEqualTo(List.of(0, 1, 4));
    assertThat(match(gt("c", 5), b)).isEqualTo(List.of(2));
    assertThat(match(ge("c", 5), b)).isEqualTo(List.of(1, 2, 4));
    assertThat(match(in("c", 9, 1, 100), b)).isEqualTo(List.of(0, 2));
    assertThat(match(in("c"), b)).isEqualTo(List.of());
    assertThat(match(isNull("c"), b)).isEqualTo(List.of(3));
    assertThat(match(isNotNull("c"), b)).isEqualTo(List.of(0, 1, 2, 4));
    assertThat(match(Predicate.TRUE, b)).isEqualTo(List.of(0, 1, 2, 3, 4));
    assertThat(match(Predicate.FALSE, b)).isEqualTo(List.of());
  }

  @Test
  void andOrNotCombine() {
    VectorSchemaRoot b = longs(1L, 5L, 9L, 12L);
    assertThat(match(and(gt("c", 1), lt("c", 10)), b)).isEqualTo(List.of(1, 2));
    assertThat(match(or(lt("c", 2), gt("c", 10)), b)).isEqualTo(List.of(0, 3));
    assertThat(match(not(and(gt("c", 1), lt("c", 10))), b)).isEqualTo(List.of(0, 3));
    assertThat(match(and(ge("c", 5), le("c", 5), in("c", 5, 6)), b)).isEqualTo(List.of(1));
  }

  // ------------------------------------------------------------------ three-valued logic

  @Test
  void aComparisonWithNullIsUnknownAndNotOfUnknownIsUnknown() {
    VectorSchemaRoot b = longs(1L, null);
    PredicateEvaluator.Result r = PredicateEvaluator.bind(eq("c", 1), b.getSchema()).evaluateThreeValued(b);
    assertThat(rows(r.trueRows())).isEqualTo(List.of(0));
    assertThat(r.isUnknown(1)).isTrue();
    // NOT unknown is unknown: a null row matches neither c = 1 nor NOT (c = 1), nor c != 1.
    assertThat(match(not(eq("c", 1)), b)).isEqualTo(List.of());
    assertThat(match(ne("c", 1), b)).isEqualTo(List.of());
    assertThat(match(not(in("c", 1, 2)), b)).isEqualTo(List.of());
    // IS NULL is never unknown.
    assertThat(match(not(isNull("c")), b)).isEqualTo(List.of(0));
  }

  @Test
  void andOrFollowKleeneLogic() {
    // rows: c = 1 (true for c = 1), null (unknown), 2 (false)
    VectorSchemaRoot b = longs(1L, null, 2L);
    Predicate unknownOrValue = eq("c", 1);
    // unknown AND false = false; unknown AND true = unknown
    PredicateEvaluator.Result andFalse =
        PredicateEvaluator.bind(and(unknownOrValue, Predicate.FALSE), b.getSchema()).evaluateThreeValued(b);
    assertThat(rows(andFalse.falseRows())).isEqualTo(List.of(0, 1, 2));
    PredicateEvaluator.Result andTrue = PredicateEvaluator.bind(and(unknownOrValue, Predicate.TRUE), b.getSchema()).evaluateThreeValued(b);
    assertThat(andTrue.isUnknown(1)).isTrue();
    // unknown OR true = true; unknown OR false = unknown
    assertThat(match(or(unknownOrValue, Predicate.TRUE), b)).isEqualTo(List.of(0, 1, 2));
    PredicateEvaluator.Result orFalse = PredicateEvaluator.bind(or(unknownOrValue, Predicate.FALSE), b.getSchema()).evaluateThreeValued(b);
    assertThat(orFalse.isUnknown(1)).isTrue();
    assertThat(rows(orFalse.falseRows())).isEqualTo(List.of(2));
    // NOT (unknown OR false) keeps the null row out.
    assertThat(match(not(or(unknownOrValue, Predicate.FALSE)), b)).isEqualTo(List.of(2));
    // ... but IS NULL OR ... brings it in.
    assertThat(match(or(unknownOrValue, isNull("c")), b)).isEqualTo(List.of(0, 1));
  }

  // ------------------------------------------------------------------ nesting

  private VectorSchemaRoot nested() {
    // rows: s = {x: 1, y: "a"}, s = {x: null, y: "b"}, s = null (children hold stale values), s = {x: 7, y: null}
    Field x = nullable("x", new ArrowType.Int(32, true));
    Field y = nullable("y", ArrowType.Utf8.INSTANCE);
    Field inner = new Field("inner", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(nullable("z", new ArrowType.Int(32, true))));
    Field s = new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(x, y, inner));
    Field tags = new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE), List.of(nullable("item", new ArrowType.Int(32, true))));
    VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(nullable("id", new ArrowType.Int(32, true)), s, tags)), allocator);
    toClose.add(root);
    root.allocateNew();
    IntVector id = (IntVector) root.getVector("id");
    StructVector sv = (StructVector) root.getVector("s");
    IntVector xv = (IntVector) sv.getChild("x");
    VarCharVector yv = (VarCharVector) sv.getChild("y");
    StructVector iv = (StructVector) sv.getChild("inner");
    IntVector zv = (IntVector) iv.getChild("z");
    for (int i = 0; i < 4; i++) {
      id.setSafe(i, i);
    }
    sv.setIndexDefined(0);
    xv.setSafe(0, 1);
    yv.setSafe(0, "a".getBytes(StandardCharsets.UTF_8));
    iv.setIndexDefined(0);
    zv.setSafe(0, 10);
    sv.setIndexDefined(1);
    xv.setNull(1);
    yv.setSafe(1, "b".getBytes(StandardCharsets.UTF_8));
    iv.setNull(1);
    zv.setSafe(1, 20); // under a null struct: must read as null
    sv.setNull(2);
    xv.setSafe(2, 1); // stale value under a null struct
    yv.setSafe(2, "a".getBytes(StandardCharsets.UTF_8));
    iv.setIndexDefined(2);
    zv.setSafe(2, 10);
    sv.setIndexDefined(3);
    xv.setSafe(3, 7);
    yv.setNull(3);
    iv.setIndexDefined(3);
    zv.setNull(3);
    ListVector lv = (ListVector) root.getVector("tags");
    lv.setValueCount(4);
    for (FieldVector v : List.<FieldVector>of(id, xv, yv, zv)) {
      v.setValueCount(4);
    }
    iv.setValueCount(4);
    sv.setValueCount(4);
    root.setRowCount(4);
    return root;
  }

  @Test
  void structMembersAreFoundByPathAndANullStructMakesItsMembersNull() {
    VectorSchemaRoot b = nested();
    assertThat(match(eq("s.x", 1), b)).as("row 2's stale x under a null struct is not a 1").isEqualTo(List.of(0));
    assertThat(match(isNull("s.x"), b)).isEqualTo(List.of(1, 2));
    assertThat(match(isNull("s"), b)).isEqualTo(List.of(2));
    assertThat(match(isNotNull("s"), b)).isEqualTo(List.of(0, 1, 3));
    assertThat(match(eq("s.y", "a"), b)).isEqualTo(List.of(0));
    assertThat(match(eq("s.inner.z", 10), b)).isEqualTo(List.of(0));
    assertThat(match(isNull("s.inner.z"), b)).isEqualTo(List.of(1, 2, 3));
    assertThat(match(isNull("s.inner"), b)).isEqualTo(List.of(1, 2));
    assertThat(match(and(gt("s.x", 1), isNull("s.y")), b)).isEqualTo(List.of(3));
  }

  @Test
  void listsMapsAndStructsAreNotComparisonOperands() {
    VectorSchemaRoot b = nested();
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("tags", 1), b)).actual();
    assertThat(e.getMessage()).contains("'tags'").contains("List").contains("IS NULL works on any column");
    e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("s", 1), b)).actual();
    assertThat(e.getMessage()).contains("'s'").contains("Struct");
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(in("tags"), b));
    e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("tags.item", 1), b)).actual();
    assertThat(e.getMessage()).contains("tags.item").contains("struct members");
    // IS NULL is fine on any column.
    assertThat(match(isNull("tags"), b)).isEqualTo(List.of(0, 1, 2, 3));
  }

  @Test
  void unknownColumnsListTheBatchColumns() {
    VectorSchemaRoot b = nested();
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("s.w", 1), b)).actual();
    assertThat(e.getMessage()).contains("'s.w'").contains("[id, s, s.x, s.y, s.inner, s.inner.z, tags]");
    e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("s..x", 1), b)).actual();
    assertThat(e.getMessage()).contains("malformed");
  }

  @Test
  void aBoundEvaluatorChecksTheBatchItIsGiven() {
    PredicateEvaluator ev = PredicateEvaluator.bind(eq("c", 5), longs(1L).getSchema());
    assertThat(rows(ev.evaluate(longs(5L)))).isEqualTo(List.of(0));
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ev.evaluate(strings("5"))).actual();
    assertThat(e.getMessage()).contains("Utf8").contains("Int(64, true)");
    VectorSchemaRoot other = column(nullable("d", new ArrowType.Int(64, true)),
        (BigIntVector v, Object[] a) -> v.setSafe((int) a[0], (Long) a[1]), 5L);
    e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ev.evaluate(other)).actual();
    assertThat(e.getMessage()).contains("no column 'c'");
  }

  @Test
  void quotedNamesAreAddressable() {
    VectorSchemaRoot b = column(nullable("a.b", new ArrowType.Int(64, true)),
        (BigIntVector v, Object[] a) -> v.setSafe((int) a[0], (Long) a[1]), 1L, 2L);
    assertThat(match(eq("`a.b`", 2), b)).isEqualTo(List.of(1));
  }

  // ------------------------------------------------------------------ coercion: integers

  @Test
  void everyIntegerWidthTakesEveryIntegralLiteral() {
    VectorSchemaRoot i8 = column(nullable("c", new ArrowType.Int(8, true)),
        (TinyIntVector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).byteValue()), -128, 0, 127);
    VectorSchemaRoot i16 = column(nullable("c", new ArrowType.Int(16, true)),
        (SmallIntVector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).shortValue()), -5, 0, 300);
    VectorSchemaRoot i32 = column(nullable("c", new ArrowType.Int(32, true)),
        (IntVector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).intValue()), -5, 0, 300);
    for (Object lit : List.<Object>of((byte) 0, (short) 0, 0, 0L, BigInteger.ZERO, new BigDecimal("0.00"), 0.0, 0.0f)) {
      assertThat(match(eq("c", lit), i8)).as("int8 = " + lit.getClass()).isEqualTo(List.of(1));
      assertThat(match(eq("c", lit), i16)).as("int16 = " + lit.getClass()).isEqualTo(List.of(1));
      assertThat(match(eq("c", lit), i32)).as("int32 = " + lit.getClass()).isEqualTo(List.of(1));
    }
    assertThat(match(eq("c", -128L), i8)).isEqualTo(List.of(0));
    assertThat(match(eq("c", (byte) 127), i8)).isEqualTo(List.of(2));
  }

  @Test
  void unsignedIntegersCompareAsUnsigned() {
    VectorSchemaRoot u8 = column(nullable("c", new ArrowType.Int(8, false)),
        (UInt1Vector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).intValue()), 1, 200, 255);
    assertThat(match(gt("c", 100), u8)).isEqualTo(List.of(1, 2));
    assertThat(match(eq("c", 255), u8)).isEqualTo(List.of(2));
    VectorSchemaRoot u16 = column(nullable("c", new ArrowType.Int(16, false)),
        (UInt2Vector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).intValue()), 1, 65535);
    assertThat(match(gt("c", 40000), u16)).isEqualTo(List.of(1));
    VectorSchemaRoot u32 = column(nullable("c", new ArrowType.Int(32, false)),
        (UInt4Vector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).intValue()), 1, (int) 4_000_000_000L);
    assertThat(match(eq("c", 4_000_000_000L), u32)).isEqualTo(List.of(1));
    assertThat(match(gt("c", Integer.MAX_VALUE), u32)).isEqualTo(List.of(1));
    BigInteger max = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    VectorSchemaRoot u64 = column(nullable("c", new ArrowType.Int(64, false)),
        (UInt8Vector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).longValue()), 1L, -1L);
    assertThat(match(eq("c", max), u64)).as("-1L stored unsigned is 2^64 - 1").isEqualTo(List.of(1));
    assertThat(match(gt("c", Long.MAX_VALUE), u64)).isEqualTo(List.of(1));
    assertThat(match(gt("c", -1), u64)).as("every unsigned value is above -1").isEqualTo(List.of(0, 1));
    assertThat(match(gt("c", max), u64)).isEqualTo(List.of());
  }

  @Test
  void integerLiteralsBetweenOrBeyondValuesCompareExactly() {
    VectorSchemaRoot b = longs(2L, 3L, Long.MAX_VALUE, Long.MIN_VALUE);
    assertThat(match(lt("c", 2.5), b)).isEqualTo(List.of(0, 3));
    assertThat(match(gt("c", 2.5), b)).isEqualTo(List.of(1, 2));
    assertThat(match(eq("c", 2.5), b)).isEqualTo(List.of());
    assertThat(match(ne("c", new BigDecimal("2.5")), b)).isEqualTo(List.of(0, 1, 2, 3));
    assertThat(match(le("c", 2.9999), b)).isEqualTo(List.of(0, 3));
    assertThat(match(lt("c", -1.5), b)).isEqualTo(List.of(3));
    BigInteger huge = BigInteger.TWO.pow(70);
    assertThat(match(lt("c", huge), b)).isEqualTo(List.of(0, 1, 2, 3));
    assertThat(match(gt("c", huge), b)).isEqualTo(List.of());
    assertThat(match(gt("c", huge.negate()), b)).isEqualTo(List.of(0, 1, 2, 3));
    assertThat(match(lt("c", Double.POSITIVE_INFINITY), b)).isEqualTo(List.of(0, 1, 2, 3));
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", Double.NaN), b)).actual();
    assertThat(e.getMessage()).contains("NaN");
  }

  // ------------------------------------------------------------------ coercion: other types

  @Test
  void floatingPointColumnsTakeAnyNumber() {
    VectorSchemaRoot f64 = column(nullable("c", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        (Float8Vector v, Object[] a) -> v.setSafe((int) a[0], (Double) a[1]), 0.1, -0.0, Double.NaN, 3.0);
    assertThat(match(eq("c", 0.1), f64)).isEqualTo(List.of(0));
    assertThat(match(eq("c", 0), f64)).as("-0.0 equals 0").isEqualTo(List.of(1));
    assertThat(match(eq("c", 3L), f64)).isEqualTo(List.of(3));
    assertThat(match(eq("c", new BigDecimal("3")), f64)).isEqualTo(List.of(3));
    assertThat(match(eq("c", Double.NaN), f64)).isEqualTo(List.of(2));
    assertThat(match(gt("c", 1e300), f64)).as("NaN sorts above every number").isEqualTo(List.of(2));
    VectorSchemaRoot f32 = column(nullable("c", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        (Float4Vector v, Object[] a) -> v.setSafe((int) a[0], (Float) a[1]), 0.1f, 2.5f);
    assertThat(match(eq("c", 0.1), f32)).as("a double literal is compared at the column's precision").isEqualTo(List.of(0));
    assertThat(match(gt("c", 2), f32)).isEqualTo(List.of(1));
    VectorSchemaRoot f16 = column(nullable("c", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
        (Float2Vector v, Object[] a) -> v.setSafeWithPossibleTruncate((int) a[0], (Float) a[1]), 1.5f, -2f);
    assertThat(match(eq("c", 1.5), f16)).isEqualTo(List.of(0));
    assertThat(match(lt("c", 0), f16)).isEqualTo(List.of(1));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", "1.5"), f64));
  }

  @Test
  void decimalColumnsCompareByValueNotScale() {
    VectorSchemaRoot d = column(nullable("c", new ArrowType.Decimal(10, 2, 128)),
        (DecimalVector v, Object[] a) -> v.setSafe((int) a[0], (BigDecimal) a[1]),
        new BigDecimal("12.50"), new BigDecimal("-1.00"));
    assertThat(match(eq("c", new BigDecimal("12.5")), d)).isEqualTo(List.of(0));
    assertThat(match(eq("c", 12.5), d)).isEqualTo(List.of(0));
    assertThat(match(eq("c", -1), d)).isEqualTo(List.of(1));
    assertThat(match(gt("c", BigInteger.TEN), d)).isEqualTo(List.of(0));
    VectorSchemaRoot d256 = column(nullable("c", new ArrowType.Decimal(40, 0, 256)),
        (Decimal256Vector v, Object[] a) -> v.setSafe((int) a[0], (BigDecimal) a[1]),
        new BigDecimal("1234567890123456789012345678901234567890"));
    assertThat(match(gt("c", Long.MAX_VALUE), d256)).isEqualTo(List.of(0));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", Double.NaN), d));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", "12.5"), d));
  }

  @Test
  void booleanColumns() {
    VectorSchemaRoot b = column(nullable("c", ArrowType.Bool.INSTANCE),
        (BitVector v, Object[] a) -> v.setSafe((int) a[0], (Boolean) a[1] ? 1 : 0), true, false, null);
    assertThat(match(eq("c", true), b)).isEqualTo(List.of(0));
    assertThat(match(ne("c", true), b)).isEqualTo(List.of(1));
    assertThat(match(gt("c", false), b)).isEqualTo(List.of(0));
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", 1), b)).actual();
    assertThat(e.getMessage()).contains("Boolean");
  }

  @Test
  void stringColumnsCompareInCodePointOrder() {
    VectorSchemaRoot b = strings("apple", "banana", "", "é", "\uD83D\uDE00", null);
    assertThat(match(eq("c", "banana"), b)).isEqualTo(List.of(1));
    assertThat(match(lt("c", "b"), b)).isEqualTo(List.of(0, 2));
    assertThat(match(gt("c", "z"), b)).as("code point order: é and the emoji sort after z").isEqualTo(List.of(3, 4));
    assertThat(match(gt("c", "\uFFFF"), b)).as("supplementary characters sort after U+FFFF").isEqualTo(List.of(4));
    assertThat(match(in("c", "é", "apple", "cherry"), b)).isEqualTo(List.of(0, 3));
    VectorSchemaRoot large = column(nullable("c", ArrowType.LargeUtf8.INSTANCE),
        (LargeVarCharVector v, Object[] a) -> v.setSafe((int) a[0], ((String) a[1]).getBytes(StandardCharsets.UTF_8)),
        "x", "y");
    assertThat(match(eq("c", "y"), large)).isEqualTo(List.of(1));
  }

  @Test
  void comparingAStringColumnWithANumberIsAClearError() {
    VectorSchemaRoot b = strings("5");
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", 5), b)).actual();
    assertThat(e.getMessage()).contains("column 'c'").contains("Utf8").contains("5").contains("String");
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(in("c", "a", 5), b));
    VectorSchemaRoot ints = longs(5L);
    e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", "5"), ints)).actual();
    assertThat(e.getMessage()).contains("'5'").contains("Long");
  }

  @Test
  void binaryColumnsTakeByteArrays() {
    VectorSchemaRoot b = column(nullable("c", ArrowType.Binary.INSTANCE),
        (VarBinaryVector v, Object[] a) -> v.setSafe((int) a[0], (byte[]) a[1]),
        new byte[] {1, 2}, new byte[] {(byte) 0xff}, new byte[] {});
    assertThat(match(eq("c", new byte[]{1, 2}), b)).isEqualTo(List.of(0));
    assertThat(match(gt("c", new byte[]{1, 3}), b)).as("bytes compare unsigned").isEqualTo(List.of(1));
    assertThat(match(lt("c", new byte[]{0}), b)).isEqualTo(List.of(2));
    VectorSchemaRoot large = column(nullable("c", ArrowType.LargeBinary.INSTANCE),
        (LargeVarBinaryVector v, Object[] a) -> v.setSafe((int) a[0], (byte[]) a[1]), new byte[] {7});
    assertThat(match(in("c", new byte[]{7}), large)).isEqualTo(List.of(0));
    VectorSchemaRoot fixed = column(nullable("c", new ArrowType.FixedSizeBinary(2)),
        (FixedSizeBinaryVector v, Object[] a) -> v.setSafe((int) a[0], (byte[]) a[1]),
        new byte[] {1, 2}, new byte[] {(byte) 0x80, 0});
    assertThat(match(gt("c", new byte[]{1, 2}), fixed)).isEqualTo(List.of(1));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", "12"), b));
  }

  @Test
  void dateColumnsTakeLocalDates() {
    LocalDate d = LocalDate.of(2024, 2, 29);
    VectorSchemaRoot days = column(nullable("c", new ArrowType.Date(DateUnit.DAY)),
        (DateDayVector v, Object[] a) -> v.setSafe((int) a[0], (int) ((LocalDate) a[1]).toEpochDay()),
        d, d.plusDays(1), LocalDate.of(1960, 1, 1));
    assertThat(match(eq("c", d), days)).isEqualTo(List.of(0));
    assertThat(match(gt("c", d), days)).isEqualTo(List.of(1));
    assertThat(match(lt("c", LocalDate.EPOCH), days)).isEqualTo(List.of(2));
    VectorSchemaRoot millis = column(nullable("c", new ArrowType.Date(DateUnit.MILLISECOND)),
        (DateMilliVector v, Object[] a) -> v.setSafe((int) a[0], ((LocalDate) a[1]).toEpochDay() * 86_400_000L),
        d, d.plusDays(1));
    assertThat(match(eq("c", d.plusDays(1)), millis)).isEqualTo(List.of(1));
    InvalidArgumentException e =
        assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", "2024-02-29"), days)).actual();
    assertThat(e.getMessage()).contains("LocalDate");
  }

  @Test
  void timestampColumnsTakeInstantsAndLocalDateTimes() {
    Instant t = Instant.parse("2024-01-02T03:04:05Z");
    VectorSchemaRoot secs = column(nullable("c", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
        (TimeStampSecVector v, Object[] a) -> v.setSafe((int) a[0], ((Instant) a[1]).getEpochSecond()),
        t, t.plusSeconds(1), Instant.parse("1969-12-31T23:59:59Z"));
    assertThat(match(eq("c", t), secs)).isEqualTo(List.of(0));
    assertThat(match(eq("c", LocalDateTime.of(2024, 1, 2, 3, 4, 5)), secs)).isEqualTo(List.of(0));
    assertThat(match(eq("c", t.plusMillis(500)), secs)).as("between two seconds: equals neither").isEqualTo(List.of());
    assertThat(match(gt("c", t.plusMillis(500)), secs)).isEqualTo(List.of(1));
    assertThat(match(lt("c", t.plusMillis(500)), secs)).isEqualTo(List.of(0, 2));
    assertThat(match(lt("c", Instant.EPOCH.minusMillis(500)), secs)).as("floor below zero").isEqualTo(List.of(2));
    VectorSchemaRoot micros = column(nullable("c", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
        (TimeStampMicroTZVector v, Object[] a) -> v.setSafe((int) a[0], (Long) a[1]),
        t.getEpochSecond() * 1_000_000L + 7, t.getEpochSecond() * 1_000_000L + 8);
    assertThat(match(eq("c", t.plusNanos(7_000)), micros)).isEqualTo(List.of(0));
    assertThat(match(gt("c", t.plusNanos(7_001)), micros)).isEqualTo(List.of(1));
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", LocalDateTime.of(2024, 1, 2, 3, 4, 5)), micros)).actual();
    assertThat(e.getMessage()).contains("time zone UTC").contains("Instant");
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", 5L), micros));
  }

  @Test
  void unsupportedColumnTypesSayWhatWorks() {
    VectorSchemaRoot time = VectorSchemaRoot.create(
        new Schema(List.of(nullable("c", new ArrowType.Time(TimeUnit.MILLISECOND, 32)))), allocator);
    toClose.add(time);
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> match(eq("c", 5), time)).actual();
    assertThat(e.getMessage()).contains("Time").contains("comparisons work on");
  }
}
