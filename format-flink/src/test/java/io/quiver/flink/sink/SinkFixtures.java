package io.quiver.flink.sink;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

/** The sink tests' table ({@code id int64 not null, tag utf8}), its records as Arrow IPC, and reading it back. */
final class SinkFixtures {
  private SinkFixtures() {}

  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("tag", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  /** The local store's options in the tests: no fsync. */
  static final Map<String, String> LOCAL = Map.of("local.fsync", "false");

  /** The sink tests' MiniCluster: one task manager with 4 slots (a job of parallelism 2 and a second job fit). */
  static MiniClusterExtension cluster() {
    return new MiniClusterExtension(() -> new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1)
        .setNumberSlotsPerTaskManager(4).build());
  }

  /** Creates the (empty) table under {@code dir} on the local store and returns its URI. */
  static String localTable(java.nio.file.Path dir) {
    String uri = dir.resolve("t").toUri().toString();
    createTable(uri, LOCAL);
    return uri;
  }

  /** Creates the (empty) table at {@code uri}. */
  static void createTable(String uri, Map<String, String> storeOptions) {
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot empty = VectorSchemaRoot.create(SCHEMA, allocator);
        Dataset ds = Dataset.create(uri, SCHEMA, List.of(empty), options(storeOptions))) {
      ds.version();
    }
  }

  static DatasetOptions options(Map<String, String> storeOptions) {
    return DatasetOptions.builder().storeOptions(storeOptions).build();
  }

  /** Arrow IPC bytes of rows {@code [from, from + rows)}: id, tag {@code "t" + id}. */
  static byte[] rows(long from, int rows) {
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector tag = (VarCharVector) root.getVector("tag");
      id.allocateNew(rows);
      tag.allocateNew(rows);
      for (int i = 0; i < rows; i++) {
        id.set(i, from + i);
        tag.setSafe(i, ("t" + (from + i)).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(rows);
      return ArrowBatches.encode(root);
    }
  }

  /** Appends rows {@code [from, from + rows)} ({@link #rows}) to the table with {@code Dataset.append}; returns the version. */
  static long append(String uri, Map<String, String> storeOptions, long from, int rows) {
    try (RootAllocator allocator = new RootAllocator();
        ArrowStreamReader r = new ArrowStreamReader(new ByteArrayInputStream(rows(from, rows)), allocator);
        Dataset ds = Dataset.open(uri, options(storeOptions).toBuilder().allocator(allocator).build())) {
      r.loadNextBatch();
      return ds.append(List.of(r.getVectorSchemaRoot()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Record {@code i}: the {@code rowsPerRecord} rows from {@code i * rowsPerRecord}. */
  static GeneratorFunction<Long, byte[]> records(int rowsPerRecord) {
    return i -> rows(i * rowsPerRecord, rowsPerRecord);
  }

  /** The Flink row type of the table: {@code id BIGINT NOT NULL, tag STRING}. */
  static final RowType ROW_TYPE = RowType.of(new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)},
      new String[] {"id", "tag"});

  /** Record {@code i} as a row: id {@code i}, tag {@code "t" + i}. */
  static GeneratorFunction<Long, RowData> rowData() {
    return i -> GenericRowData.of(i, StringData.fromString("t" + i));
  }

  /** Every column of every row at the latest version, by column name, in scan order. */
  static Map<String, List<Object>> read(String uri, Map<String, String> storeOptions) {
    Map<String, List<Object>> out = new HashMap<>();
    try (Dataset ds = Dataset.open(uri, options(storeOptions)); ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        for (FieldVector v : root.getFieldVectors()) {
          List<Object> col = out.computeIfAbsent(v.getName(), k -> new ArrayList<>());
          for (int i = 0; i < root.getRowCount(); i++) {
            Object o = v.getObject(i);
            col.add(o == null ? null : o instanceof org.apache.arrow.vector.util.Text t ? t.toString() : o);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The ids at the latest version, sorted (duplicates kept). */
  static List<Long> ids(String uri, Map<String, String> storeOptions) {
    List<Long> ids = new ArrayList<>();
    for (Object o : read(uri, storeOptions).getOrDefault("id", List.of())) {
      ids.add((Long) o);
    }
    ids.sort(null);
    return ids;
  }

  static List<Long> range(long n) {
    List<Long> out = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      out.add(i);
    }
    return out;
  }
}
