package io.quiver.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.internal.table.TagStore;
import io.quiver.manifest.ScalarIndex;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.ListPage;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.TestStores;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Histories found by {@link DatasetModelBasedTest}, replayed step by step on the memory store so that each
 * stays checked whatever the property's random search explores.
 */
class ModelHistoriesTest {

  private static ModelWorld world() {
    return new ModelWorld("memory://model-" + UUID.randomUUID() + "/t", allocator -> DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(4 << 20))
        .maxRowsPerFragment(5)
        .rowsPerBatch(4)
        .build());
  }

  private static String last(ModelWorld w) {
    List<String> o = w.outcomes();
    return o.get(o.size() - 1);
  }

  /**
   * A keyed append retried with the same rows from a stale handle (through workers' results), from a new
   * process and from a restarted handle returns the first commit's version and publishes nothing; other
   * rows under the key raise IdempotenceKeyConflictException.
   */
  @Test
  void keyedRetriesFromStaleAndRestartedHandlesPublishNothing() {
    try (ModelWorld w = world()) {
      w.keyedAppend(0, 0, 3, false, false, 0);
      w.check();
      assertThat(last(w)).endsWith("-> committed");
      w.append(1, 2); // h1 was at v1: stale, its append is rebased
      w.check();
      w.keyedAppend(2, 0, 3, true, true, 2); // h2 still at v1, retry through two workers
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.keyedAppend(ModelWorld.NEW_PROCESS, 0, 3, true, false, 1);
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.restart(1);
      w.keyedAppend(1, 0, 3, true, true, 0);
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.keyedAppend(0, 0, 3, false, false, 0); // other rows under the key
      w.check();
      assertThat(last(w)).endsWith("-> key conflict");
      w.keyedAppend(ModelWorld.NEW_PROCESS, 0, 2, false, true, 1);
      w.check();
      assertThat(last(w)).endsWith("-> key conflict");
    }
  }

  /** Crashes after and before the commit; the restarted driver follows findCommit and never duplicates rows. */
  @Test
  void aDriverRestartedAfterACrashCommitsEachKeyOnce() {
    try (ModelWorld w = world()) {
      w.crash(0, 1, 3, true, false, 0, false); // committed, outcome lost; the recovery retry finds it
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.crash(1, 2, 2, false, true, 1, false); // files written, not committed; the recovery commits
      w.check();
      assertThat(last(w)).endsWith("-> committed");
      w.crash(2, 2, 2, true, true, 3, false); // h2 at v1: a stale retry of a committed key, crashing again
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
    }
  }

  /**
   * After 20 more commits and a cleanup to the latest version, a keyed retry from a handle whose version
   * was removed (and from a new process) is still recognised, and findCommit still finds the key.
   */
  @Test
  void keyedRetriesAfterACleanupToTheLatestVersionPublishNothing() {
    try (ModelWorld w = world()) {
      w.keyedAppend(0, 3, 4, false, false, 0);
      for (int i = 0; i < 20; i++) {
        w.append(1, 1);
      }
      w.cleanup(1, 2);
      w.check();
      w.keyedAppend(0, 3, 4, true, false, 2); // h0's version was removed
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.keyedAppend(2, 3, 4, true, true, 1); // h2 at v1, removed, through workers
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.keyedAppend(2, 3, 4, false, true, 1); // other rows, from the removed version
      w.check();
      assertThat(last(w)).endsWith("-> key conflict");
      w.keyedAppend(ModelWorld.NEW_PROCESS, 0, 2, false, true, 1); // a new key commits
      w.check();
      assertThat(last(w)).endsWith("-> committed");
    }
  }

  /** Application sequences in order, out of order, repeated, from stale handles and after a cleanup. */
  @Test
  void applicationSequencesPublishOnlyAboveTheWatermark() {
    try (ModelWorld w = world()) {
      w.sequenced(0, 0, 0, 2, false, 0, false); // 0
      w.check();
      assertThat(last(w)).endsWith("-> committed");
      w.sequenced(1, 0, 1, 2, true, 1, false); // 3, from a stale handle
      w.check();
      assertThat(last(w)).endsWith("committed stale");
      w.sequenced(2, 0, 3, 1, false, 0, false); // 1: out of order, below the watermark
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.sequenced(ModelWorld.NEW_PROCESS, 0, 2, 1, true, 0, false); // 3 again
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.cleanup(0, 1);
      w.sequenced(2, 0, 2, 1, true, 1, false); // 3 again, from a removed version
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
      w.sequenced(2, 0, 0, 1, false, 1, false); // 4
      w.check();
      assertThat(last(w)).endsWith("-> committed");
    }
  }

  /**
   * Regression (found by the model-based property, fixed): a replayed application sequence below the
   * watermark, committed from a handle older than the application's commits, returns the first version
   * after the handle's whose sequence is at or above the replayed one (v2), not the watermark's version
   * (v3) that {@code CommitOptions.withApplicationSequence} documents and that a new handle gets. Nothing
   * is published either way. The history check ({@code Idempotence.sameCommit}) answers before the ledger.
   *
   * <pre>
   *   create -> v1
   *   h0@v1 append as app0 sequence 0 -> v2
   *   h0@v2 append as app0 sequence 1 -> v3
   *   h2@v1 append as app0 sequence 0    expected: returns v3 (the watermark's), nothing published
   *                                      before the fix: returned v2
   * </pre>
   */
  @Test
  void aStaleReplayOfASequenceReturnsTheWatermarksVersion() {
    try (ModelWorld w = world()) {
      w.sequenced(0, 0, 0, 2, false, 0, false); // sequence 0 at v2
      w.sequenced(0, 0, 0, 2, false, 0, false); // sequence 1 at v3
      w.sequenced(2, 0, 3, 1, false, 0, false); // sequence 0 again from v1
      w.check();
    }
  }

  /**
   * Regression (found by the model-based property, fixed): a restarted driver commits workers' results read at a version a cleanup removed,
   * with an application sequence at the watermark: the commit is already in the table, but {@code
   * commitWriteResults} fails with StaleReadVersionException ("the schema changed since the read version",
   * or "version 3 replaced the table") and advises rewriting the data, because {@code DistributedCommits.base}
   * consults the latest ledger only for an idempotence key, not for a sequence. Expected: returns v2 (the
   * watermark's version), nothing published — as {@code append} from a handle at the removed version does.
   *
   * <pre>
   *   create -> v1
   *   h0@v1 append as app0 sequence 0 -> v2
   *   h0@v2 add null column c1 -> v3              (or: restore v1 -> v3)
   *   cleanup down to v3
   *   new driver commits results of workers at v1 as app0 sequence 0
   *                                               expected: returns v2; before the fix: StaleReadVersionException
   * </pre>
   */
  @Test
  void aSequenceReplayOfResultsReadAtARemovedVersionIsRecognised() {
    try (ModelWorld w = world()) {
      w.sequenced(0, 0, 0, 2, false, 0, false); // sequence 0 at v2
      w.addNullColumn(0);
      w.cleanup(0, 1);
      w.sequenced(2, 0, 2, 1, true, 1, true); // sequence 0 again: workers at v1 (removed), committed by a new driver
      w.check();
    }
    try (ModelWorld w = world()) {
      w.sequenced(0, 0, 0, 2, false, 0, false); // sequence 0 at v2
      w.restore(0, 0); // v1 again, as v3
      w.cleanup(0, 1);
      w.sequenced(2, 0, 2, 1, true, 1, true);
      w.check();
    }
  }

  /**
   * Regression (found by the model-based property, seed 20261129, try 9, shrunk to these four steps;
   * fixed): a restarted driver commits, under the same idempotence key, the very results already committed
   * (v2), read at a version a cleanup removed, after a schema change: {@code commitWriteResults} fails with
   * SchemaMismatchException ("rewrite the data with writers opened at one version") instead of returning
   * v2. Rewriting at the latest schema then raises IdempotenceKeyConflictException (the digest covers the
   * schema). Without the cleanup the same call returns v2: the results are checked against their read
   * version's schema, then the ledger answers. Nothing is ever published twice.
   *
   * <pre>
   *   create -> v1
   *   h0@v1 keyed append k0 through workers -> v2    (the driver keeps the results)
   *   h0 cleanup down to v2
   *   h0@v2 add computed column c1 -> v3
   *   restarted driver: commitWriteResults(kept results, k0)
   *                                           expected: returns v2; actual: SchemaMismatchException
   * </pre>
   */
  @Test
  void committedResultsReadAtARemovedVersionAreRecognisedAfterASchemaChange() {
    try (ModelWorld w = world()) {
      w.keyedAppend(0, 0, 1, true, true, 0); // k0 through workers at v2
      w.cleanup(0, 1);
      w.addComputedColumn(0);
      w.commitSaved(0);
      w.check();
    }
    // The same found by the long run (seed 20261129, -Pconformance-long, try 174, shrunk to 4 steps): h1's
    // driver, at v1, wrote k2's rows again and crashed; restarted, it commits those results after the cleanup.
    try (ModelWorld w = world()) {
      w.crash(0, 2, 1, true, false, 0, false); // k2 at v2; the recovery retry is recognised
      w.cleanup(0, 1);
      w.addNullColumn(0);
      w.crash(1, 2, 1, false, false, 0, true);
      w.check();
    }
  }

  /** Committed keyed results kept by the driver are recognised from a removed read version (same schema). */
  @Test
  void committedResultsReadAtARemovedVersionAreRecognised() {
    try (ModelWorld w = world()) {
      w.keyedAppend(0, 0, 2, false, true, 1); // k0 through workers at v2; the driver keeps the results
      w.append(1, 1);
      w.cleanup(0, 1);
      w.commitSaved(0);
      w.check();
      assertThat(last(w)).endsWith("-> already committed");
    }
  }

  /** Past the retention, an expired key is UNKNOWN (never NOT_COMMITTED) once a commit dropped it. */
  @Test
  void expiredKeysAreUnknownNeverNotCommitted() {
    try (ModelWorld w = world()) {
      w.keyedAppend(0, 0, 2, false, false, 0);
      w.sequenced(0, 1, 0, 1, false, 0, false);
      w.check();
      w.expire();
      w.check(); // no commit since: still committed
      w.append(1, 1);
      w.check(); // the commit dropped them: findCommit says UNKNOWN, no watermark
      w.keyedAppend(1, 0, 2, false, false, 0); // a key of the new generation
      w.check();
      assertThat(last(w)).endsWith("-> committed");
    }
  }

  /** A stale handle appends, deletes, updates and adds a column over other handles' commits. */
  @Test
  void staleWritesAreRebasedOntoTheLatestVersion() {
    try (ModelWorld w = world()) {
      w.append(0, 3);
      w.check();
      w.deleteIds(1, 1, 2); // h1 still at v1
      w.check();
      w.update(2, 0, 4, 0, 9); // h2 still at v1
      w.check();
      w.addNullColumn(1);
      w.check();
      w.stagedNewColumn(0);
      w.check();
      w.compact(0);
      w.check();
      w.refresh(2);
      w.replace(2, 0);
      w.check();
    }
  }

  /**
   * Was a bug (found by the model-based property; fixed by making write-columns incompatible with a
   * committed restore): a staged column write computed at a version where a
   * row was deleted is committed over a later restore that made the row live again. The staged file holds
   * a placeholder (null) for the deleted physical row, and after the commit the resurrected row reads that
   * placeholder instead of its value: a silent data change. The witness of a staged write covers the
   * fragment's data files and overlays but not its deletion vector, and the conflict matrix leaves
   * write-columns against a committed restore to the witness (every other kind is incompatible with a
   * restore). Expected: the stale commit fails with a StaleColumnWriteException (or an
   * IncompatibleTransactionException), or the resurrected row keeps its value.
   *
   * <pre>
   *   create ids 0..7 -> v1
   *   h0@v1 delete 0 <= id < 1 -> v2
   *   h1 refresh -> v2
   *   h1@v2 restore v1 -> v3                      (row 0 is live again)
   *   h0@v2 staged rewrite of column a -> v4       (row 0: a = null; the model says a = its v3 value)
   * </pre>
   */
  @Test
  void stagedWriteOverARestoreDoesNotOverwriteResurrectedRows() {
    try (ModelWorld w = world()) {
      w.deleteIds(0, 0, 1);
      w.refresh(1);
      w.restore(1, 0);
      w.stagedRewrite(0, 0);
      w.check();
    }
  }

  /**
   * Scalar indices through the changes that make a segment stale (an update of the indexed column, appends, a
   * compaction, a drop of the column), an optimize, taken and concurrently taken names, and a cleanup that keeps a
   * tagged version built with the indices: after every step every index answers as the scan without indices
   * (the fourth invariant), at the latest version and at the tagged one.
   */
  @Test
  void indicesAnswerAsScansThroughChangesOptimizeAndCleanup() {
    try (ModelWorld w = world()) {
      w.createIndex(0, 1, ScalarIndex.Kind.BTREE); // ix_a_btree, v2
      w.check();
      w.createIndex(0, 0, ScalarIndex.Kind.BITMAP); // ix_id_bitmap, v3
      w.check();
      w.createIndex(0, 3, ScalarIndex.Kind.BTREE); // ix_a_btree again
      assertThat(last(w)).endsWith("-> InvalidArgumentException");
      w.createIndex(1, 1, ScalarIndex.Kind.BTREE); // h1 at v1 does not see it: the commit conflicts
      assertThat(last(w)).endsWith("-> IncompatibleTransactionException");
      w.check();
      w.update(0, 0, 3, 0, 4); // column a of ids 0..2: an overlay on the first fragment
      w.check();
      w.append(2, 3); // h2 at v1: rebased
      w.check();
      w.tag(2); // v3: both indices cover every fragment
      w.compact(0);
      w.check();
      w.optimizeIndex(0, 0); // ix_a_btree
      assertThat(last(w)).endsWith("-> committed");
      w.check();
      w.drop(0, 1); // column a, and with it ix_a_btree
      w.check();
      w.addNullColumn(0);
      w.createIndex(0, 1, ScalarIndex.Kind.BITMAP); // ix_c1_bitmap: every value null
      w.check();
      w.dropIndex(1, 0); // h1 at v1 has no index
      assertThat(last(w)).endsWith("-> nothing to commit");
      w.refresh(1);
      w.dropIndex(1, 1); // ix_id_bitmap
      assertThat(last(w)).endsWith("-> committed");
      w.check();
      w.cleanup(0, 1); // keeps the latest and the tagged v3, whose index files must stay
      w.check();
      w.optimizeIndex(2, 0); // h2's version was removed: it moves to the latest
      w.check();
    }
  }

  /**
   * A tagged version and every version from the cleanup's cutoff on survive the cleanup and read as they did;
   * the ones before go, and the handle left on a removed version moves on.
   */
  @Test
  void aCleanupBeforeAVersionKeepsItTheLaterOnesAndTheTaggedOnes() {
    try (ModelWorld w = world()) {
      w.append(0, 3); // v2
      w.check();
      w.tag(1); // live [1, 2]: tags v2
      w.deleteIds(0, 0, 2); // v3
      w.update(1, 2, 3, 0, 7); // v4 (h1 is stale at v1: rebased)
      w.append(0, 2); // v5
      w.check();
      w.cleanupBefore(2, 3, 2); // live [1..5]: before v4; keeps v2 (tagged), v4, v5
      w.check();
      assertThat(w.history().get(w.history().size() - 1)).contains("removed 2 versions");
      w.untag(0);
      w.cleanup(0, 1); // down to the latest: v2 goes now
      w.check();
    }
  }

  /**
   * The failing variant: a store whose listings omit the tags (as a cleanup that ignored them would) makes the
   * cleanup remove a tagged version, and the third invariant names it.
   */
  @Test
  void aCleanupThatDoesNotSeeTheTagsBreaksTheKeptVersionsInvariant() {
    MemoryObjectStore memory = new MemoryObjectStore("memory://hidden-tags");
    ObjectStore hidingTags = new ForwardingObjectStore(memory) {
      @Override
      public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
        ListPage page = super.list(prefix, startAfter, maxKeys);
        List<ObjectInfo> shown = page.objects().stream().filter(o -> !o.key().startsWith(TagStore.TAGS_PREFIX))
            .toList();
        return new ListPage(shown, page.hasMore());
      }

      @Override
      public List<ObjectInfo> listAll(String prefix) {
        return super.listAll(prefix).stream().filter(o -> !o.key().startsWith(TagStore.TAGS_PREFIX)).toList();
      }

      @Override
      public void close() {} // shared by the world's handles; closed below
    };
    try (memory;
        ModelWorld w = new ModelWorld("hidden://t", allocator -> DatasetOptions.builder().allocator(allocator)
            .registry(TestStores.registry("hidden", hidingTags)).maxRowsPerFragment(5).rowsPerBatch(4).build())) {
      w.append(0, 3);
      w.tag(1);
      w.append(0, 2);
      w.check();
      assertThatThrownBy(() -> w.cleanup(0, 1)).isInstanceOf(AssertionError.class)
          .hasMessageContaining("[every kept version reads the same]").hasMessageContaining("tags {t0=2}");
    }
  }
}
