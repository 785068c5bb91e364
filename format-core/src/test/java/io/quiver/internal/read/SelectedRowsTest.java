package io.quiver.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link SelectedRows} gives what a {@code copyFromSafe} per row gives, for every vector kind it copies by runs. */
class SelectedRowsTest {
  private final BufferAllocator allocator = new RootAllocator(); // close() fails on a leak

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private static final int ROWS = 3_000;

  /** Selections a scan makes: everything, none, one row, a few deletions, a sparse filter, runs and gaps. */
  private static List<int[]> selections() {
    Random random = new Random(20261207);
    List<int[]> out = new ArrayList<>();
    out.add(IntStream.range(0, ROWS).toArray());
    out.add(new int[0]);
    out.add(new int[] {ROWS - 1});
    out.add(new int[] {0});
    out.add(IntStream.range(0, ROWS).filter(i -> random.nextInt(20) != 0).toArray());
    out.add(IntStream.range(0, ROWS).filter(i -> random.nextInt(50) == 0).toArray());
    out.add(IntStream.range(0, ROWS).filter(i -> (i / 7) % 2 == 0).toArray());
    out.add(IntStream.range(1, ROWS - 1).toArray());
    return out;
  }

  private void checkAgainstRowByRow(FieldVector from) {
    for (int[] selected : selections()) {
      try (FieldVector bulk = from.getField().createVector(allocator);
          FieldVector expected = from.getField().createVector(allocator)) {
        expected.allocateNew();
        for (int i = 0; i < selected.length; i++) {
          expected.copyFromSafe(selected[i], i, from);
        }
        expected.setValueCount(selected.length);
        bulk.allocateNew(); // a reused output vector holds the previous batch
        SelectedRows.copy(from, bulk, selected);
        assertThat(bulk.getValueCount()).isEqualTo(selected.length);
        assertThat(bulk.getNullCount()).as("%s nulls", from.getField()).isEqualTo(expected.getNullCount());
        for (int i = 0; i < selected.length; i++) {
          assertThat(bulk.getObject(i)).as("%s row %d (source row %d)", from.getField(), i, selected[i])
              .isEqualTo(expected.getObject(i));
        }
      }
    }
  }

  @Test
  void fixedWidthWithAndWithoutNulls() {
    try (BigIntVector ids = new BigIntVector("id", FieldType.notNullable(new ArrowType.Int(64, true)), allocator);
        Float8Vector x = new Float8Vector("x", allocator);
        IntVector cat = new IntVector("cat", allocator);
        DecimalVector price = new DecimalVector("price", allocator, 18, 2)) {
      ids.allocateNew(ROWS);
      x.allocateNew(ROWS);
      cat.allocateNew(ROWS);
      price.allocateNew(ROWS);
      for (int i = 0; i < ROWS; i++) {
        ids.set(i, i * 31L);
        if (i % 3 == 0) {
          x.setNull(i);
        } else {
          x.set(i, i / 7.0);
        }
        cat.set(i, i % 11);
        if (i % 5 != 0) {
          price.set(i, i * 100L);
        }
      }
      ids.setValueCount(ROWS);
      x.setValueCount(ROWS);
      cat.setValueCount(ROWS);
      price.setValueCount(ROWS);
      checkAgainstRowByRow(ids);
      checkAgainstRowByRow(x);
      checkAgainstRowByRow(cat);
      checkAgainstRowByRow(price);
    }
  }

  @Test
  void variableWidthKeepsNullsAndEmptyValuesApart() {
    try (VarCharVector name = new VarCharVector("name", allocator);
        VarBinaryVector blob = new VarBinaryVector("blob", FieldType.notNullable(ArrowType.Binary.INSTANCE),
            allocator)) {
      name.allocateNew();
      blob.allocateNew();
      for (int i = 0; i < ROWS; i++) {
        if (i % 4 == 0) {
          name.setNull(i);
        } else {
          name.setSafe(i, (i % 4 == 1 ? "" : "name-" + i + "-" + "x".repeat(i % 13)).getBytes(StandardCharsets.UTF_8));
        }
        blob.setSafe(i, new byte[i % 9]);
      }
      name.setValueCount(ROWS);
      blob.setValueCount(ROWS);
      checkAgainstRowByRow(name);
      checkAgainstRowByRow(blob);
    }
  }

  @Test
  void otherTypesFallBackToCopyingRowByRow() {
    try (BitVector flag = new BitVector("flag", allocator);
        StructVector point = StructVector.empty("point", allocator)) {
      flag.allocateNew(ROWS);
      IntVector px = point.addOrGet("px", FieldType.nullable(new ArrowType.Int(32, true)), IntVector.class);
      point.allocateNew();
      for (int i = 0; i < ROWS; i++) {
        if (i % 6 == 0) {
          flag.setNull(i);
        } else {
          flag.set(i, i % 2);
        }
        if (i % 5 == 0) {
          point.setNull(i);
        } else {
          point.setIndexDefined(i);
          px.setSafe(i, i);
        }
      }
      flag.setValueCount(ROWS);
      px.setValueCount(ROWS);
      point.setValueCount(ROWS);
      checkAgainstRowByRow(flag);
      checkAgainstRowByRow(point);
    }
  }
}
