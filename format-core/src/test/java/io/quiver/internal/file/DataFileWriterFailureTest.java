package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import java.io.IOException;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A writer that does not finish publishes nothing and frees its memory; bad input is rejected typed. */
class DataFileWriterFailureTest {
  private static final Schema SCHEMA = ProjectionTest.SCHEMA;
  private final RootAllocator allocator = new RootAllocator();
  private final MemoryObjectStore store = new MemoryObjectStore("mem://w");

  @AfterEach
  void noLeaks() {
    assertThat(allocator.getAllocatedMemory()).as("leaked Arrow memory").isEqualTo(0);
    allocator.close();
  }

  private void assertNothingPublished() {
    assertThat(store.listAll("")).isEqualTo(List.of());
  }

  @Test
  void abortPublishesNothing() {
    try (VectorSchemaRoot data = TestData.randomBatch(SCHEMA, 300, 1, allocator);
        DataFileWriter writer = new DataFileWriter(store, "f.arrow", SCHEMA, allocator, 64)) {
      writer.write(data);
      writer.abort();
      writer.abort(); // idempotent
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> writer.write(data));
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(writer::finish);
    }
    assertNothingPublished();
  }

  @Test
  void closeWithoutFinishPublishesNothing() {
    try (VectorSchemaRoot data = TestData.randomBatch(SCHEMA, 300, 1, allocator);
        DataFileWriter writer = new DataFileWriter(store, "f.arrow", SCHEMA, allocator, 64)) {
      writer.write(data);
    }
    assertNothingPublished();
  }

  @Test
  void finishThenCloseKeepsTheFile() {
    try (VectorSchemaRoot data = TestData.randomBatch(SCHEMA, 10, 1, allocator);
        DataFileWriter writer = new DataFileWriter(store, "f.arrow", SCHEMA, allocator, 64)) {
      writer.write(data);
      writer.finish();
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(writer::finish);
      writer.abort(); // no effect after finish
    }
    assertThat(store.head("f.arrow").isPresent()).isTrue();
  }

  @Test
  void mismatchedBatchIsRejectedNamingTheFieldAndNothingIsPublished() {
    Schema other = ProjectionTest.expectedSchema(SCHEMA, List.of("a", "s.x", "s.inner.y"));
    Schema wrongType =
        new Schema(List.of(TestData.nullable("a", new ArrowType.Int(32, true))));
    Schema wrongNested =
        new Schema(List.of(TestData.nullable("a", new ArrowType.Int(64, true)),
            TestData.nullable("list_i32", ArrowType.List.INSTANCE,
                TestData.nullable("item", new ArrowType.Int(64, true)))));
    try (DataFileWriter writer = new DataFileWriter(store, "f.arrow", SCHEMA, allocator, 64)) {
      for (Schema bad : List.of(other, wrongType, wrongNested)) {
        try (VectorSchemaRoot batch = TestData.randomBatch(bad, 5, 1, allocator)) {
          SchemaMismatchException e = assertThatExceptionOfType(SchemaMismatchException.class).isThrownBy(() -> writer.write(batch)).actual();
          assertThat(e.getMessage().contains(store.locationOf("f.arrow"))).as(e.getMessage()).isTrue();
        }
      }
      try (VectorSchemaRoot batch = TestData.randomBatch(wrongType, 5, 1, allocator)) {
        assertThatThrownBy(() -> writer.write(batch)).isInstanceOf(SchemaMismatchException.class)
            .message().contains("field 'a' has type Int(32, true), expected Int(64, true)");
      }
      try (VectorSchemaRoot batch = TestData.randomBatch(wrongNested, 5, 1, allocator)) {
        assertThatThrownBy(() -> writer.write(batch)).isInstanceOf(SchemaMismatchException.class)
            .message().contains("field 'list_i32.item' has type Int(64, true)");
      }
    }
    assertNothingPublished();
  }

  @Test
  void nullabilityAndMetadataAreComparedAsDocumented() {
    Field required = TestData.field("x", new ArrowType.Int(64, true), false);
    Schema schema = new Schema(List.of(required));
    Schema nullableX = new Schema(List.of(TestData.nullable("x", new ArrowType.Int(64, true))));
    Schema withMetadata =
        new Schema(
            List.of(new Field("x", new FieldType(false, new ArrowType.Int(64, true), null,
                java.util.Map.of("m", "1")), null)),
            java.util.Map.of("x", "y"));
    try (DataFileWriter writer = new DataFileWriter(store, "f.arrow", schema, allocator, 64);
        VectorSchemaRoot a = TestData.randomBatch(nullableX, 3, 1, allocator);
        VectorSchemaRoot b = TestData.randomBatch(withMetadata, 3, 1, allocator)) {
      assertThatThrownBy(() -> writer.write(a)).isInstanceOf(SchemaMismatchException.class)
          .message().contains("field 'x' is nullable, expected not nullable");
      writer.write(b); // metadata differences are ignored
      assertThat(writer.finish().rowCount()).isEqualTo(3);
    }
  }

  @Test
  void arrowSlicesWithRenamedListItemsAreAccepted() {
    try (VectorSchemaRoot data = TestData.randomBatch(SCHEMA, 100, 4, allocator);
        VectorSchemaRoot arrowSlice = data.slice(0, 100)) { // names list items "$data$"
      assertThat(arrowSlice.getSchema().toString().contains("$data$")).isTrue();
      try (DataFileWriter writer = new DataFileWriter(store, "f.arrow", SCHEMA, allocator, 64)) {
        writer.write(arrowSlice);
        writer.finish();
      }
      DataFileReader reader = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());
      Files.assertFileEquals(reader, "f.arrow", data, allocator);
    }
  }

  @Test
  void unsupportedSchemasAndArgumentsAreRejectedUpFront() {
    Field union =
        new Field("u", FieldType.nullable(new ArrowType.Union(UnionMode.Sparse, new int[] {0})),
            List.of(TestData.nullable("i", new ArrowType.Int(32, true))));
    Field dictionary =
        new Field("d", new FieldType(true, new ArrowType.Int(32, true),
            new DictionaryEncoding(1, false, null)), null);
    Field view = TestData.nullable("v", ArrowType.Utf8View.INSTANCE);
    Field nested = TestData.nullable("s", ArrowType.Struct.INSTANCE, view);
    Field duplicate = TestData.nullable("s", ArrowType.Struct.INSTANCE,
        TestData.nullable("x", ArrowType.Bool.INSTANCE), TestData.nullable("x", ArrowType.Bool.INSTANCE));
    for (Field f : List.of(union, dictionary, view, nested, duplicate)) {
      InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new DataFileWriter(store, "f.arrow", new Schema(List.of(f)), allocator, 64)).actual();
      assertThat(e.getMessage().contains("field '" + f.getName())).as(e.getMessage()).isTrue();
    }
    assertThatThrownBy(() -> new DataFileWriter(store, "f.arrow", new Schema(List.of(nested)), allocator, 64)).isInstanceOf(InvalidArgumentException.class)
        .message().contains("field 's.v'");
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new DataFileWriter(store, "f.arrow", SCHEMA, allocator, 0));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new DataFileWriter(store, "../f", SCHEMA, allocator, 1));
    assertNothingPublished();
  }

  @Test
  void storeFailureWhileWritingAbortsAndFreesMemory() {
    FailingStore failing = new FailingStore(store, 10_000, false);
    try (VectorSchemaRoot data = TestData.randomBatch(SCHEMA, 1000, 1, allocator);
        DataFileWriter writer = new DataFileWriter(failing, "f.arrow", SCHEMA, allocator, 64)) {
      StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> writer.write(data)).actual();
      assertThat(e.getMessage().contains("mem://w/f.arrow") && e.getMessage().contains("nothing was published")).as(e.getMessage()).isTrue();
      assertThat(failing.aborted).isTrue();
      assertThatExceptionOfType(IllegalStateException.class).isThrownBy(writer::finish);
    }
    assertNothingPublished();
  }

  @Test
  void storeFailureWhilePublishingIsReported() {
    FailingStore failing = new FailingStore(store, Long.MAX_VALUE, true);
    try (VectorSchemaRoot data = TestData.randomBatch(SCHEMA, 10, 1, allocator);
        DataFileWriter writer = new DataFileWriter(failing, "f.arrow", SCHEMA, allocator, 64)) {
      writer.write(data);
      assertThatExceptionOfType(StoreException.class).isThrownBy(writer::finish);
      assertThat(failing.aborted).isTrue();
    }
    assertNothingPublished();
  }

  /** Delegates to a store but fails its writers after {@code failAfter} bytes or on close. */
  private static final class FailingStore extends ForwardingObjectStore {
    private final long failAfter;
    private final boolean failOnClose;
    boolean aborted;

    FailingStore(ObjectStore delegate, long failAfter, boolean failOnClose) {
      super(delegate);
      this.failAfter = failAfter;
      this.failOnClose = failOnClose;
    }

    @Override
    public ObjectWriter openWriter(String key) {
      ObjectWriter inner = delegate().openWriter(key);
      return new ObjectWriter() {
        @Override
        public void write(int b) throws IOException {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          if (inner.position() + len > failAfter) {
            throw new IOException("disk full");
          }
          inner.write(b, off, len);
        }

        @Override
        public void abort() {
          aborted = true;
          inner.abort();
        }

        @Override
        public long position() {
          return inner.position();
        }

        @Override
        public void close() throws IOException {
          if (failOnClose) {
            throw new IOException("upload failed");
          }
          inner.close();
        }
      };
    }
  }
}
