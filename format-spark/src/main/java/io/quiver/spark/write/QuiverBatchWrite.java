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
  /** For an overwrite by a filter: the rows it replaces. */
  private final java.util.Optional<io.quiver.predicate.Predicate> where;
  private volatile boolean outcomeUnknown;
  private volatile long committedVersion = -1;

  QuiverBatchWrite(TableRef ref, long readVersion, Schema schema, WriteSizes sizes, WriteMode mode, String queryId,
      java.util.Optional<io.quiver.predicate.Predicate> where) {
    this.ref = ref;
    this.readVersion = readVersion;
    this.schema = schema;
    this.sizes = sizes;
    this.mode = mode;
    this.where = where;
    this.key = "spark/" + queryId + "/" + mode.name().toLowerCase(Locale.ROOT) + (where.isPresent() ? "-where" : "");
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
    if (where.isPresent()) {
      commitOverwriteWhere(Commits.toCommit(messages), where.get());
      return;
    }
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

  /**
   * An overwrite by a filter: the rows {@code filter} matches at the read version (their addresses, from a scan
   * that reads the first column only) are deleted and the results' rows added, as one row delta bound to the
   * read version — a commit since that changed a fragment holding matching rows, or (serializably) added rows
   * the filter may match, fails it with a retryable conflict.
   */
  private void commitOverwriteWhere(List<WriteResult> results, io.quiver.predicate.Predicate filter) {
    try (Dataset ds = ref.open(); Dataset at = new io.quiver.spark.VersionRef.Number(readVersion).open(ref)) {
      io.quiver.dataset.Scanner scan = at.newScan().columns(at.schema().fields().get(0).name()).filter(filter)
          .withRowAddress(true);
      java.util.Set<Long> fragments = new java.util.TreeSet<>();
      scan.planTasks().forEach(t -> fragments.add(t.fragmentId()));
      org.roaringbitmap.longlong.Roaring64NavigableMap addresses = new org.roaringbitmap.longlong.Roaring64NavigableMap();
      try (org.apache.arrow.vector.ipc.ArrowReader reader = scan.open()) {
        while (reader.loadNextBatch()) {
          var root = reader.getVectorSchemaRoot();
          var column = (org.apache.arrow.vector.UInt8Vector) root.getVector(io.quiver.dataset.RowAddress.COLUMN);
          for (int i = 0; i < root.getRowCount(); i++) {
            addresses.addLong(column.get(i));
          }
        }
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      WriteHooks.current().beforeTableCommit(key, readVersion);
      io.quiver.dataset.RowDeltaResult r = ds.distributed().newRowDelta(readVersion)
          .deleteRows(addresses.toArray()).addRows(results).readFragments(fragments).conflictFilter(filter)
          .description("spark OVERWRITE").commit(CommitOptions.defaults().withIdempotenceKey(key));
      committedVersion = r.version();
      LOG.info("Overwrite {} where {} of {}: {} rows deleted, {} rows written, version {}", key, filter, ref,
          r.deletedRows(), r.addedRows(), r.version());
      WriteHooks.current().afterTableCommit(key, r.version());
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
