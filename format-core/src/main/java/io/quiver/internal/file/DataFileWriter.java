package io.quiver.internal.file;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectStore;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Streams batches into one Arrow IPC file through {@link ObjectStore#openWriter}; the object appears
 * only on {@link #finish()}, so a crashed or aborted writer never leaves a partial file for readers.
 *
 * <p>The file is a plain Arrow IPC file (no compression, no dictionaries) that any Arrow implementation
 * can open. Rows are re-chunked into record batches of exactly {@code rowsPerBatch} rows (the last may
 * be shorter) so that batch boundaries are predictable for readers regardless of how callers slice their
 * input. The footer's custom metadata records the Quiver format version under {@link #VERSION_KEY}.
 *
 * <p>Not thread-safe. Any failure while writing aborts the upload and frees memory; after that every call
 * but {@link #abort()} and {@link #close()} throws {@link IllegalStateException}. A {@link
 * SchemaMismatchException} from {@link #write} is detected before anything changes, so the writer stays
 * usable.
 */
public final class DataFileWriter implements AutoCloseable {
  public static final int FORMAT_MAJOR = 1, FORMAT_MINOR = 0;

  /** Footer custom-metadata key holding "major.minor". */
  public static final String VERSION_KEY = "quiver.data_file.version";

  private enum State {
    OPEN,
    FINISHED,
    ABORTED
  }

  private final ObjectStore store;
  private final String key;
  private final Schema schema;
  private final int rowsPerBatch;
  private final BufferAllocator allocator;
  private final VectorSchemaRoot stage;
  private final ObjectStore.ObjectWriter out;
  private final ArrowFileWriter arrow;
  private State state = State.OPEN;
  private long rowCount;

  public DataFileWriter(
      ObjectStore store, String key, Schema schema, BufferAllocator allocator, int rowsPerBatch) {
    if (store == null || key == null || schema == null || allocator == null) {
      throw new InvalidArgumentException("store, key, schema and allocator must not be null");
    }
    if (rowsPerBatch < 1) {
      throw new InvalidArgumentException("rowsPerBatch must be >= 1, got " + rowsPerBatch);
    }
    String unsupported = SchemaLayout.firstUnsupported(schema);
    if (unsupported != null) {
      throw new InvalidArgumentException(
          "cannot write data file " + store.locationOf(key) + ": " + unsupported);
    }
    this.store = store;
    this.key = key;
    this.schema = schema;
    this.rowsPerBatch = rowsPerBatch;
    BufferAllocator child = allocator.newChildAllocator("DataFileWriter " + key, 0, Long.MAX_VALUE);
    VectorSchemaRoot root = null;
    ObjectStore.ObjectWriter writer = null;
    try {
      root = VectorSchemaRoot.create(schema, child);
      this.stage = root;
      allocateStage();
      writer = store.openWriter(key);
      ArrowFileWriter fileWriter =
          new ArrowFileWriter(
              root,
              null,
              Channels.newChannel(writer),
              Map.of(VERSION_KEY, FORMAT_MAJOR + "." + FORMAT_MINOR),
              IpcOption.DEFAULT);
      fileWriter.start();
      this.allocator = child;
      this.out = writer;
      this.arrow = fileWriter;
    } catch (IOException | RuntimeException e) {
      if (writer != null) {
        writer.abort();
      }
      if (root != null) {
        root.close();
      }
      child.close();
      throw failure("opening", e);
    }
  }

  /**
   * Appends the rows of a batch (any row count, may be 0). Rows are re-chunked so that every record batch
   * in the file holds exactly rowsPerBatch rows except the last. The batch's schema must equal the
   * writer's (field names, types, nullability, children; metadata is ignored) or {@link
   * SchemaMismatchException} names the first differing field. The caller keeps ownership of {@code
   * batch}.
   */
  public void write(VectorSchemaRoot batch) {
    ensureOpen();
    if (batch == null) {
      throw new InvalidArgumentException("batch must not be null");
    }
    checkSchema(batch.getSchema());
    try {
      int n = batch.getRowCount();
      int offset = 0;
      while (offset < n) {
        int take = Math.min(rowsPerBatch - stage.getRowCount(), n - offset);
        append(batch, offset, take);
        offset += take;
        rowCount += take;
        if (stage.getRowCount() == rowsPerBatch) {
          flush();
        }
      }
    } catch (IOException | RuntimeException e) {
      abort();
      throw failure("writing", e);
    }
  }

  /** Copies rows [offset, offset+count) of batch into the stage, in this writer's memory. */
  private void append(VectorSchemaRoot batch, int offset, int count) {
    List<FieldVector> sources = batch.getFieldVectors();
    List<FieldVector> slices = new java.util.ArrayList<>(sources.size());
    try {
      List<Field> fields = stage.getSchema().getFields();
      for (int i = 0; i < sources.size(); i++) {
        FieldVector source = sources.get(i);
        // Slice with the source's own allocator (buffers cannot move between unrelated root allocators)
        // into a vector built from our field, so child names match the stage even where the caller's
        // differ (list items are often named "$data$" after Arrow slicing).
        TransferPair pair = source.getTransferPair(fields.get(i), source.getAllocator());
        pair.splitAndTransfer(offset, count);
        slices.add((FieldVector) pair.getTo());
      }
      List<FieldVector> targets = stage.getFieldVectors();
      for (int i = 0; i < targets.size(); i++) {
        Appender.append(targets.get(i), slices.get(i));
      }
      stage.setRowCount(stage.getRowCount() + count);
    } finally {
      for (FieldVector v : slices) {
        v.close();
      }
    }
  }

  private void flush() throws IOException {
    arrow.writeBatch();
    stage.clear();
    allocateStage();
  }

  /** VectorAppender needs allocated (not merely cleared) targets: it reads the first offset. */
  private void allocateStage() {
    for (FieldVector v : stage.getFieldVectors()) {
      v.setInitialCapacity(Math.min(rowsPerBatch, 4096));
      v.allocateNew();
    }
    stage.setRowCount(0);
  }

  /** Flushes, writes the footer, publishes the object. */
  public WrittenFile finish() {
    ensureOpen();
    long size;
    try {
      if (stage.getRowCount() > 0) {
        flush();
      }
      arrow.end();
      size = out.position();
    } catch (IOException | RuntimeException e) {
      abort();
      throw failure("finishing", e);
    }
    try {
      out.close();
    } catch (IOException | RuntimeException e) {
      abort();
      throw failure("publishing", e);
    }
    state = State.FINISHED;
    release();
    return new WrittenFile(key, size, rowCount, FORMAT_MAJOR, FORMAT_MINOR);
  }

  /** Discards: the object is never published. Idempotent; does nothing after a successful finish. */
  public void abort() {
    if (state != State.OPEN) {
      return;
    }
    state = State.ABORTED;
    try {
      out.abort();
    } finally {
      release();
    }
  }

  /** Aborts if finish() was not called. Frees all Arrow memory. */
  @Override
  public void close() {
    abort();
  }

  /** Rows accepted so far. */
  public long rowCount() {
    return rowCount;
  }

  public Schema schema() {
    return schema;
  }

  private void release() {
    // The ArrowFileWriter is deliberately not closed: closing it would write a footer and close the
    // channel, which publishes the object. It holds no Arrow memory of its own.
    stage.close();
    allocator.close();
  }

  private void ensureOpen() {
    if (state != State.OPEN) {
      throw new IllegalStateException(
          "data file writer for " + store.locationOf(key) + " is " + state.name().toLowerCase()
              + "; open a new writer");
    }
  }

  private QuiverException failure(String what, Exception e) {
    if (e instanceof QuiverException q) {
      return q;
    }
    return new StoreException(
        "failed " + what + " data file " + store.locationOf(key) + "; nothing was published: " + e, e);
  }

  private void checkSchema(Schema actual) {
    List<Field> want = schema.getFields();
    List<Field> got = actual.getFields();
    String problem = compare(want, got, "");
    if (problem != null) {
      throw new SchemaMismatchException(
          "batch does not match the schema of data file " + store.locationOf(key) + ": " + problem
              + "; convert the batch to the file schema " + schema);
    }
  }

  /**
   * First difference between two field lists (names, types, nullability, children), or null. Names of
   * list items and map entries/keys/values are positional in Arrow and often rewritten by libraries, so
   * they are not compared.
   */
  static String compare(List<Field> want, List<Field> got, String prefix) {
    return compare(want, got, prefix, true, false);
  }

  private static String compare(
      List<Field> want, List<Field> got, String prefix, boolean checkNames, boolean inMap) {
    for (int i = 0; i < Math.max(want.size(), got.size()); i++) {
      if (i >= got.size()) {
        return "field '" + prefix + want.get(i).getName() + "' is missing (expected " + want.size()
            + " fields" + (prefix.isEmpty() ? "" : " in " + prefix.substring(0, prefix.length() - 1))
            + ", found " + got.size() + ")";
      }
      Field g = got.get(i);
      if (i >= want.size()) {
        return "field '" + prefix + g.getName() + "' is unexpected (expected " + want.size()
            + " fields, found " + got.size() + ")";
      }
      Field w = want.get(i);
      String path = prefix + w.getName();
      if (checkNames && !w.getName().equals(g.getName())) {
        return "field " + i + (prefix.isEmpty() ? "" : " of " + prefix.substring(0, prefix.length() - 1))
            + " is named '" + g.getName() + "', expected '" + w.getName() + "'";
      }
      if (!w.getType().equals(g.getType())) {
        return "field '" + path + "' has type " + g.getType() + ", expected " + w.getType();
      }
      if (w.isNullable() != g.isNullable()) {
        return "field '" + path + "' is " + (g.isNullable() ? "nullable" : "not nullable") + ", expected "
            + (w.isNullable() ? "nullable" : "not nullable");
      }
      if (g.getDictionary() != null) {
        return "field '" + path + "' is dictionary-encoded; decode it first";
      }
      boolean isMap = w.getType().getTypeID() == ArrowTypeID.Map;
      boolean positional =
          switch (w.getType().getTypeID()) {
            case List, LargeList, FixedSizeList, Map -> true;
            default -> inMap; // the entries struct of a map: key and value
          };
      String child = compare(w.getChildren(), g.getChildren(), path + ".", !positional, isMap);
      if (child != null) {
        return child;
      }
    }
    return null;
  }
}
