package io.quiver.internal.write;

import io.quiver.internal.file.DataFileWriter;
import io.quiver.internal.file.FileCompression;
import io.quiver.internal.file.WrittenFile;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import io.quiver.store.ObjectStore;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Writes rows into new fragments: one data file per fragment holding every atomic field, a new
 * fragment every {@code maxRowsPerFragment} rows. Files are uncommitted until a transaction lists them.
 */
final public class FragmentWriter {
  private final ObjectStore store;
  private final Schema schema;
  private final BufferAllocator allocator;
  private final int rowsPerBatch;
  private final long maxRowsPerFragment;
  private final FileCompression compression;
  private final RowDigest rows = new RowDigest();
  private boolean digestRows = true;

  /** A writer of uncompressed (format 1.0) files. */
  public FragmentWriter(ObjectStore store, Schema schema, BufferAllocator allocator, int rowsPerBatch, long maxRowsPerFragment) {
    this(store, schema, allocator, rowsPerBatch, maxRowsPerFragment, CompressionConfig.NONE);
  }

  /** A writer of files compressed as the table configuration says ({@link CompressionConfig}). */
  public FragmentWriter(ObjectStore store, Schema schema, BufferAllocator allocator, int rowsPerBatch,
      long maxRowsPerFragment, CompressionConfig compression) {
    this.compression = compression.forFile(schema);
    this.store = store;
    this.schema = schema;
    this.allocator = allocator;
    this.rowsPerBatch = rowsPerBatch;
    this.maxRowsPerFragment = maxRowsPerFragment;
  }

  /** A fresh data-file path. */
  static public String newDataFilePath() {
    return DataFile.DATA_PREFIX + UUID.randomUUID() + ".arrow";
  }

  /**
   * Validates and writes every batch; returns fragments with placeholder id 0. On failure the files
   * written so far are deleted (best effort; cleanup removes any that remain).
   */
  public List<Fragment> write(Iterator<VectorSchemaRoot> batches) {
    org.apache.arrow.vector.types.pojo.Schema arrowSchema = schema.toArrow();
    List<Integer> atomicIds = schema.atomicFields().stream().map(Field::id).toList();
    List<Fragment> fragments = new ArrayList<>();
    DataFileWriter current = null;
    long rowsInCurrent = 0;
    try {
      while (batches.hasNext()) {
        VectorSchemaRoot batch = batches.next();
        BatchValidator.check(arrowSchema, batch);
        if (digestRows) {
          rows.add(batch);
        }
        int offset = 0;
        while (offset < batch.getRowCount()) {
          if (current == null) {
            current = new DataFileWriter(store, newDataFilePath(), arrowSchema, allocator, rowsPerBatch, compression);
            rowsInCurrent = 0;
          }
          int take = (int) Math.min(batch.getRowCount() - offset, maxRowsPerFragment - rowsInCurrent);
          if (offset == 0 && take == batch.getRowCount()) {
            current.write(batch);
          } else {
            try (VectorSchemaRoot slice = batch.slice(offset, take)) {
              current.write(slice);
            }
          }
          offset += take;
          rowsInCurrent += take;
          if (rowsInCurrent == maxRowsPerFragment) {
            fragments.add(finish(current, atomicIds));
            current.close();
            current = null;
          }
        }
      }
      if (current != null) {
        fragments.add(finish(current, atomicIds));
        current.close();
        current = null;
      }
      return fragments;
    } catch (RuntimeException e) {
      if (current != null) {
        current.close();
      }
      List<String> written = new ArrayList<>();
      for (Fragment f : fragments) {
        f.files().forEach(file -> written.add(file.path()));
      }
      try {
        store.deleteAll(written);
      } catch (RuntimeException cleanupFailure) {
        e.addSuppressed(cleanupFailure);
      }
      throw e;
    }
  }

  /** Skips the rows digest (only a keyed commit needs it; workers, which cannot know, always compute it). */
  public FragmentWriter withoutRowsDigest() {
    digestRows = false;
    return this;
  }

  /** The digest of every row {@link #write} wrote (empty when {@link #withoutRowsDigest}). */
  public RowDigest rows() {
    return rows;
  }

  private static Fragment finish(DataFileWriter writer, List<Integer> atomicIds) {
    WrittenFile file = writer.finish();
    return Fragment.of(0, List.of(file.toDataFile(atomicIds)), file.rowCount());
  }
}
