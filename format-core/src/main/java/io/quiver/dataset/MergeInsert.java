package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.internal.ops.MergeInserter;
import io.quiver.internal.ops.NothingToCommit;
import io.quiver.internal.table.CommitLoop;
import io.quiver.internal.txn.MergeKeys;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.write.CompressionConfig;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * An upsert by key: "insert these rows, or update them where the key exists" (docs/merge-insert.md). Made by
 * {@link Dataset#mergeInsert(String...)}; set the clauses, then {@link #execute(ArrowReader)}. The defaults
 * insert rows whose key is new and leave existing rows alone:
 *
 * <pre>{@code
 * MergeInsertResult r = dataset.mergeInsert("id")
 *     .whenMatchedUpdateAll(Predicate.compareColumns("source.ts", Predicate.Op.GT, "target.ts"))
 *     .whenNotMatchedInsertAll()
 *     .execute(source);
 * }</pre>
 *
 * <p><b>Matching.</b> A source row matches every live table row with an equal key (all key columns equal). A
 * null in a key column never matches: such a source row is "not matched", such a table row is "not matched by
 * the source". A source holding one key twice is refused ({@link io.quiver.exceptions.DuplicateSourceKeyException},
 * naming the key) before anything is written. A scalar index on a key column narrows the table rows read when
 * that is cheaper than reading the key column ({@link #useIndices(boolean)}); it never changes the result.
 *
 * <p><b>What is written.</b> Matched rows get overlays holding their non-key cells (cells, not rows: row
 * addresses stay valid and the bytes written follow the cells changed); inserted rows are new fragments, written
 * as appends are (the table's compression, batch and fragment sizes); rows deleted by source get deletion files.
 * All of it is one transaction, an {@code merge-insert} in the history.
 *
 * <p><b>The source</b> must have the table's columns with the table's types (children by name, in order); a
 * nullable column may be left out: inserted rows hold null there, matched rows keep their value. It is read
 * once and held in memory for the whole call (its Arrow buffers, at most {@link #maxSourceBytes} — 1 GiB by
 * default —, plus one hash-map entry, about 100 bytes and the key, per row), so that a retry re-reads the same
 * rows; split larger sources into several merges.
 *
 * <p><b>Concurrency.</b> The transaction records the keys it inserted; two merges that insert one key from the
 * same version never both commit (the second retries, and then finds the key and updates it). A retryable
 * conflict re-runs the merge on the latest version, up to {@link #maxAttempts(int)} attempts in all; the files
 * of a failed attempt are deleted unless its commit outcome is unknown.
 *
 * <p>Not thread-safe; one builder is one merge.
 */
public final class MergeInsert {
  /** Attempts {@link #execute} makes by default. */
  public static final int DEFAULT_MAX_ATTEMPTS = 3;

  /** Bytes of source Arrow buffers a merge holds in memory by default (1 GiB). */
  public static final long DEFAULT_MAX_SOURCE_BYTES = 1L << 30;

  private final Dataset dataset;
  private final List<String> keys;
  private MergeInserter.Matched matched = MergeInserter.Matched.DO_NOTHING;
  private Optional<Predicate> matchedCondition = Optional.empty();
  private MergeInserter.NotMatched notMatched = MergeInserter.NotMatched.INSERT_ALL;
  private MergeInserter.BySource bySource = MergeInserter.BySource.KEEP;
  private Optional<Predicate> bySourceCondition = Optional.empty();
  private CommitOptions commitOptions;
  private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
  private long maxSourceBytes = DEFAULT_MAX_SOURCE_BYTES;
  private boolean useIndices = true;
  private boolean alwaysUseIndices;
  private ScanMetrics metrics;

  MergeInsert(Dataset dataset, List<String> keys) {
    this.dataset = dataset;
    this.keys = List.copyOf(keys);
    this.commitOptions = dataset.options().commitOptions();
    // Fail on an unknown or unusable key column now, not at execute.
    MergeInserter.keyFields(dataset.manifest().schema(), this.keys);
  }

  /** Matched rows get every non-key cell of their source row. */
  public MergeInsert whenMatchedUpdateAll() {
    matched = MergeInserter.Matched.UPDATE_ALL;
    matchedCondition = Optional.empty();
    return this;
  }

  /**
   * Matched rows where {@code condition} is true get every non-key cell of their source row; the others are
   * left alone (and, being matched, are not inserted). The condition names {@code target.<column>} (the table
   * row) and {@code source.<column>} (the source row), e.g. {@code Predicate.compareColumns("source.ts",
   * Op.GT, "target.ts")}; unknown is not true.
   */
  public MergeInsert whenMatchedUpdateAll(Predicate condition) {
    if (condition == null) {
      throw new InvalidArgumentException("the when-matched condition must not be null; use whenMatchedUpdateAll()");
    }
    matched = MergeInserter.Matched.UPDATE_ALL;
    matchedCondition = Optional.of(condition);
    return this;
  }

  /** Matched rows are left as they are (the default). */
  public MergeInsert whenMatchedDoNothing() {
    matched = MergeInserter.Matched.DO_NOTHING;
    matchedCondition = Optional.empty();
    return this;
  }

  /** A matched key fails the merge with {@link io.quiver.exceptions.MatchedRowException}, naming it. */
  public MergeInsert whenMatchedFail() {
    matched = MergeInserter.Matched.FAIL;
    matchedCondition = Optional.empty();
    return this;
  }

  /** Source rows that match no live row are inserted (the default). */
  public MergeInsert whenNotMatchedInsertAll() {
    notMatched = MergeInserter.NotMatched.INSERT_ALL;
    return this;
  }

  /** Source rows that match no live row are dropped. */
  public MergeInsert whenNotMatchedDoNothing() {
    notMatched = MergeInserter.NotMatched.DO_NOTHING;
    return this;
  }

  /** Live rows that no source row matches are kept (the default). */
  public MergeInsert whenNotMatchedBySourceKeep() {
    bySource = MergeInserter.BySource.KEEP;
    bySourceCondition = Optional.empty();
    return this;
  }

  /** Live rows that no source row matches are deleted (every fragment's keys are read). */
  public MergeInsert whenNotMatchedBySourceDelete() {
    bySource = MergeInserter.BySource.DELETE;
    bySourceCondition = Optional.empty();
    return this;
  }

  /**
   * Live rows that no source row matches are deleted where {@code targetCondition} is true; it names {@code
   * target.<column>} only.
   */
  public MergeInsert whenNotMatchedBySourceDelete(Predicate targetCondition) {
    if (targetCondition == null) {
      throw new InvalidArgumentException(
          "the when-not-matched-by-source condition must not be null; use whenNotMatchedBySourceDelete()");
    }
    bySource = MergeInserter.BySource.DELETE;
    bySourceCondition = Optional.of(targetCondition);
    return this;
  }

  /** Commit options (properties, idempotence key); the handle's {@link DatasetOptions#commitOptions()} by default. */
  public MergeInsert commitOptions(CommitOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("commit options must not be null");
    }
    commitOptions = options;
    return this;
  }

  /** Attempts in all (at least 1) before a retryable conflict is thrown; {@value #DEFAULT_MAX_ATTEMPTS} by default. */
  public MergeInsert maxAttempts(int attempts) {
    if (attempts < 1) {
      throw new InvalidArgumentException("max attempts must be at least 1, got " + attempts);
    }
    maxAttempts = attempts;
    return this;
  }

  /**
   * The most bytes of Arrow buffers the source may take once held in memory ({@value #DEFAULT_MAX_SOURCE_BYTES}
   * by default); a larger source fails before anything is written.
   */
  public MergeInsert maxSourceBytes(long bytes) {
    if (bytes < 1) {
      throw new InvalidArgumentException("max source bytes must be at least 1, got " + bytes);
    }
    maxSourceBytes = bytes;
    return this;
  }

  /**
   * Whether a scalar index on a key column may narrow the table rows read (default true). When rows not matched
   * by the source are kept, the merge asks the indices which rows may hold a source key and reads only those of
   * the fragments an index covers in their current state; other fragments (appended, compacted, or with the key
   * column changed since the index was built or optimized) are read whole, and so are those where asking the
   * index would fetch more bytes than their key column holds (a source of many keys spread over the table touches
   * most index pages; docs/merge-insert.md). The result is the same either way; false reads every fragment the
   * key statistics do not prune (for comparison, or to read past a damaged index file).
   */
  public MergeInsert useIndices(boolean value) {
    useIndices = value;
    return this;
  }

  /** Asks the indices even where that costs more bytes than reading the key column (tests, measurements). */
  MergeInsert alwaysUseIndices() {
    useIndices = true;
    alwaysUseIndices = true;
    return this;
  }

  /**
   * Records what reading the table's keys did into {@code value} (null stops recording): fragments considered
   * and pruned by statistics, {@linkplain ScanMetrics#fragmentsAnsweredByIndex() answered by an index} or
   * {@linkplain ScanMetrics#fragmentsScannedWithoutIndex() read whole although a key column has one}, data files
   * opened, bytes fetched and rows read — summed over every attempt.
   */
  public MergeInsert metrics(ScanMetrics value) {
    metrics = value;
    return this;
  }

  /**
   * Reads {@code source} (the caller keeps ownership and closes it), merges it and moves the dataset handle to
   * the committed version. When nothing changes, nothing is committed (after the conflict check a change with
   * nothing to commit gets, docs/conflict-matrix.md) and the result holds the handle's version.
   *
   * @throws io.quiver.exceptions.SchemaMismatchException if the source's columns do not fit the table (naming
   *     the column, the expected and the found type), or it holds a null for a non-nullable column
   * @throws io.quiver.exceptions.DuplicateSourceKeyException if the source holds a key twice
   * @throws io.quiver.exceptions.MatchedRowException under {@link #whenMatchedFail()} when a key matches
   * @throws RetryableConflictException when every attempt met a concurrent commit that it conflicts with
   * @throws io.quiver.exceptions.InvalidArgumentException for a bad condition (a column without {@code target.}
   *     or {@code source.}, an unknown column, a literal of another type)
   */
  public MergeInsertResult execute(ArrowReader source) {
    Manifest first = dataset.manifest();
    MergeInserter.Clauses clauses =
        new MergeInserter.Clauses(matched, matchedCondition, notMatched, bySource, bySourceCondition);
    try (MergeInserter.Source src =
        MergeInserter.Source.read(source, first.schema(), MergeInserter.keyFields(first.schema(), keys),
            dataset.allocator(), maxSourceBytes)) {
      for (int attempt = 1; ; attempt++) {
        Manifest base = attempt == 1 ? first : dataset.io().loadLatest().manifest();
        int n = attempt;
        try {
          return dataset.mutate(m -> {
            DatasetOptions options = dataset.options();
            MergeInserter inserter = new MergeInserter(m.io(), base, dataset.allocator(), options.rowsPerBatch(),
                (io, table, config) -> new FragmentWriter(io.store(), table, dataset.allocator(),
                    options.rowsPerBatch(), options.maxRowsPerFragment(), CompressionConfig.of(config)))
                .useIndices(useIndices).alwaysUseIndices(alwaysUseIndices).counters(ScanMetrics.countersOf(metrics));
            MergeInserter.Prepared prepared = inserter.run(src, keys, clauses);
            if (prepared.op() == null) {
              List<Integer> keyIds = MergeInserter.keyFields(base.schema(), keys).stream()
                  .map(io.quiver.schema.Field::id).toList();
              NothingToCommit.check(m.io(), base, new Operation.MergeInsert(keyIds, List.of(), List.of(), List.of(),
                  prepared.readFieldIds(), Set.of(), MergeKeys.none(), false, clauses.describe(keys)));
              return new MergeInsertResult(base.version(), 0, 0, 0, n);
            }
            CommitLoop.Committed committed = m.commit(base, prepared.op(), commitOptions);
            long version = dataset.moveTo(committed);
            return new MergeInsertResult(version, prepared.inserted(), prepared.updated(), prepared.deleted(), n);
          });
        } catch (RetryableConflictException e) {
          if (attempt >= maxAttempts) {
            throw e;
          }
        }
      }
    }
  }
}
