package io.quiver.spark.write;

import io.quiver.dataset.CommitLookup;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.WriteResult;
import io.quiver.spark.TableRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The driver's side of batch and streaming writes: decoding messages, and the abort rule. */
final class Commits {
  private static final Logger LOG = LoggerFactory.getLogger(Commits.class);

  private Commits() {}

  /**
   * The results to commit: those of ONE message per partition (the first given). Spark hands the driver
   * one message per partition; should two attempts of a partition both reach it (speculation), committing
   * both would publish the partition's rows twice, so the later ones are left out (their files are orphans
   * that {@code Dataset.cleanup} removes after its safety window).
   */
  static List<WriteResult> toCommit(WriterCommitMessage[] messages) {
    List<WriteResult> out = new ArrayList<>();
    for (QuiverCommitMessage m : firstPerPartition(messages)) {
      out.addAll(m.decode());
    }
    return out;
  }

  /** One message per partition, the first given (see {@link #toCommit}). */
  static List<QuiverCommitMessage> firstPerPartition(WriterCommitMessage[] messages) {
    Map<Integer, QuiverCommitMessage> byPartition = new LinkedHashMap<>();
    for (QuiverCommitMessage m : quiverMessages(messages)) {
      QuiverCommitMessage first = byPartition.putIfAbsent(m.partitionId(), m);
      if (first != null) {
        LOG.warn("Two attempts of partition {} reached the commit ({} and {}): committing the first only", m.partitionId(),
            first, m);
      }
    }
    return new ArrayList<>(byPartition.values());
  }

  /** Every result of every message, duplicates included (what an abort may have to delete). */
  static List<WriteResult> all(WriterCommitMessage[] messages) {
    List<WriteResult> out = new ArrayList<>();
    for (QuiverCommitMessage m : quiverMessages(messages)) {
      out.addAll(m.decode());
    }
    return out;
  }

  private static List<QuiverCommitMessage> quiverMessages(WriterCommitMessage[] messages) {
    List<QuiverCommitMessage> out = new ArrayList<>();
    if (messages == null) {
      return out;
    }
    for (WriterCommitMessage m : messages) {
      // Spark passes null for partitions whose task did not finish.
      if (m instanceof QuiverCommitMessage q) {
        out.add(q);
      }
    }
    return out;
  }

  /**
   * Aborts a write: deletes the messages' files only when the commit under {@code key} certainly did not
   * happen ({@code findCommit} says NOT_COMMITTED). When the outcome is unknown ({@code outcomeUnknown}: the
   * commit threw {@code CommitStateUnknownException}), when the key is found, when the ledger cannot tell
   * (UNKNOWN), or when the lookup itself fails, nothing is deleted: the files may be a committed version's.
   */
  static void abort(TableRef ref, String key, long readVersion, WriterCommitMessage[] messages,
      boolean outcomeUnknown) {
    List<WriteResult> results = all(messages);
    if (results.isEmpty()) {
      return;
    }
    List<String> files = Files.of(results);
    if (outcomeUnknown) {
      LOG.warn("Write {} to {} aborted after a commit of unknown outcome: keeping its {} files (if the commit did"
          + " not happen, Dataset.cleanup removes them after its safety window)", key, ref, files.size());
      return;
    }
    CommitLookup lookup;
    try (Dataset ds = ref.open()) {
      lookup = ds.distributed().findCommit(key, readVersion);
    } catch (RuntimeException e) {
      LOG.warn("Write {} to {} aborted, and whether it committed cannot be looked up: keeping its {} files", key, ref,
          files.size(), e);
      return;
    }
    if (lookup.status() == CommitLookup.Status.NOT_COMMITTED) {
      LOG.info("Write {} to {} aborted and not committed ({}): deleting its {} files", key, ref, lookup, files.size());
      Files.delete(ref, files);
    } else {
      LOG.warn("Write {} to {} aborted, but its commit is {}: keeping its {} files", key, ref, lookup, files.size());
    }
  }
}
