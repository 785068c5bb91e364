package io.quiver.spark.write;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.WriteMode;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.manifest.CommitLedger;
import io.quiver.spark.TableRef;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Structured Streaming sink in append mode. Each micro-batch (epoch) is one Quiver commit, made under the
 * application sequence ({@code queryId}, {@code epochId}) — {@code queryId} being the query's persistent id,
 * kept in its checkpoint — and the idempotence key {@code spark/<queryId>/epoch/<epochId>}. An epoch Spark
 * replays after a restart (it committed to the table but not to Spark's commit log) is at or below the
 * query's watermark in the table: it publishes nothing, and its freshly written files are deleted.
 *
 * <p>Spark asks for a writer factory per micro-batch ({@code MicroBatchWrite.createBatchWriterFactory});
 * each one is opened at the table's latest version at that moment, so a long-running query keeps writing
 * against current versions (and a table whose schema changed under the query fails the epoch with a
 * {@link SchemaMismatchException} instead of writing with a stale schema).
 */
final class QuiverStreamingWrite implements StreamingWrite {
  private static final Logger LOG = LoggerFactory.getLogger(QuiverStreamingWrite.class);

  private final TableRef ref;
  private final Schema schema;
  private final WriteSizes sizes;
  private final String queryId;
  /** Each epoch's read version (the latest when its writer factory was made). */
  private final Map<Long, Long> readVersions = new ConcurrentHashMap<>();
  private final Map<Long, Boolean> unknownOutcomes = new ConcurrentHashMap<>();
  private volatile long lastReadVersion;

  QuiverStreamingWrite(TableRef ref, long loadedVersion, Schema schema, WriteSizes sizes, String queryId) {
    this.ref = ref;
    this.schema = schema;
    this.sizes = sizes;
    this.queryId = queryId;
    this.lastReadVersion = loadedVersion;
  }

  String key(long epochId) {
    return "spark/" + queryId + "/epoch/" + epochId;
  }

  @Override
  public StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
    try (Dataset ds = ref.open()) {
      Schema latest = ds.schema().toArrow();
      if (!latest.equals(schema)) {
        throw new SchemaMismatchException("the schema of Quiver table " + ref.uri() + " changed while streaming query "
            + queryId + " was writing to it: the query writes " + schema + ", the table's latest version "
            + ds.version() + " has " + latest + ". Restart the query so that it writes with the table's schema");
      }
      lastReadVersion = ds.version();
      return new QuiverWriterFactory(ref, ds.version(), schema, sizes);
    }
  }

  @Override
  public boolean useCommitCoordinator() {
    return false;
  }

  @Override
  public void commit(long epochId, WriterCommitMessage[] messages) {
    List<WriteResult> results = Commits.toCommit(messages);
    long read = results.stream().mapToLong(WriteResult::readVersion).min().orElse(lastReadVersion);
    readVersions.put(epochId, read);
    String key = key(epochId);
    try (Dataset ds = ref.open()) {
      // The broken write of the kill suites; never in production.
      boolean broken = WriteHooks.current().ledgerIgnored();
      Optional<CommitLedger.SequenceWatermark> watermark = broken
          ? Optional.empty()
          : ds.distributed().applicationWatermark(queryId);
      if (watermark.isPresent() && watermark.get().sequence() >= epochId) {
        // Committed by an earlier run of this query: these files, written by this run, are no commit's.
        LOG.info("Epoch {} of streaming query {} is already in {} (watermark {} at version {}): publishing nothing",
            epochId, queryId, ref, watermark.get().sequence(), watermark.get().version());
        Files.delete(ref, Files.of(Commits.all(messages)));
        WriteHooks.current().afterTableCommit(key, watermark.get().version());
        return;
      }
      if (results.stream().allMatch(r -> r.fragments().isEmpty())) {
        LOG.info("Epoch {} of streaming query {} wrote no rows: nothing to commit", epochId, queryId);
        return;
      }
      WriteHooks.current().beforeTableCommit(key, read);
      long version = ds.distributed().commit(results, WriteMode.APPEND, broken
          ? CommitOptions.defaults()
          : CommitOptions.defaults().withApplicationSequence(queryId, epochId).withIdempotenceKey(key));
      LOG.info("Epoch {} of streaming query {} committed {} rows to {} as version {}", epochId, queryId,
          results.stream().mapToLong(WriteResult::rows).sum(), ref, version);
      WriteHooks.current().afterTableCommit(key, version);
    } catch (CommitStateUnknownException e) {
      unknownOutcomes.put(epochId, true);
      throw e;
    }
  }

  @Override
  public void abort(long epochId, WriterCommitMessage[] messages) {
    long read = readVersions.getOrDefault(epochId, Commits.all(messages).stream()
        .mapToLong(WriteResult::readVersion).min().orElse(lastReadVersion));
    Commits.abort(ref, key(epochId), read, messages, unknownOutcomes.getOrDefault(epochId, false));
  }

  @Override
  public String toString() {
    return "QuiverStreamingWrite[query " + queryId + " to " + ref + "]";
  }
}
