package io.quiver.dataset;

import io.quiver.internal.table.TableIo;
import io.quiver.internal.write.ArrowInput;
import io.quiver.internal.write.CompressionConfig;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.internal.write.RowDigest;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.store.ObjectStore;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * A worker-side writer: needs only the table URI and options (no live {@link Dataset}). Each {@link #write}
 * call writes batches into new fragments' data files and returns a {@link WriteResult} — nothing is
 * committed; a driver commits the results of all workers as one transaction with {@link
 * DistributedWrites#commit}. Files of results that are never committed are removed by {@link
 * Dataset#cleanup} after its safety window.
 *
 * <p>Open it at the version the driver planned with ({@link #open(String, DatasetOptions, long)}) so every
 * worker writes with the same schema contract, or at the latest version.
 */
public final class DistributedWriter implements AutoCloseable {
  private final TableIo io;
  private Manifest manifest;
  private final BufferAllocator allocator;
  private final DatasetOptions options;
  private final boolean ownsStore;
  private final boolean ownsAllocator;

  DistributedWriter(TableIo io, Manifest manifest, BufferAllocator allocator, DatasetOptions options, boolean ownsStore,
      boolean ownsAllocator) {
    this.io = io;
    this.manifest = manifest;
    this.allocator = allocator;
    this.options = options;
    this.ownsStore = ownsStore;
    this.ownsAllocator = ownsAllocator;
  }

  /**
   * Opens a writer on the latest version of the table at {@code uri}.
   *
   * @throws io.quiver.exceptions.TableNotFoundException if no table exists there
   */
  public static DistributedWriter open(String uri, DatasetOptions options) {
    return open(uri, options, -1);
  }

  /**
   * Opens a writer on {@code version} of the table at {@code uri}: results carry that version's schema
   * contract and read version.
   *
   * @throws io.quiver.exceptions.VersionNotFoundException if the version does not exist
   */
  public static DistributedWriter open(String uri, DatasetOptions options, long version) {
    ObjectStore store = options.registry().open(uri, options.storeOptions());
    BufferAllocator allocator = options.allocator().orElse(null);
    boolean ownsAllocator = allocator == null;
    try {
      TableIo io = options.tableIo(store);
      Manifest m = version < 0 ? io.loadLatest().manifest() : io.load(version).manifest();
      if (ownsAllocator) {
        allocator = new RootAllocator();
      }
      return new DistributedWriter(io, m, allocator, options, true, ownsAllocator);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Moves this writer to the table's latest version: results of later {@link #write} calls carry that
   * version as their read version and its schema as their contract (results written before keep theirs).
   * A long-lived writer (a streaming job's subtask) calls it at each checkpoint, so that no result's read
   * version ages without bound — a cleanup may remove old versions, and a commit checks the commits made
   * since the read version. Never moves backwards. One manifest read.
   *
   * @return the version the writer now writes at
   * @throws io.quiver.exceptions.TableNotFoundException if the table is gone
   */
  public long refresh() {
    Manifest latest = io.loadLatest().manifest();
    if (latest.version() > manifest.version()) {
      manifest = latest;
    }
    return manifest.version();
  }

  /** The version whose schema this writer writes with. */
  public long readVersion() {
    return manifest.version();
  }

  /** The schema contract results carry. */
  public io.quiver.schema.Schema schema() {
    return manifest.schema();
  }

  /**
   * Validates and writes every batch into new fragments (a new one every {@link
   * DatasetOptions#maxRowsPerFragment()} rows). The caller keeps ownership of the batches.
   *
   * @throws io.quiver.exceptions.SchemaMismatchException if a batch does not match the table schema (files
   *     written so far are deleted, best effort)
   */
  public WriteResult write(Iterable<VectorSchemaRoot> batches) {
    return write(batches.iterator());
  }

  /** Writes everything an Arrow reader yields; see {@link #write(Iterable)}. */
  public WriteResult write(ArrowReader reader) {
    return write(ArrowInput.batches(reader));
  }

  private WriteResult write(Iterator<VectorSchemaRoot> batches) {
    FragmentWriter writer = new FragmentWriter(io.store(), manifest.schema(), allocator, options.rowsPerBatch(),
        options.maxRowsPerFragment(), CompressionConfig.of(manifest.config()));
    List<Fragment> fragments = writer.write(batches);
    RowDigest rows = writer.rows();
    return new WriteResult(io.location(), manifest.version(), manifest.schema(), fragments,
        Optional.of(new WriteResult.RowsDigest(rows.rows(), rows.sumA(), rows.sumB())));
  }

  @Override
  public void close() {
    try {
      if (ownsStore) {
        io.store().close();
      }
    } finally {
      if (ownsAllocator) {
        allocator.close();
      }
    }
  }
}
