package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/** Shared helpers of the data file tests. */
final class Files {
  private Files() {}

  /** Writes {@code data} as one file, passing it to the writer in pieces of the given sizes. */
  static WrittenFile write(
      ObjectStore store, String key, VectorSchemaRoot data, BufferAllocator allocator, int rowsPerBatch,
      int... pieces) {
    return write(store, key, data, allocator, rowsPerBatch, FileCompression.NONE, pieces);
  }

  /** As above, compressed as {@code compression} says. */
  static WrittenFile write(
      ObjectStore store, String key, VectorSchemaRoot data, BufferAllocator allocator, int rowsPerBatch,
      FileCompression compression, int... pieces) {
    try (DataFileWriter writer =
        new DataFileWriter(store, key, data.getSchema(), allocator, rowsPerBatch, compression)) {
      int offset = 0;
      if (pieces.length == 0) {
        pieces = new int[] {data.getRowCount()};
      }
      for (int piece : pieces) {
        try (VectorSchemaRoot slice = slice(data, offset, piece)) {
          writer.write(slice);
        }
        offset += piece;
      }
      assertThat(offset).as("pieces must cover the data").isEqualTo(data.getRowCount());
      return writer.finish();
    }
  }

  /** Writes a random batch of {@code rows} rows of {@code schema}. */
  static WrittenFile writeRandom(
      ObjectStore store, String key, Schema schema, int rows, long seed, BufferAllocator allocator,
      int rowsPerBatch) {
    try (VectorSchemaRoot data = TestData.randomBatch(schema, rows, seed, allocator)) {
      return write(store, key, data, allocator, rowsPerBatch);
    }
  }

  /**
   * Rows [start, start+length) of a root as a new root with the same schema. Unlike {@link
   * VectorSchemaRoot#slice}, which renames list items to "$data$", field names are kept.
   */
  static VectorSchemaRoot slice(VectorSchemaRoot root, int start, int length) {
    List<FieldVector> vectors = new ArrayList<>();
    for (FieldVector v : root.getFieldVectors()) {
      TransferPair pair = v.getTransferPair(v.getField(), v.getAllocator());
      pair.splitAndTransfer(start, length);
      vectors.add((FieldVector) pair.getTo());
    }
    return new VectorSchemaRoot(root.getSchema(), vectors, length);
  }

  /** Same schema (with metadata), row count and values, with a readable message on mismatch. */
  static void assertSameData(VectorSchemaRoot expected, VectorSchemaRoot actual) {
    assertThat(actual.getSchema()).as("schema").isEqualTo(expected.getSchema());
    assertThat(actual.getRowCount()).as("row count").isEqualTo(expected.getRowCount());
    for (int i = 0; i < expected.getFieldVectors().size(); i++) {
      FieldVector e = expected.getVector(i);
      FieldVector a = actual.getVector(i);
      if (!VectorEqualsVisitor.vectorEquals(e, a)) {
        for (int row = 0; row < e.getValueCount(); row++) {
          assertThat(String.valueOf(a.getObject(row))).as("column " + e.getName() + " row " + row).isEqualTo(String.valueOf(e.getObject(row)));
        }
        org.assertj.core.api.Assertions.fail("column " + e.getName() + " differs (buffers) although every value prints the same");
      }
    }
  }

  /** Reads every batch of a file in full and checks them against consecutive slices of {@code expected}. */
  static void assertFileEquals(
      DataFileReader reader, String key, VectorSchemaRoot expected, BufferAllocator allocator) {
    DataFileMetadata md = reader.metadata(key);
    assertThat(md.rowCount()).as("row count").isEqualTo(expected.getRowCount());
    int[] all = allColumns(md);
    for (int b = 0; b < md.batchCount(); b++) {
      try (VectorSchemaRoot actual = reader.readBatch(key, b, all, allocator);
          VectorSchemaRoot slice = slice(expected, (int) md.batchStart(b), md.batchRowCount(b))) {
        assertSameData(slice, actual);
      }
    }
  }

  /**
   * Arrow Java's own {@link org.apache.arrow.vector.ipc.ArrowFileReader} (decompressing with {@code factory})
   * reads {@code bytes} as consecutive slices of {@code expected}, every row.
   */
  static void assertArrowJavaReads(byte[] bytes, VectorSchemaRoot expected, BufferAllocator allocator,
      org.apache.arrow.vector.compression.CompressionCodec.Factory factory) throws java.io.IOException {
    try (org.apache.arrow.vector.ipc.ArrowFileReader arrow = new org.apache.arrow.vector.ipc.ArrowFileReader(
        new org.apache.arrow.vector.ipc.SeekableReadChannel(
            new org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel(bytes)), allocator, factory)) {
      VectorSchemaRoot root = arrow.getVectorSchemaRoot();
      int start = 0;
      while (arrow.loadNextBatch()) {
        try (VectorSchemaRoot slice = slice(expected, start, root.getRowCount())) {
          assertSameData(slice, root);
        }
        start += root.getRowCount();
      }
      assertThat(start).as("rows Arrow Java read").isEqualTo(expected.getRowCount());
    }
  }

  static int[] allColumns(DataFileMetadata md) {
    int[] all = new int[md.atomicColumnCount()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    return all;
  }
}
