package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DataFileRoundTripTest extends DataFileTestBase {
  static Stream<Field> everyType() {
    List<Field> all = new ArrayList<>(TestData.primitiveFields());
    all.addAll(TestData.nestedFields());
    return all.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyType")
  void roundTripsEveryTypeWithNulls(Field field) {
    Schema schema = new Schema(List.of(field));
    try (VectorSchemaRoot data = TestData.randomBatch(schema, 300, field.getName().hashCode(), allocator)) {
      WrittenFile written = Files.write(store, "data/one.arrow", data, allocator, 64, 0, 1, 100, 199);
      assertThat(written.rowCount()).isEqualTo(300);
      assertThat(written.sizeBytes()).isEqualTo(store.head("data/one.arrow").orElseThrow().size());
      DataFileMetadata md = reader.metadata("data/one.arrow");
      assertThat(md.batchCount()).isEqualTo(5);
      Files.assertFileEquals(reader, "data/one.arrow", data, allocator);
      if (field.isNullable() && field.getChildren().isEmpty()) {
        assertThat(data.getVector(0).getNullCount() > 0).as("test data should contain nulls").isTrue();
      }
    }
  }

  private DataFileMetadata md(WrittenFile file) {
    return reader.metadata(file.key());
  }

  @Test
  void roundTripsAllTypesTogetherAndArrowCanOpenTheFile() throws Exception {
    Schema schema = TestData.allTypesSchema();
    try (VectorSchemaRoot data = TestData.randomBatch(schema, 500, 42, allocator)) {
      WrittenFile written = Files.write(store, "data/all.arrow", data, allocator, 128, 10, 490);
      assertThat(written).isEqualTo(
          new WrittenFile("data/all.arrow", written.sizeBytes(), 500, 1, 0, written.columnStats()));
      assertThat(written.columnStats()).hasSize(md(written).atomicColumnCount());
      DataFileMetadata md = reader.metadata("data/all.arrow");
      assertThat(md.schema()).isEqualTo(schema);
      assertThat(md.batchCount()).isEqualTo(4);
      assertThat(md.formatMajor()).isEqualTo(1);
      assertThat(md.formatMinor()).isEqualTo(0);
      Files.assertFileEquals(reader, "data/all.arrow", data, allocator);

      // Plain Arrow Java opens the same bytes: the file is standard Arrow IPC.
      Files.assertArrowJavaReads(store.read("data/all.arrow"), data, allocator,
          org.apache.arrow.vector.compression.NoCompressionCodec.Factory.INSTANCE);
    }
  }

  @Test
  void emptyFileHasSchemaAndNoBatches() {
    Schema schema = TestData.allTypesSchema();
    try (DataFileWriter writer = new DataFileWriter(store, "data/empty.arrow", schema, allocator, 10)) {
      WrittenFile written = writer.finish();
      assertThat(written.rowCount()).isEqualTo(0);
    }
    DataFileMetadata md = reader.metadata("data/empty.arrow");
    assertThat(md.schema()).isEqualTo(schema);
    assertThat(md.batchCount()).isEqualTo(0);
    assertThat(md.rowCount()).isEqualTo(0);
  }

  @Test
  void atomicColumnsFollowSchemaPreorder() {
    Schema schema = new Schema(TestData.nestedFields());
    Files.writeRandom(store, "data/nested.arrow", schema, 10, 1, allocator, 64);
    DataFileMetadata md = reader.metadata("data/nested.arrow");
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < md.atomicColumnCount(); i++) {
      paths.add(md.atomicColumnPath(i));
    }
    assertThat(paths).isEqualTo(List.of("list_i32", "large_list_utf8", "fsl_f64", "map_utf8_i64", "s.x", "s.inner.y", "s.inner.z",
        "s.tags", "list_of_struct", "list_of_list", "required_struct.k", "required_struct.m"));
  }
}
