package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.exceptions.UnsupportedFormatException;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.txn.LedgerUpdate;
import io.quiver.manifest.CommitLedger;
import io.quiver.manifest.Manifest;
import io.quiver.scenario.ScenarioTable.ManualClock;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The idempotence ledger: carried by every operation, expired by retention, bounded, and refused by old writers. */
class IdempotenceLedgerTest {
  private static final String URI_ = "memory://ledger";

  private RootAllocator allocator;
  private ManualClock clock;
  private MemoryObjectStore store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));
    store = new MemoryObjectStore(URI_, clock);
    options = DatasetOptions.builder()
        .allocator(allocator)
        .registry(TestStores.registry("memory", TestStores.keepOpen(store)))
        .session(new Session(1 << 20))
        .clock(clock)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private long keyed(Dataset ds, long from, int rows, String key) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b), CommitOptions.defaults().withIdempotenceKey(key));
    }
  }

  private long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  private CommitLedger ledger(Dataset ds) {
    return ds.checkoutLatest().manifest().ledger().orElseThrow();
  }

  @Test
  void everyOperationCarriesTheLedgerForwardAndRestoreKeepsTheNewestOne() {
    try (Dataset ds = create()) {
      assertEquals(new CommitLedger(Map.of(), Map.of(), 1, 1), ledger(ds));
      assertThat(ds.manifest().writerFeatures()).containsExactly(CommitLedger.WRITER_FEATURE);
      assertEquals(2, keyed(ds, 10, 3, "k1"));
      ds.delete(io.quiver.predicate.Predicate.eq("id", 1L));
      ds.update(io.quiver.predicate.Predicate.eq("id", 2L), Map.of("name", "two"));
      ds.updateConfig(Map.of("owner", "me"), Set.of());
      ds.compact(CompactionOptions.defaults());
      ds.columns().add(List.of(new org.apache.arrow.vector.types.pojo.Field("score",
          org.apache.arrow.vector.types.pojo.FieldType.nullable(new org.apache.arrow.vector.types.pojo.ArrowType.Int(32,
              true)), null)));
      ds.columns().drop("score");
      long restored = ds.restore(1);
      CommitLedger l = ledger(ds);
      assertEquals(2, l.find("k1").orElseThrow().version(), "a restore of version 1 keeps the key committed later");
      assertEquals(restored, l.lastReplaceVersion());
      assertEquals(1, l.completeFromVersion());
      // The restored content lacks k1's rows, but k1 is committed: a retry is not a second commit.
      assertEquals(2, keyed(ds, 10, 3, "k1"));
      assertEquals(range(0, 10), scanIds(ds.checkoutLatest().newScan().open()));
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 50, 2)) {
        ds.overwrite(SampleTable.SCHEMA, List.of(b));
      }
      assertEquals(2, ledger(ds).find("k1").orElseThrow().version());
      assertEquals(ds.version(), ledger(ds).lastReplaceVersion());
    }
  }

  @Test
  void keysExpireAfterTheRetentionAndThenLookUpsSayUnknownNeverNotCommitted() {
    try (Dataset ds = create()) {
      ds.updateConfig(Map.of(LedgerUpdate.RETENTION_CONFIG, "1h"), Set.of());
      assertEquals(3, keyed(ds, 10, 2, "old"));
      clock.advance(Duration.ofMinutes(30));
      assertEquals(4, keyed(ds, 20, 2, "young"));
      clock.advance(Duration.ofMinutes(45)); // "old" is 75 minutes old, "young" 45
      assertEquals(5, append(ds, 30, 1));
      CommitLedger l = ledger(ds);
      assertFalse(l.find("old").isPresent());
      assertEquals(4, l.find("young").orElseThrow().version());
      assertEquals(4, l.completeFromVersion(), "complete only after the expired entry");
      assertEquals(CommitLookup.Status.UNKNOWN, ds.distributed().findCommit("old", 0).status());
      assertEquals(CommitLookup.Status.UNKNOWN, ds.distributed().findCommit("old", 2).status());
      assertEquals(CommitLookup.Status.NOT_COMMITTED, ds.distributed().findCommit("old", 3).status(),
          "an attempt read at version 3 could only have committed at 4 or later, which the ledger covers");
      assertEquals(4, ds.distributed().findCommit("young", 0).version());
      assertThat(ds.distributed().findCommit("old", 0).toString()).contains("unknown").contains("expired");
    }
  }

  @Test
  void theLedgerIsBoundedAndTheBoundMovesTheCompletenessMark() {
    try (Dataset ds = create()) {
      ds.updateConfig(Map.of(LedgerUpdate.MAX_KEYS_CONFIG, "3"), Set.of()); // v2
      for (int i = 0; i < 5; i++) {
        assertEquals(3 + i, keyed(ds, 100 + i, 1, "k" + i)); // v3..v7
      }
      CommitLedger l = ledger(ds);
      assertEquals(List.of("k2", "k3", "k4"), new ArrayList<>(l.keys().keySet()));
      assertEquals(5, l.completeFromVersion());
      assertEquals(CommitLookup.Status.UNKNOWN, ds.distributed().findCommit("k0", 0).status());
      assertEquals(7, ds.distributed().findCommit("k4", 0).version());
    }
  }

  @Test
  void ledgerConfigurationIsCheckedWhenSet() {
    try (Dataset ds = create()) {
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
          () -> ds.updateConfig(Map.of(LedgerUpdate.RETENTION_CONFIG, "a week"), Set.of()));
      assertThat(e.getMessage()).contains("idempotence.retention").contains("'7d'");
      assertThrows(InvalidArgumentException.class,
          () -> ds.updateConfig(Map.of(LedgerUpdate.MAX_KEYS_CONFIG, "0"), Set.of()));
      assertThrows(InvalidArgumentException.class,
          () -> ds.updateConfig(Map.of(LedgerUpdate.MAX_KEYS_CONFIG, "1000000"), Set.of()));
      ds.updateConfig(Map.of(LedgerUpdate.RETENTION_CONFIG, "P30D", LedgerUpdate.MAX_KEYS_CONFIG, "50"), Set.of());
      assertEquals(1, ds.latestVersion() - 1);
    }
  }

  @Test
  void aKeyedRetryFromAHandleWhoseSuccessorsWereCleanedUpIsRecognisedNotRefused() {
    try (Dataset ds = create(); Dataset stale = Dataset.open(URI_, options);
        Dataset unkeyed = Dataset.open(URI_, options)) {
      assertEquals(2, keyed(ds, 10, 4, "job/1"));
      for (int i = 0; i < 3; i++) {
        append(ds, 20 + i, 1);
      }
      clock.advance(Duration.ofHours(2));
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
      // The stale handle (version 1) cannot see versions 2..4 any more, but the latest ledger answers.
      assertEquals(2, keyed(stale, 10, 4, "job/1"));
      assertEquals(5, stale.version(), "the handle moved to the latest version, which holds its commit");
      // Without a key, a stale commit cannot be checked against the removed versions: refused (B9).
      assertThrows(StaleReadVersionException.class, () -> append(unkeyed, 90, 1));
      assertEquals(5, ds.latestVersion());
    }
  }

  @Test
  void aRetryWithTheSameKeyAndRowsInAnotherOrderIsTheSameCommit() {
    try (Dataset ds = create()) {
      WriteResult a;
      WriteResult b;
      try (DistributedWriter w = ds.distributed().newWriter()) {
        try (VectorSchemaRoot x = SampleTable.batch(allocator, 10, 5)) {
          a = w.write(List.of(x));
        }
        try (VectorSchemaRoot y = SampleTable.batch(allocator, 15, 5)) {
          b = w.write(List.of(y));
        }
      }
      CommitOptions keyed = CommitOptions.defaults().withIdempotenceKey("k");
      assertEquals(2, ds.distributed().commit(List.of(a, b), WriteMode.APPEND, keyed));
      assertEquals(2, ds.distributed().commit(List.of(b, a), WriteMode.APPEND, keyed));
      assertEquals(WriteResult.appendDigest(List.of(a, b)), WriteResult.appendDigest(List.of(b, a)));
      assertEquals(WriteResult.appendDigest(List.of(a, b)), ds.distributed().findCommit("k", 0).commit().orElseThrow().operationDigest());
      // One row different: another digest, a typed error.
      IdempotenceKeyConflictException e = assertThrows(IdempotenceKeyConflictException.class,
          () -> keyed(ds, 10, 9, "k"));
      assertThat(e.getMessage()).contains("differs");
      assertEquals(2, ds.latestVersion());
    }
  }

  @Test
  void aWriterThatDoesNotKnowAFeatureRefusesToCommitAndNamesIt() {
    try (Dataset ds = create()) {
      Manifest m = ds.manifest();
      Set<String> features = new java.util.TreeSet<>(m.writerFeatures());
      features.add("future-feature");
      Manifest future = new Manifest(m.version() + 1, m.schema(), m.fragments(), m.maxFragmentId(), m.maxFieldId(),
          m.timestamp(), m.writerVersion(), m.config(), m.transactionUuid(), m.transactionPath(), m.readerFeatures(),
          features, m.ledger());
      var txn = ds.checkoutLatest().manifest();
      byte[] bytes = MetadataCodec.encodeManifest(future,
          io.quiver.internal.codec.MetadataCodec.decodeManifest(store.read(ObjectStoreCommitStore.manifestKey(1)), "v1")
              .transaction());
      store.putIfAbsent(ObjectStoreCommitStore.manifestKey(2), bytes);
      try (Dataset latest = Dataset.open(URI_, options)) {
        assertEquals(2, latest.version(), "readers need no writer feature");
        UnsupportedFormatException e = assertThrows(UnsupportedFormatException.class, () -> append(latest, 10, 1));
        assertThat(e.getMessage()).contains("future-feature").contains("upgrade Quiver");
        assertEquals(txn.version() + 1, latest.latestVersion());
      }
    }
  }

  @Test
  void applicationWatermarksExpireLikeKeys() {
    try (Dataset ds = create()) {
      ds.updateConfig(Map.of(LedgerUpdate.RETENTION_CONFIG, "1h"), Set.of());
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 10, 1)) {
        assertEquals(3, ds.append(List.of(b), CommitOptions.defaults().withApplicationSequence("app", 5)));
      }
      assertTrue(ds.distributed().applicationWatermark("app").isPresent());
      clock.advance(Duration.ofHours(2));
      append(ds, 20, 1);
      assertTrue(ds.distributed().applicationWatermark("app").isEmpty());
      assertEquals(4, ledger(ds).completeFromVersion());
      assertThrows(InvalidArgumentException.class,
          () -> CommitOptions.defaults().withApplicationSequence("app", -1));
      assertThrows(InvalidArgumentException.class, () -> ds.distributed().applicationWatermark(""));
    }
  }
}
