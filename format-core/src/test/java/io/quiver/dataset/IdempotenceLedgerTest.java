package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
      assertThat(ledger(ds)).isEqualTo(new CommitLedger(Map.of(), Map.of(), 1, 1));
      assertThat(ds.manifest().writerFeatures())
          .containsExactlyInAnyOrder(CommitLedger.WRITER_FEATURE, io.quiver.manifest.Manifest.SEGMENTED_FEATURE);
      assertThat(keyed(ds, 10, 3, "k1")).isEqualTo(2);
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
      assertThat(l.find("k1").orElseThrow().version()).as("a restore of version 1 keeps the key committed later").isEqualTo(2);
      assertThat(l.lastReplaceVersion()).isEqualTo(restored);
      assertThat(l.completeFromVersion()).isEqualTo(1);
      // The restored content lacks k1's rows, but k1 is committed: a retry is not a second commit.
      assertThat(keyed(ds, 10, 3, "k1")).isEqualTo(2);
      assertThat(scanIds(ds.checkoutLatest().newScan().open())).isEqualTo(range(0, 10));
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 50, 2)) {
        ds.overwrite(SampleTable.SCHEMA, List.of(b));
      }
      assertThat(ledger(ds).find("k1").orElseThrow().version()).isEqualTo(2);
      assertThat(ledger(ds).lastReplaceVersion()).isEqualTo(ds.version());
    }
  }

  @Test
  void keysExpireAfterTheRetentionAndThenLookUpsSayUnknownNeverNotCommitted() {
    try (Dataset ds = create()) {
      ds.updateConfig(Map.of(LedgerUpdate.RETENTION_CONFIG, "1h"), Set.of());
      assertThat(keyed(ds, 10, 2, "old")).isEqualTo(3);
      clock.advance(Duration.ofMinutes(30));
      assertThat(keyed(ds, 20, 2, "young")).isEqualTo(4);
      clock.advance(Duration.ofMinutes(45)); // "old" is 75 minutes old, "young" 45
      assertThat(append(ds, 30, 1)).isEqualTo(5);
      CommitLedger l = ledger(ds);
      assertThat(l.find("old").isPresent()).isFalse();
      assertThat(l.find("young").orElseThrow().version()).isEqualTo(4);
      assertThat(l.completeFromVersion()).as("complete only after the expired entry").isEqualTo(4);
      assertThat(ds.distributed().findCommit("old", 0).status()).isEqualTo(CommitLookup.Status.UNKNOWN);
      assertThat(ds.distributed().findCommit("old", 2).status()).isEqualTo(CommitLookup.Status.UNKNOWN);
      assertThat(ds.distributed().findCommit("old", 3).status()).as("an attempt read at version 3 could only have committed at 4 or later, which the ledger covers").isEqualTo(CommitLookup.Status.NOT_COMMITTED);
      assertThat(ds.distributed().findCommit("young", 0).version()).isEqualTo(4);
      assertThat(ds.distributed().findCommit("old", 0).toString()).contains("unknown").contains("expired");
    }
  }

  @Test
  void theLedgerIsBoundedAndTheBoundMovesTheCompletenessMark() {
    try (Dataset ds = create()) {
      ds.updateConfig(Map.of(LedgerUpdate.MAX_KEYS_CONFIG, "3"), Set.of()); // v2
      for (int i = 0; i < 5; i++) {
        assertThat(keyed(ds, 100 + i, 1, "k" + i)).isEqualTo(3 + i); // v3..v7
      }
      CommitLedger l = ledger(ds);
      assertThat(new ArrayList<>(l.keys().keySet())).isEqualTo(List.of("k2", "k3", "k4"));
      assertThat(l.completeFromVersion()).isEqualTo(5);
      assertThat(ds.distributed().findCommit("k0", 0).status()).isEqualTo(CommitLookup.Status.UNKNOWN);
      assertThat(ds.distributed().findCommit("k4", 0).version()).isEqualTo(7);
    }
  }

  @Test
  void ledgerConfigurationIsCheckedWhenSet() {
    try (Dataset ds = create()) {
      InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.updateConfig(Map.of(LedgerUpdate.RETENTION_CONFIG, "a week"), Set.of())).actual();
      assertThat(e.getMessage()).contains("idempotence.retention").contains("'7d'");
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.updateConfig(Map.of(LedgerUpdate.MAX_KEYS_CONFIG, "0"), Set.of()));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.updateConfig(Map.of(LedgerUpdate.MAX_KEYS_CONFIG, "1000000"), Set.of()));
      ds.updateConfig(Map.of(LedgerUpdate.RETENTION_CONFIG, "P30D", LedgerUpdate.MAX_KEYS_CONFIG, "50"), Set.of());
      assertThat(ds.latestVersion() - 1).isEqualTo(1);
    }
  }

  @Test
  void aKeyedRetryFromAHandleWhoseSuccessorsWereCleanedUpIsRecognisedNotRefused() {
    try (Dataset ds = create(); Dataset stale = Dataset.open(URI_, options);
        Dataset unkeyed = Dataset.open(URI_, options)) {
      assertThat(keyed(ds, 10, 4, "job/1")).isEqualTo(2);
      for (int i = 0; i < 3; i++) {
        append(ds, 20 + i, 1);
      }
      clock.advance(Duration.ofHours(2));
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
      // The stale handle (version 1) cannot see versions 2..4 any more, but the latest ledger answers.
      assertThat(keyed(stale, 10, 4, "job/1")).isEqualTo(2);
      assertThat(stale.version()).as("the handle moved to the latest version, which holds its commit").isEqualTo(5);
      // Without a key, a stale commit cannot be checked against the removed versions: refused (B9).
      assertThatExceptionOfType(StaleReadVersionException.class).isThrownBy(() -> append(unkeyed, 90, 1));
      assertThat(ds.latestVersion()).isEqualTo(5);
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
      assertThat(ds.distributed().commit(List.of(a, b), WriteMode.APPEND, keyed)).isEqualTo(2);
      assertThat(ds.distributed().commit(List.of(b, a), WriteMode.APPEND, keyed)).isEqualTo(2);
      assertThat(WriteResult.appendDigest(List.of(b, a))).isEqualTo(WriteResult.appendDigest(List.of(a, b)));
      assertThat(ds.distributed().findCommit("k", 0).commit().orElseThrow().operationDigest()).isEqualTo(WriteResult.appendDigest(List.of(a, b)));
      // One row different: another digest, a typed error.
      IdempotenceKeyConflictException e = assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> keyed(ds, 10, 9, "k")).actual();
      assertThat(e.getMessage()).contains("differs");
      assertThat(ds.latestVersion()).isEqualTo(2);
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
      MetadataCodec.EncodedVersion encoded = MetadataCodec.encodeVersion(future,
          MetadataCodec.decodeManifestTransaction(store.read(ObjectStoreCommitStore.manifestKey(1)), "v1"));
      encoded.root().ifPresent(r -> store.write(r.path(), r.bytes()));
      store.putIfAbsent(ObjectStoreCommitStore.manifestKey(2), encoded.versionFile());
      try (Dataset latest = Dataset.open(URI_, options)) {
        assertThat(latest.version()).as("readers need no writer feature").isEqualTo(2);
        UnsupportedFormatException e = assertThatExceptionOfType(UnsupportedFormatException.class).isThrownBy(() -> append(latest, 10, 1)).actual();
        assertThat(e.getMessage()).contains("future-feature").contains("upgrade Quiver");
        assertThat(latest.latestVersion()).isEqualTo(txn.version() + 1);
      }
    }
  }

  @Test
  void applicationWatermarksExpireLikeKeys() {
    try (Dataset ds = create()) {
      ds.updateConfig(Map.of(LedgerUpdate.RETENTION_CONFIG, "1h"), Set.of());
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 10, 1)) {
        assertThat(ds.append(List.of(b), CommitOptions.defaults().withApplicationSequence("app", 5))).isEqualTo(3);
      }
      assertThat(ds.distributed().applicationWatermark("app").isPresent()).isTrue();
      clock.advance(Duration.ofHours(2));
      append(ds, 20, 1);
      assertThat(ds.distributed().applicationWatermark("app").isEmpty()).isTrue();
      assertThat(ledger(ds).completeFromVersion()).isEqualTo(4);
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> CommitOptions.defaults().withApplicationSequence("app", -1));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.distributed().applicationWatermark(""));
    }
  }
}
