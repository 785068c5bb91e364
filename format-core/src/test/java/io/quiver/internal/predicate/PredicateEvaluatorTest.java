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
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
  void everyComparisonOperatorOnIntegers() {
    VectorSchemaRoot b = longs(1L, 5L, 9L, null, 5L);
    assertEquals(List.of(1, 4), match(eq("c", 5), b));
    assertEquals(List.of(0, 2), match(ne("c", 5), b));
    assertEquals(List.of(0), match(lt("c", 5), b));
    assertEquals(List.of(0, 1, 4), match(le("c", 5), b));
    assertEquals(List.of(2), match(gt("c", 5), b));
    assertEquals(List.of(1, 2, 4), match(ge("c", 5), b));
    assertEquals(List.of(0, 2), match(in("c", 9, 1, 100), b));
    assertEquals(List.of(), match(in("c"), b));
    assertEquals(List.of(3), match(isNull("c"), b));
    assertEquals(List.of(0, 1, 2, 4), match(isNotNull("c"), b));
    assertEquals(List.of(0, 1, 2, 3, 4), match(Predicate.TRUE, b));
    assertEquals(List.of(), match(Predicate.FALSE, b));
  }

  @Test
  void andOrNotCombine() {
    VectorSchemaRoot b = longs(1L, 5L, 9L, 12L);
    assertEquals(List.of(1, 2), match(and(gt("c", 1), lt("c", 10)), b));
    assertEquals(List.of(0, 3), match(or(lt("c", 2), gt("c", 10)), b));
    assertEquals(List.of(0, 3), match(not(and(gt("c", 1), lt("c", 10))), b));
    assertEquals(List.of(1), match(and(ge("c", 5), le("c", 5), in("c", 5, 6)), b));
  }

  // ------------------------------------------------------------------ three-valued logic

  @Test
  void aComparisonWithNullIsUnknownAndNotOfUnknownIsUnknown() {
    VectorSchemaRoot b = longs(1L, null);
    PredicateEvaluator.Result r = PredicateEvaluator.bind(eq("c", 1), b.getSchema()).evaluateThreeValued(b);
    assertEquals(List.of(0), rows(r.trueRows()));
    assertTrue(r.isUnknown(1));
    // NOT unknown is unknown: a null row matches neither c = 1 nor NOT (c = 1), nor c != 1.
    assertEquals(List.of(), match(not(eq("c", 1)), b));
    assertEquals(List.of(), match(ne("c", 1), b));
    assertEquals(List.of(), match(not(in("c", 1, 2)), b));
    // IS NULL is never unknown.
    assertEquals(List.of(0), match(not(isNull("c")), b));
  }

  @Test
  void andOrFollowKleeneLogic() {
    // rows: c = 1 (true for c = 1), null (unknown), 2 (false)
    VectorSchemaRoot b = longs(1L, null, 2L);
    Predicate unknownOrValue = eq("c", 1);
    // unknown AND false = false; unknown AND true = unknown
    PredicateEvaluator.Result andFalse =
        PredicateEvaluator.bind(and(unknownOrValue, Predicate.FALSE), b.getSchema()).evaluateThreeValued(b);
    assertEquals(List.of(0, 1, 2), rows(andFalse.falseRows()));
    PredicateEvaluator.Result andTrue = PredicateEvaluator.bind(and(unknownOrValue, Predicate.TRUE), b.getSchema()).evaluateThreeValued(b);
    assertTrue(andTrue.isUnknown(1));
    // unknown OR true = true; unknown OR false = unknown
    assertEquals(List.of(0, 1, 2), match(or(unknownOrValue, Predicate.TRUE), b));
    PredicateEvaluator.Result orFalse = PredicateEvaluator.bind(or(unknownOrValue, Predicate.FALSE), b.getSchema()).evaluateThreeValued(b);
    assertTrue(orFalse.isUnknown(1));
    assertEquals(List.of(2), rows(orFalse.falseRows()));
    // NOT (unknown OR false) keeps the null row out.
    assertEquals(List.of(2), match(not(or(unknownOrValue, Predicate.FALSE)), b));
    // ... but IS NULL OR ... brings it in.
    assertEquals(List.of(0, 1), match(or(unknownOrValue, isNull("c")), b));
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
    assertEquals(List.of(0), match(eq("s.x", 1), b), "row 2's stale x under a null struct is not a 1");
    assertEquals(List.of(1, 2), match(isNull("s.x"), b));
    assertEquals(List.of(2), match(isNull("s"), b));
    assertEquals(List.of(0, 1, 3), match(isNotNull("s"), b));
    assertEquals(List.of(0), match(eq("s.y", "a"), b));
    assertEquals(List.of(0), match(eq("s.inner.z", 10), b));
    assertEquals(List.of(1, 2, 3), match(isNull("s.inner.z"), b));
    assertEquals(List.of(1, 2), match(isNull("s.inner"), b));
    assertEquals(List.of(3), match(and(gt("s.x", 1), isNull("s.y")), b));
  }

  @Test
  void listsMapsAndStructsAreNotComparisonOperands() {
    VectorSchemaRoot b = nested();
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> match(eq("tags", 1), b));
    assertThat(e.getMessage()).contains("'tags'").contains("List").contains("IS NULL works on any column");
    e = assertThrows(InvalidArgumentException.class, () -> match(eq("s", 1), b));
    assertThat(e.getMessage()).contains("'s'").contains("Struct");
    assertThrows(InvalidArgumentException.class, () -> match(in("tags"), b));
    e = assertThrows(InvalidArgumentException.class, () -> match(eq("tags.item", 1), b));
    assertThat(e.getMessage()).contains("tags.item").contains("struct members");
    // IS NULL is fine on any column.
    assertEquals(List.of(0, 1, 2, 3), match(isNull("tags"), b));
  }

  @Test
  void unknownColumnsListTheBatchColumns() {
    VectorSchemaRoot b = nested();
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> match(eq("s.w", 1), b));
    assertThat(e.getMessage()).contains("'s.w'").contains("[id, s, s.x, s.y, s.inner, s.inner.z, tags]");
    e = assertThrows(InvalidArgumentException.class, () -> match(eq("s..x", 1), b));
    assertThat(e.getMessage()).contains("malformed");
  }

  @Test
  void aBoundEvaluatorChecksTheBatchItIsGiven() {
    PredicateEvaluator ev = PredicateEvaluator.bind(eq("c", 5), longs(1L).getSchema());
    assertEquals(List.of(0), rows(ev.evaluate(longs(5L))));
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> ev.evaluate(strings("5")));
    assertThat(e.getMessage()).contains("Utf8").contains("Int(64, true)");
    VectorSchemaRoot other = column(nullable("d", new ArrowType.Int(64, true)),
        (BigIntVector v, Object[] a) -> v.setSafe((int) a[0], (Long) a[1]), 5L);
    e = assertThrows(InvalidArgumentException.class, () -> ev.evaluate(other));
    assertThat(e.getMessage()).contains("no column 'c'");
  }

  @Test
  void quotedNamesAreAddressable() {
    VectorSchemaRoot b = column(nullable("a.b", new ArrowType.Int(64, true)),
        (BigIntVector v, Object[] a) -> v.setSafe((int) a[0], (Long) a[1]), 1L, 2L);
    assertEquals(List.of(1), match(eq("`a.b`", 2), b));
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
      assertEquals(List.of(1), match(eq("c", lit), i8), "int8 = " + lit.getClass());
      assertEquals(List.of(1), match(eq("c", lit), i16), "int16 = " + lit.getClass());
      assertEquals(List.of(1), match(eq("c", lit), i32), "int32 = " + lit.getClass());
    }
    assertEquals(List.of(0), match(eq("c", -128L), i8));
    assertEquals(List.of(2), match(eq("c", (byte) 127), i8));
  }

  @Test
  void unsignedIntegersCompareAsUnsigned() {
    VectorSchemaRoot u8 = column(nullable("c", new ArrowType.Int(8, false)),
        (UInt1Vector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).intValue()), 1, 200, 255);
    assertEquals(List.of(1, 2), match(gt("c", 100), u8));
    assertEquals(List.of(2), match(eq("c", 255), u8));
    VectorSchemaRoot u16 = column(nullable("c", new ArrowType.Int(16, false)),
        (UInt2Vector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).intValue()), 1, 65535);
    assertEquals(List.of(1), match(gt("c", 40000), u16));
    VectorSchemaRoot u32 = column(nullable("c", new ArrowType.Int(32, false)),
        (UInt4Vector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).intValue()), 1, (int) 4_000_000_000L);
    assertEquals(List.of(1), match(eq("c", 4_000_000_000L), u32));
    assertEquals(List.of(1), match(gt("c", Integer.MAX_VALUE), u32));
    BigInteger max = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    VectorSchemaRoot u64 = column(nullable("c", new ArrowType.Int(64, false)),
        (UInt8Vector v, Object[] a) -> v.setSafe((int) a[0], ((Number) a[1]).longValue()), 1L, -1L);
    assertEquals(List.of(1), match(eq("c", max), u64), "-1L stored unsigned is 2^64 - 1");
    assertEquals(List.of(1), match(gt("c", Long.MAX_VALUE), u64));
    assertEquals(List.of(0, 1), match(gt("c", -1), u64), "every unsigned value is above -1");
    assertEquals(List.of(), match(gt("c", max), u64));
  }

  @Test
  void integerLiteralsBetweenOrBeyondValuesCompareExactly() {
    VectorSchemaRoot b = longs(2L, 3L, Long.MAX_VALUE, Long.MIN_VALUE);
    assertEquals(List.of(0, 3), match(lt("c", 2.5), b));
    assertEquals(List.of(1, 2), match(gt("c", 2.5), b));
    assertEquals(List.of(), match(eq("c", 2.5), b));
    assertEquals(List.of(0, 1, 2, 3), match(ne("c", new BigDecimal("2.5")), b));
    assertEquals(List.of(0, 3), match(le("c", 2.9999), b));
    assertEquals(List.of(3), match(lt("c", -1.5), b));
    BigInteger huge = BigInteger.TWO.pow(70);
    assertEquals(List.of(0, 1, 2, 3), match(lt("c", huge), b));
    assertEquals(List.of(), match(gt("c", huge), b));
    assertEquals(List.of(0, 1, 2, 3), match(gt("c", huge.negate()), b));
    assertEquals(List.of(0, 1, 2, 3), match(lt("c", Double.POSITIVE_INFINITY), b));
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> match(eq("c", Double.NaN), b));
    assertThat(e.getMessage()).contains("NaN");
  }

  // ------------------------------------------------------------------ coercion: other types

  @Test
  void floatingPointColumnsTakeAnyNumber() {
    VectorSchemaRoot f64 = column(nullable("c", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
        (Float8Vector v, Object[] a) -> v.setSafe((int) a[0], (Double) a[1]), 0.1, -0.0, Double.NaN, 3.0);
    assertEquals(List.of(0), match(eq("c", 0.1), f64));
    assertEquals(List.of(1), match(eq("c", 0), f64), "-0.0 equals 0");
    assertEquals(List.of(3), match(eq("c", 3L), f64));
    assertEquals(List.of(3), match(eq("c", new BigDecimal("3")), f64));
    assertEquals(List.of(2), match(eq("c", Double.NaN), f64));
    assertEquals(List.of(2), match(gt("c", 1e300), f64), "NaN sorts above every number");
    VectorSchemaRoot f32 = column(nullable("c", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        (Float4Vector v, Object[] a) -> v.setSafe((int) a[0], (Float) a[1]), 0.1f, 2.5f);
    assertEquals(List.of(0), match(eq("c", 0.1), f32), "a double literal is compared at the column's precision");
    assertEquals(List.of(1), match(gt("c", 2), f32));
    VectorSchemaRoot f16 = column(nullable("c", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)),
        (Float2Vector v, Object[] a) -> v.setSafeWithPossibleTruncate((int) a[0], (Float) a[1]), 1.5f, -2f);
    assertEquals(List.of(0), match(eq("c", 1.5), f16));
    assertEquals(List.of(1), match(lt("c", 0), f16));
    assertThrows(InvalidArgumentException.class, () -> match(eq("c", "1.5"), f64));
  }

  @Test
  void decimalColumnsCompareByValueNotScale() {
    VectorSchemaRoot d = column(nullable("c", new ArrowType.Decimal(10, 2, 128)),
        (DecimalVector v, Object[] a) -> v.setSafe((int) a[0], (BigDecimal) a[1]),
        new BigDecimal("12.50"), new BigDecimal("-1.00"));
    assertEquals(List.of(0), match(eq("c", new BigDecimal("12.5")), d));
    assertEquals(List.of(0), match(eq("c", 12.5), d));
    assertEquals(List.of(1), match(eq("c", -1), d));
    assertEquals(List.of(0), match(gt("c", BigInteger.TEN), d));
    VectorSchemaRoot d256 = column(nullable("c", new ArrowType.Decimal(40, 0, 256)),
        (Decimal256Vector v, Object[] a) -> v.setSafe((int) a[0], (BigDecimal) a[1]),
        new BigDecimal("1234567890123456789012345678901234567890"));
    assertEquals(List.of(0), match(gt("c", Long.MAX_VALUE), d256));
    assertThrows(InvalidArgumentException.class, () -> match(eq("c", Double.NaN), d));
    assertThrows(InvalidArgumentException.class, () -> match(eq("c", "12.5"), d));
  }

  @Test
  void booleanColumns() {
    VectorSchemaRoot b = column(nullable("c", ArrowType.Bool.INSTANCE),
        (BitVector v, Object[] a) -> v.setSafe((int) a[0], (Boolean) a[1] ? 1 : 0), true, false, null);
    assertEquals(List.of(0), match(eq("c", true), b));
    assertEquals(List.of(1), match(ne("c", true), b));
    assertEquals(List.of(0), match(gt("c", false), b));
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> match(eq("c", 1), b));
    assertThat(e.getMessage()).contains("Boolean");
  }

  @Test
  void stringColumnsCompareInCodePointOrder() {
    VectorSchemaRoot b = strings("apple", "banana", "", "é", "\uD83D\uDE00", null);
    assertEquals(List.of(1), match(eq("c", "banana"), b));
    assertEquals(List.of(0, 2), match(lt("c", "b"), b));
    assertEquals(List.of(3, 4), match(gt("c", "z"), b), "code point order: é and the emoji sort after z");
    assertEquals(List.of(4), match(gt("c", "\uFFFF"), b), "supplementary characters sort after U+FFFF");
    assertEquals(List.of(0, 3), match(in("c", "é", "apple", "cherry"), b));
    VectorSchemaRoot large = column(nullable("c", ArrowType.LargeUtf8.INSTANCE),
        (LargeVarCharVector v, Object[] a) -> v.setSafe((int) a[0], ((String) a[1]).getBytes(StandardCharsets.UTF_8)),
        "x", "y");
    assertEquals(List.of(1), match(eq("c", "y"), large));
  }

  @Test
  void comparingAStringColumnWithANumberIsAClearError() {
    VectorSchemaRoot b = strings("5");
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> match(eq("c", 5), b));
    assertThat(e.getMessage()).contains("column 'c'").contains("Utf8").contains("5").contains("String");
    assertThrows(InvalidArgumentException.class, () -> match(in("c", "a", 5), b));
    VectorSchemaRoot ints = longs(5L);
    e = assertThrows(InvalidArgumentException.class, () -> match(eq("c", "5"), ints));
    assertThat(e.getMessage()).contains("'5'").contains("Long");
  }

  @Test
  void binaryColumnsTakeByteArrays() {
    VectorSchemaRoot b = column(nullable("c", ArrowType.Binary.INSTANCE),
        (VarBinaryVector v, Object[] a) -> v.setSafe((int) a[0], (byte[]) a[1]),
        new byte[] {1, 2}, new byte[] {(byte) 0xff}, new byte[] {});
    assertEquals(List.of(0), match(eq("c", new byte[] {1, 2}), b));
    assertEquals(List.of(1), match(gt("c", new byte[] {1, 3}), b), "bytes compare unsigned");
    assertEquals(List.of(2), match(lt("c", new byte[] {0}), b));
    VectorSchemaRoot large = column(nullable("c", ArrowType.LargeBinary.INSTANCE),
        (LargeVarBinaryVector v, Object[] a) -> v.setSafe((int) a[0], (byte[]) a[1]), new byte[] {7});
    assertEquals(List.of(0), match(in("c", new byte[] {7}), large));
    VectorSchemaRoot fixed = column(nullable("c", new ArrowType.FixedSizeBinary(2)),
        (FixedSizeBinaryVector v, Object[] a) -> v.setSafe((int) a[0], (byte[]) a[1]),
        new byte[] {1, 2}, new byte[] {(byte) 0x80, 0});
    assertEquals(List.of(1), match(gt("c", new byte[] {1, 2}), fixed));
    assertThrows(InvalidArgumentException.class, () -> match(eq("c", "12"), b));
  }

  @Test
  void dateColumnsTakeLocalDates() {
    LocalDate d = LocalDate.of(2024, 2, 29);
    VectorSchemaRoot days = column(nullable("c", new ArrowType.Date(DateUnit.DAY)),
        (DateDayVector v, Object[] a) -> v.setSafe((int) a[0], (int) ((LocalDate) a[1]).toEpochDay()),
        d, d.plusDays(1), LocalDate.of(1960, 1, 1));
    assertEquals(List.of(0), match(eq("c", d), days));
    assertEquals(List.of(1), match(gt("c", d), days));
    assertEquals(List.of(2), match(lt("c", LocalDate.EPOCH), days));
    VectorSchemaRoot millis = column(nullable("c", new ArrowType.Date(DateUnit.MILLISECOND)),
        (DateMilliVector v, Object[] a) -> v.setSafe((int) a[0], ((LocalDate) a[1]).toEpochDay() * 86_400_000L),
        d, d.plusDays(1));
    assertEquals(List.of(1), match(eq("c", d.plusDays(1)), millis));
    InvalidArgumentException e =
        assertThrows(InvalidArgumentException.class, () -> match(eq("c", "2024-02-29"), days));
    assertThat(e.getMessage()).contains("LocalDate");
  }

  @Test
  void timestampColumnsTakeInstantsAndLocalDateTimes() {
    Instant t = Instant.parse("2024-01-02T03:04:05Z");
    VectorSchemaRoot secs = column(nullable("c", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
        (TimeStampSecVector v, Object[] a) -> v.setSafe((int) a[0], ((Instant) a[1]).getEpochSecond()),
        t, t.plusSeconds(1), Instant.parse("1969-12-31T23:59:59Z"));
    assertEquals(List.of(0), match(eq("c", t), secs));
    assertEquals(List.of(0), match(eq("c", LocalDateTime.of(2024, 1, 2, 3, 4, 5)), secs));
    assertEquals(List.of(), match(eq("c", t.plusMillis(500)), secs), "between two seconds: equals neither");
    assertEquals(List.of(1), match(gt("c", t.plusMillis(500)), secs));
    assertEquals(List.of(0, 2), match(lt("c", t.plusMillis(500)), secs));
    assertEquals(List.of(2), match(lt("c", Instant.EPOCH.minusMillis(500)), secs), "floor below zero");
    VectorSchemaRoot micros = column(nullable("c", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
        (TimeStampMicroTZVector v, Object[] a) -> v.setSafe((int) a[0], (Long) a[1]),
        t.getEpochSecond() * 1_000_000L + 7, t.getEpochSecond() * 1_000_000L + 8);
    assertEquals(List.of(0), match(eq("c", t.plusNanos(7_000)), micros));
    assertEquals(List.of(1), match(gt("c", t.plusNanos(7_001)), micros));
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
        () -> match(eq("c", LocalDateTime.of(2024, 1, 2, 3, 4, 5)), micros));
    assertThat(e.getMessage()).contains("time zone UTC").contains("Instant");
    assertThrows(InvalidArgumentException.class, () -> match(eq("c", 5L), micros));
  }

  @Test
  void unsupportedColumnTypesSayWhatWorks() {
    VectorSchemaRoot time = VectorSchemaRoot.create(
        new Schema(List.of(nullable("c", new ArrowType.Time(TimeUnit.MILLISECOND, 32)))), allocator);
    toClose.add(time);
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> match(eq("c", 5), time));
    assertThat(e.getMessage()).contains("Time").contains("comparisons work on");
  }
}
