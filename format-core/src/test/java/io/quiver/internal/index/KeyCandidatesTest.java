package io.quiver.internal.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.internal.predicate.CellValues;
import io.quiver.internal.predicate.KeyConditions;
import io.quiver.internal.predicate.PredicateEvaluator;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.schema.FieldIdAllocator;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A key's literal must select exactly the cells holding the key — by the filter ({@link PredicateEvaluator}) and
 * by the index ({@link KeyConditions}, what a segment lookup compares) — for every key type, at the edges of
 * each type's range (unsigned values above the signed range, instants before the epoch, multi-byte strings); a
 * literal that selected other cells would make a merge skip a row holding its key.
 */
class KeyCandidatesTest {
  private RootAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** Fills cells 0..n-1 of a vector; returns n. */
  @FunctionalInterface
  interface Fill {
    int fill(FieldVector v);
  }

  private void check(ArrowType type, Fill fill) {
    Schema arrow = new Schema(List.of(new Field("k", FieldType.nullable(type), null)));
    io.quiver.schema.Schema table = io.quiver.schema.Schema.fromArrow(arrow, new FieldIdAllocator(-1));
    try (VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator)) {
      FieldVector v = root.getVector(0);
      v.allocateNew();
      int n = fill.fill(v);
      v.setValueCount(n);
      root.setRowCount(n);
      for (int row = 0; row < n; row++) {
        StatValue key = CellValues.of(v, row);
        Optional<Object> literal = KeyCandidates.literal(type, key);
        assertThat(literal).as(type + " row " + row + " (" + key + ")").isPresent();
        Predicate eq = Predicate.eq("k", literal.get());
        BitSet matching = PredicateEvaluator.bind(eq, arrow).evaluate(root);
        KeyConditions.Interval interval = KeyConditions.of(eq, table).get(0).intervals().get(0);
        for (int other = 0; other < n; other++) {
          boolean same = other == row;
          assertThat(matching.get(other)).as(type + ": literal " + literal.get() + " of row " + row + " on row " + other)
              .isEqualTo(same);
          assertThat(interval.contains(CellValues.of(v, other))).as(type + ": index interval of row " + row + " on row "
              + other).isEqualTo(same);
        }
      }
    }
  }

  private static <V extends FieldVector> Fill values(Class<V> kind, int n, BiConsumer<V, Integer> set) {
    return v -> {
      for (int i = 0; i < n; i++) {
        set.accept(kind.cast(v), i);
      }
      return n;
    };
  }

  @Test
  void integerKeys() {
    long[] longs = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE};
    check(new ArrowType.Int(64, true), values(BigIntVector.class, 5, (v, i) -> v.setSafe(i, longs[i])));
    int[] ints = {Integer.MIN_VALUE, -7, 0, Integer.MAX_VALUE};
    check(new ArrowType.Int(32, true), values(IntVector.class, 4, (v, i) -> v.setSafe(i, ints[i])));
    check(new ArrowType.Int(16, true), values(SmallIntVector.class, 3, (v, i) -> v.setSafe(i, (short) (i * 20000 - 20000))));
    check(new ArrowType.Int(8, true), values(TinyIntVector.class, 3, (v, i) -> v.setSafe(i, (byte) (i * 100 - 100))));
    check(new ArrowType.Int(8, false), values(UInt1Vector.class, 3, (v, i) -> v.setSafe(i, i * 127)));
    check(new ArrowType.Int(32, false), values(UInt4Vector.class, 3, (v, i) -> v.setSafe(i, new int[] {0, 5, -1}[i])));
    check(new ArrowType.Int(64, false), values(UInt8Vector.class, 3, (v, i) -> v.setSafe(i, new long[] {0, 5, -1}[i])));
  }

  @Test
  void otherKeys() {
    check(ArrowType.Bool.INSTANCE, values(BitVector.class, 2, (v, i) -> v.setSafe(i, i)));
    check(new ArrowType.Decimal(10, 2, 128), values(DecimalVector.class, 3,
        (v, i) -> v.setSafe(i, new BigDecimal(new String[] {"-12.34", "0.00", "99999999.99"}[i]))));
    String[] strings = {"", "a", "é", "日本", "a\u0000b"};
    check(ArrowType.Utf8.INSTANCE, values(VarCharVector.class, 5,
        (v, i) -> v.setSafe(i, strings[i].getBytes(StandardCharsets.UTF_8))));
    check(ArrowType.LargeUtf8.INSTANCE, values(LargeVarCharVector.class, 5,
        (v, i) -> v.setSafe(i, strings[i].getBytes(StandardCharsets.UTF_8))));
    check(ArrowType.Binary.INSTANCE, values(VarBinaryVector.class, 3,
        (v, i) -> v.setSafe(i, new byte[][] {{}, {(byte) 0xff}, {1, 2}}[i])));
    check(new ArrowType.FixedSizeBinary(2), values(FixedSizeBinaryVector.class, 2,
        (v, i) -> v.setSafe(i, new byte[][] {{0, 0}, {(byte) 0x80, 1}}[i])));
    check(new ArrowType.Date(DateUnit.DAY), values(DateDayVector.class, 3, (v, i) -> v.setSafe(i, i * 20000 - 20000)));
    check(new ArrowType.Date(DateUnit.MILLISECOND), values(DateMilliVector.class, 3,
        (v, i) -> v.setSafe(i, (i - 1) * 86_400_000L * 365)));
  }

  @Test
  void timestampKeysOfEveryUnitWithAndWithoutZone() {
    long[] values = {-1_000_000_000_123L, -1, 0, 1, 1_700_000_000_123_456L};
    for (TimeUnit unit : TimeUnit.values()) {
      for (String zone : new String[] {null, "UTC", "Europe/Paris"}) {
        check(new ArrowType.Timestamp(unit, zone), values(TimeStampVector.class, 5, (v, i) -> v.setSafe(i, values[i])));
      }
    }
  }

  @Test
  void keysWithoutALiteralNarrowNothing() {
    // A time has no literal, nor does a millisecond date off a day boundary, nor bytes that are not UTF-8.
    assertThat(KeyCandidates.literal(new ArrowType.Time(TimeUnit.MILLISECOND, 32), new StatValue.Int(5))).isEmpty();
    assertThat(KeyCandidates.literal(new ArrowType.Date(DateUnit.MILLISECOND), new StatValue.Int(5))).isEmpty();
    assertThat(KeyCandidates.literal(ArrowType.Utf8.INSTANCE, new StatValue.Bytes(new byte[] {(byte) 0xc3})))
        .isEmpty();
    io.quiver.schema.Field time = io.quiver.schema.Field.of(1, -1, "t", new ArrowType.Time(TimeUnit.MILLISECOND, 32),
        true);
    assertThat(KeyCandidates.literals(time, List.of(List.of(new StatValue.Int(1))), 0)).isEmpty();
    // TimeMilliVector cells are keys (they have a stored value) even though no filter compares them.
    try (TimeMilliVector v = new TimeMilliVector("t", allocator)) {
      v.setSafe(0, 5);
      v.setValueCount(1);
      assertThat(CellValues.of(v, 0)).isEqualTo(new StatValue.Int(5));
    }
  }
}
