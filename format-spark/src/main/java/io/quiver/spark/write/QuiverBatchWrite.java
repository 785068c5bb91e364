package io.quiver.spark.write;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.spark.TableRef;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A batch append or full overwrite: tasks write fragments against the table's loaded version and return
 * them; the driver commits them ONCE, under the idempotence key {@code spark/<queryId>/<mode>}, so a retried
 * {@link #commit} (same messages, or the same rows rewritten) publishes nothing twice.
 */
final class QuiverBatchWrite implements BatchWrite {
  private static final Logger LOG = LoggerFactory.getLogger(QuiverBatchWrite.class);

  private final TableRef ref;
  private final long readVersion;
  private final Schema schema;
  private final WriteSizes sizes;
  private final WriteMode mode;
  private final String key;
  private volatile boolean outcomeUnknown;
  private volatile long committedVersion = -1;

  QuiverBatchWrite(TableRef ref, long readVersion, Schema schema, WriteSizes sizes, WriteMode mode, String queryId) {
    this.ref = ref;
    this.readVersion = readVersion;
    this.schema = schema;
    this.sizes = sizes;
    this.mode = mode;
    this.key = "spark/" + queryId + "/" + mode.name().toLowerCase(Locale.ROOT);
  }

  /** The idempotence key this write commits under. */
  String idempotenceKey() {
    return key;
  }

  /** The version the last {@link #commit} made or found; -1 when none (or an empty append). */
  long committedVersion() {
    return committedVersion;
  }

  @Override
  public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new QuiverWriterFactory(ref, readVersion, schema, sizes);
  }

  @Override
  public boolean useCommitCoordinator() {
    // Quiver publishes nothing until the driver's one commit; duplicate attempts are resolved there.
    return false;
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    List<WriteResult> results = Commits.toCommit(messages);
    boolean empty = results.stream().allMatch(r -> r.fragments().isEmpty());
    if (empty && mode == WriteMode.APPEND) {
      LOG.info("Append {} to {} wrote no rows: nothing to commit", key, ref);
      return;
    }
    try (Dataset ds = ref.open()) {
      if (empty) {
        // A truncate (overwrite with no rows) still replaces every row: commit an empty result.
        results = List.of(emptyResult());
      }
      WriteHooks.current().beforeTableCommit(key, readVersion);
      long version = ds.distributed().commit(results, mode, CommitOptions.defaults().withIdempotenceKey(key));
      committedVersion = version;
      LOG.info("{} {} committed {} rows to {} as version {}", mode, key,
          results.stream().mapToLong(WriteResult::rows).sum(), ref, version);
      WriteHooks.current().afterTableCommit(key, version);
    } catch (CommitStateUnknownException e) {
      outcomeUnknown = true;
      throw e;
    }
  }

  private WriteResult emptyResult() {
    try (BufferAllocator allocator = new RootAllocator();
        DistributedWriter writer = DistributedWriter.open(ref.uri(),
            ref.datasetOptions().toBuilder().allocator(allocator).build(), readVersion)) {
      return writer.write(List.of());
    }
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    Commits.abort(ref, key, readVersion, messages, outcomeUnknown);
  }

  @Override
  public String toString() {
    return "QuiverBatchWrite[" + mode + " " + key + " to " + ref + " at version " + readVersion + "]";
  }
}
