package io.quiver.predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.codec.ScanTaskCodec;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** Column-to-column comparisons: evaluation with nulls, mixed integer widths, floats, errors, analysis. */
class ColumnComparisonTest {
  private static final org.apache.arrow.vector.types.pojo.Schema ARROW = new org.apache.arrow.vector.types.pojo.Schema(
      List.of(new Field("a", FieldType.nullable(new ArrowType.Int(64, true)), null),
          new Field("b", FieldType.nullable(new ArrowType.Int(32, true)), null),
          new Field("s", FieldType.nullable(new ArrowType.Utf8()), null),
          new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
          new Field("g", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)));

  @Test
  void comparesTwoColumnsOfARowWithUnknownForNulls() {
    try (RootAllocator allocator = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(ARROW, allocator)) {
      root.allocateNew();
      BigIntVector a = (BigIntVector) root.getVector("a");
      IntVector b = (IntVector) root.getVector("b");
      Float8Vector f = (Float8Vector) root.getVector("f");
      Float4Vector g = (Float4Vector) root.getVector("g");
      long[] as = {1, 5, 3, 7};
      int[] bs = {2, 5, 1, 0};
      for (int i = 0; i < 4; i++) {
        a.setSafe(i, as[i]);
        b.setSafe(i, bs[i]);
        f.setSafe(i, i == 3 ? Double.NaN : i);
        g.setSafe(i, 1.5f);
      }
      b.setNull(3);
      root.setRowCount(4);
      assertThat(Predicate.compareColumns("a", Predicate.Op.GT, "b").evaluate(root)).isEqualTo(bits(2));
      assertThat(Predicate.compareColumns("a", Predicate.Op.LE, "b").evaluate(root)).isEqualTo(bits(0, 1));
      assertThat(Predicate.not(Predicate.compareColumns("a", Predicate.Op.EQ, "b")).evaluate(root))
          .as("a null operand is unknown, and NOT unknown is unknown").isEqualTo(bits(0, 2));
      // NaN sorts above every number.
      assertThat(Predicate.compareColumns("f", Predicate.Op.GT, "g").evaluate(root)).isEqualTo(bits(2, 3));
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> Predicate.compareColumns("s", Predicate.Op.EQ, "a").evaluate(root))
          .withMessageContaining("cannot compare column 's'");
    }
  }

  @Test
  void analysisNamesBothColumns() {
    Predicate p = Predicate.and(Predicate.compareColumns("a", Predicate.Op.GE, "b"), Predicate.gt("a", 3L));
    assertThat(p.toString()).isEqualTo("a >= b AND a > 3");
    assertThat(p.columns()).containsExactly("a", "b");
    Schema schema = Schema.fromArrow(ARROW, new FieldIdAllocator(0));
    assertThat(p.fieldIds(schema)).isEqualTo(Set.of(schema.findField("a").get().id(), schema.findField("b").get().id()));
    assertThat(Predicate.compareColumns("a", Predicate.Op.EQ, "b"))
        .isEqualTo(new Predicate.ColumnComparison("a", Predicate.Op.EQ, "b"));
    assertThatExceptionOfType(InvalidArgumentException.class)
        .isThrownBy(() -> ScanTaskCodec.checkEncodable(p))
        .withMessageContaining("compares two columns");
  }

  private static BitSet bits(int... set) {
    BitSet out = new BitSet();
    for (int i : set) {
      out.set(i);
    }
    return out;
  }
}
