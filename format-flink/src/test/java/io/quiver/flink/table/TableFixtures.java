package io.quiver.flink.table;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** The SQL tests' Java-written table: {@code id int64 not null, name utf8}, appended in clustered id ranges. */
final class TableFixtures {
  private TableFixtures() {}

  static final Map<String, String> LOCAL = Map.of("local.fsync", "false");

  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  static DatasetOptions options() {
    return DatasetOptions.builder().storeOptions(LOCAL).build();
  }

  /** Creates the table at {@code uri} holding ids {@code [0, rows)} (name "n" + id), empty when rows is 0. */
  static void create(String uri, int rows) {
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = batch(0, rows, allocator);
        Dataset ds = Dataset.create(uri, SCHEMA, List.of(root), options())) {
      ds.version();
    }
  }

  /** Appends ids {@code [from, from + rows)} as one fragment; returns the version. */
  static long append(String uri, long from, int rows) {
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = batch(from, rows, allocator);
        Dataset ds = Dataset.open(uri, options())) {
      return ds.append(List.of(root));
    }
  }

  static VectorSchemaRoot batch(long from, int rows, RootAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    for (int i = 0; i < rows; i++) {
      id.setSafe(i, from + i);
      name.setSafe(i, ("n" + (from + i)).getBytes(StandardCharsets.UTF_8));
    }
    root.setRowCount(rows);
    return root;
  }
}
