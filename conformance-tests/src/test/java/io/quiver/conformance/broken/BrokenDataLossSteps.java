package io.quiver.conformance.broken;

import static io.quiver.dataset.SampleTable.scanIds;
import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.in;
import static io.quiver.predicate.Predicate.lt;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.SampleTable;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreException;
import io.quiver.manifest.Fragment;
import io.quiver.scenario.DataLossScenarios;
import io.quiver.scenario.DataLossScenarios.AfterFailure;
import io.quiver.scenario.DataLossScenarios.Appender;
import io.quiver.scenario.DataLossScenarios.Cleanup;
import io.quiver.scenario.DataLossScenarios.DeleteByKey;
import io.quiver.scenario.DataLossScenarios.Replace;
import io.quiver.scenario.DataLossScenarios.Rewrite;
import io.quiver.scenario.DataLossScenarios.Upsert;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Deliberately broken implementations of the steps the F scenarios take ({@link DataLossScenarios}): each is the
 * shape of a data-loss bug another table format or engine shipped, built on Quiver's public API, for {@link
 * BrokenDataLossIsCaughtTest} to check that the scenario catches it.
 */
final class BrokenDataLossSteps {
  private BrokenDataLossSteps() {}

  /** F1: a compaction committed as an overwrite of the rows read at its planned version, from a handle at the latest. */
  static final Rewrite OVERWRITE_FROM_LATEST = (t, at) -> {
    List<Long> ids = scanIds(at.newScan().open());
    return committer -> withBatches(t, ids, batches -> committer.overwrite(SampleTable.SCHEMA, batches));
  };

  /** F7: a rewrite in two commits (the copies appended, then the originals deleted) that dies between them. */
  static final Rewrite TWO_COMMIT_REWRITE = (t, at) -> {
    List<Long> ids = scanIds(at.newScan().open());
    return committer -> {
      withBatches(t, ids, committer::append);
      throw new StoreException("the rewriter died before deleting the originals", null, false);
    };
  };

  /** F2: a rewrite through a writer that cannot store a null binary or string: nulls come back empty. */
  static final Rewrite NULLS_WRITTEN_AS_EMPTY = (t, at) -> {
    List<Long> ids = new ArrayList<>();
    List<byte[]> s = new ArrayList<>();
    List<byte[]> b = new ArrayList<>();
    try (ArrowReader r = at.newScan().open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          ids.add(((BigIntVector) root.getVector("id")).get(i));
          s.add(((VarCharVector) root.getVector("s")).get(i));
          b.add(((VarBinaryVector) root.getVector("b")).get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return committer -> {
      try (VectorSchemaRoot root = VectorSchemaRoot.create(DataLossScenarios.NULL_OR_EMPTY, t.allocator())) {
        root.allocateNew();
        for (int i = 0; i < ids.size(); i++) {
          ((BigIntVector) root.getVector("id")).setSafe(i, ids.get(i));
          ((VarCharVector) root.getVector("s")).setSafe(i, s.get(i) == null ? new byte[0] : s.get(i));
          ((VarBinaryVector) root.getVector("b")).setSafe(i, b.get(i) == null ? new byte[0] : b.get(i));
        }
        root.setRowCount(ids.size());
        committer.overwrite(DataLossScenarios.NULL_OR_EMPTY, List.of(root));
      }
    };
  };

  /** F3: an upsert as "look the keys up, append the ones not found": two writers both find a new key absent. */
  static final Upsert CHECK_THEN_APPEND = (t, ds, from, rows) -> {
    List<Object> keys = new ArrayList<>();
    for (long id = from; id < from + rows; id++) {
      keys.add(id);
    }
    Set<Long> present = new HashSet<>(scanIds(ds.newScan().filter(in("id", keys)).open()));
    List<Long> missing = new ArrayList<>();
    for (long id = from; id < from + rows; id++) {
      if (!present.contains(id)) {
        missing.add(id);
      }
    }
    withBatches(t, missing, ds::append);
  };

  /** F4: an appender that retries a failed append with the same input, which the failure left half consumed. */
  static final Appender RETRY_WITH_THE_SAME_INPUT = (ds, input) -> {
    try {
      return ds.append(input);
    } catch (QuiverException failed) {
      return ds.append(input);
    }
  };

  /**
   * F5: a cleanup followed by an orphan sweep of {@code store} rooted at the handle's own version: whatever that
   * version does not reference goes, whichever tag or kept version references it.
   */
  static Cleanup rootedAtTheHandle(ObjectStore store) {
    return (ds, options) -> {
      Set<String> referenced = new HashSet<>();
      for (Fragment f : ds.manifest().fragments()) {
        f.files().forEach(file -> referenced.add(file.path()));
        f.deletionFile().ifPresent(d -> referenced.add(d.path()));
        f.overlays().forEach(o -> referenced.add(o.dataFile().path()));
      }
      ds.cleanup(options);
      List<String> orphans = new ArrayList<>();
      for (String prefix : List.of("data/", "_deletions/")) {
        for (ObjectInfo info : store.listAll(prefix)) {
          if (!referenced.contains(info.key())) {
            orphans.add(info.key());
          }
        }
      }
      store.deleteAll(orphans);
    };
  }

  /** F6: a writer that, after its change failed, sweeps every unreferenced file with no safety window. */
  static final AfterFailure SWEEP_UNREFERENCED_FILES = (t, failed) -> {
    t.clock().advance(Duration.ofSeconds(2)); // a moment later (the scenario clock starts on a whole second)
    failed.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(3650)).safetyWindow(Duration.ZERO).build());
  };

  /** F8: the replacing rows appended first, then the old ones deleted by key, which deletes the new ones too. */
  static final Replace APPEND_THEN_DELETE_BY_KEY = (t, ds, from, rows) -> {
    try (VectorSchemaRoot b = SampleTable.batch(t.allocator(), from, rows)) {
      ds.append(List.of(b));
    }
    ds.delete(and(ge("id", from), lt("id", from + rows)));
  };

  /** F13: a delete by key that looks the key up and deletes the first row found. */
  static final DeleteByKey FIRST_MATCH_ONLY = (ds, key) ->
      ds.delete(new long[] {DataLossScenarios.addresses(ds, eq("id", key))[0]});

  private interface BatchesConsumer {
    void accept(List<VectorSchemaRoot> batches);
  }

  /** The sample rows of {@code ids}, one batch per run of consecutive ids, closed after {@code use}. */
  private static void withBatches(ScenarioTable t, List<Long> ids, BatchesConsumer use) {
    List<Long> sorted = ids.stream().sorted().toList();
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      int i = 0;
      while (i < sorted.size()) {
        int j = i + 1;
        while (j < sorted.size() && sorted.get(j) == sorted.get(j - 1) + 1) {
          j++;
        }
        batches.add(SampleTable.batch(t.allocator(), sorted.get(i), j - i));
        i = j;
      }
      use.accept(batches);
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
