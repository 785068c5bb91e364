package io.quiver.flink.source;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** A test table of {@code id BIGINT NOT NULL, name STRING, score DOUBLE}: row {@code i} is (i, "n<i>", i / 2). */
final class Tables {
  private Tables() {}

  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("score", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

  static VectorSchemaRoot batch(BufferAllocator allocator, long from, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    Float8Vector score = (Float8Vector) root.getVector("score");
    root.allocateNew();
    for (int i = 0; i < rows; i++) {
      long v = from + i;
      id.setSafe(i, v);
      name.setSafe(i, ("n" + v).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      score.setSafe(i, v / 2.0);
    }
    root.setRowCount(rows);
    return root;
  }

  static Dataset create(String uri, BufferAllocator allocator, long from, int rows) {
    try (VectorSchemaRoot b = batch(allocator, from, rows)) {
      return Dataset.create(uri, SCHEMA, List.of(b), DatasetOptions.builder().allocator(allocator).build());
    }
  }

  /** {@link #create} with stable row ids (table configuration {@code row-ids = true}). */
  static Dataset createWithRowIds(String uri, BufferAllocator allocator, long from, int rows) {
    try (VectorSchemaRoot b = batch(allocator, from, rows)) {
      return Dataset.create(uri, SCHEMA, List.of(b), DatasetOptions.builder().allocator(allocator).build(),
          java.util.Map.of("row-ids", "true"));
    }
  }

  static long append(Dataset ds, BufferAllocator allocator, long from, int rows) {
    try (VectorSchemaRoot b = batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  static long overwrite(Dataset ds, BufferAllocator allocator, long from, int rows) {
    try (VectorSchemaRoot b = batch(allocator, from, rows)) {
      return ds.overwrite(SCHEMA, List.of(b));
    }
  }
}
