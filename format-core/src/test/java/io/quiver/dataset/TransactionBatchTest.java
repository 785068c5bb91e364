package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CommitConflictException;
import io.quiver.exceptions.StaleReadVersionException;
import io.quiver.exceptions.StoreException;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.table.TransactionBatches;
import io.quiver.internal.txn.Transaction;
import io.quiver.predicate.Predicate;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Transaction batches (docs/format.md §11.4): the committer of every 64th version writes the transactions of
 * its block in one file; a commit catching up reads a batch instead of the block's version files, finds a
 * conflicting version inside one, and reads the version files when a batch is missing or damaged; a failed
 * batch write never fails the commit; cleanup removes every batch over a version it removes (also one a
 * committer writes while the cleanup runs), so a read version older than the oldest retained one stays stale.
 */
class TransactionBatchTest {
  private static final String URI_ = "test://batches";
  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  private RootAllocator allocator;
  private CleanupTestClock clock;
  private MemoryObjectStore memory;
  private Hooked store;
  private DatasetOptions options;

  /** Records reads, fails writes of keys with {@link #failWritesUnder}, and runs {@link #onDelete} on deletes. */
  static final class Hooked extends ForwardingObjectStore {
    final List<String> reads = Collections.synchronizedList(new ArrayList<>());
    volatile String failWritesUnder = "\0";
    volatile Consumer<String> onDelete = key -> {};

    Hooked(ObjectStore delegate) {
      super(delegate);
    }

    @Override
    public byte[] read(String key) {
      reads.add(key);
      return super.read(key);
    }

    @Override
    public void write(String key, byte[] data) {
      if (key.startsWith(failWritesUnder)) {
        throw new StoreException("injected write failure of " + key, null, false);
      }
      super.write(key, data);
    }

    @Override
    public void delete(String key) {
      super.delete(key);
      onDelete.accept(key);
    }

    @Override
    public List<String> deleteAll(java.util.Collection<String> keys) {
      List<String> failed = super.deleteAll(keys);
      keys.forEach(onDelete);
      return failed;
    }

    long readsUnder(String prefix) {
      synchronized (reads) {
        return reads.stream().filter(k -> k.startsWith(prefix)).count();
      }
    }
  }

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    clock = new CleanupTestClock(T0);
    memory = new MemoryObjectStore(URI_, clock);
    store = new Hooked(memory);
    ObjectStoreProvider provider = TestStores.provider("test", () -> store);
    options = DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(ObjectStores.empty().register(provider))
        .rowsPerBatch(16)
        .clock(clock)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset fresh() {
    return Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build());
  }

  private long append(Dataset ds, long id) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, id, 1)) {
      return ds.append(List.of(b));
    }
  }

  private Dataset table() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  /** Appends until the table's latest version is {@code latest}, one row (id 1000 + version) per version. */
  private void appendUntil(Dataset ds, long latest) {
    while (ds.latestVersion() < latest) {
      append(ds, 1000 + ds.latestVersion() + 1);
    }
  }

  private List<String> batchKeys() {
    return memory.listAll(TransactionBatches.PREFIX).stream().map(ObjectInfo::key).sorted().toList();
  }

  private Transaction versionTransaction(long version) {
    return MetadataCodec.decodeManifestTransaction(memory.read(ObjectStoreCommitStore.manifestKey(version)),
        "version " + version);
  }

  @Test
  void theCommitterOfEvery64thVersionWritesItsBlocksTransactionsExactly() {
    try (Dataset ds = table()) {
      appendUntil(ds, 63);
      assertThat(batchKeys()).isEmpty();
      appendUntil(ds, 64);
      assertThat(batchKeys()).containsExactly(TransactionBatches.path(1));
      appendUntil(ds, 130);
      assertThat(batchKeys()).containsExactly(TransactionBatches.path(1), TransactionBatches.path(65));
      for (long first : List.of(1L, 65L)) {
        List<Transaction> batch = MetadataCodec.decodeTransactionBatch(memory.read(TransactionBatches.path(first)),
            "batch", first, TransactionBatches.SIZE);
        for (int i = 0; i < TransactionBatches.SIZE; i++) {
          Transaction expected = versionTransaction(first + i);
          assertThat(batch.get(i).uuid()).isEqualTo(expected.uuid());
          assertThat(batch.get(i).operation()).isEqualTo(expected.operation());
          assertThat(batch.get(i).readVersion()).isEqualTo(expected.readVersion());
        }
      }
      assertThat(TransactionBatches.path(65)).isEqualTo("_txlog/00000000000000000065-00000000000000000128.txlog");
      assertThat(TransactionBatches.firstOfPath(TransactionBatches.path(65))).hasValue(65);
      assertThat(TransactionBatches.firstOfPath("_txlog/00000000000000000066-00000000000000000129.txlog")).isEmpty();
    }
  }

  @Test
  void aBlockWhoseTransactionsExceedTheCapGetsNoBatchAndIsReadFromItsVersionFiles() {
    try (Dataset ds = table()) {
      appendUntil(ds, 3);
      // Version 4 carries a 9 MiB transaction (a configuration value), version 5 drops the value again.
      String big = "x".repeat((int) TransactionBatches.MAX_BYTES + (1 << 20));
      ds.updateConfig(Map.of("note", big), Set.of());
      ds.updateConfig(Map.of(), Set.of("note"));
      appendUntil(ds, 128);
      assertThat(batchKeys()).as("block 1 holds the large transaction").containsExactly(TransactionBatches.path(65));
      try (Dataset stale = fresh()) {
        try (Dataset v2 = stale.checkout(2)) {
          assertThat(append(v2, 5000)).isEqualTo(129);
        }
      }
      try (Dataset reopened = fresh()) {
        assertThat(scanIds(reopened.newScan().open())).contains(5000L).hasSize(10 + 2 + 123 + 1);
        assertThat(reopened.manifest().config()).doesNotContainKey("note");
      }
    }
  }

  @Test
  void aSingleFileTableWritesNoBatchUntilItIsSegmentedAgain() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      ds.updateConfig(Map.of("manifest.layout", "single"), java.util.Set.of());
      appendUntil(ds, 64);
      assertThat(ds.manifest().segmented()).isFalse();
      assertThat(batchKeys()).isEmpty();
      ds.updateConfig(Map.of("manifest.layout", "segmented"), java.util.Set.of());
      appendUntil(ds, 128);
      assertThat(batchKeys()).containsExactly(TransactionBatches.path(65));
      assertThat(append(stale, 5000)).isEqualTo(129);
    }
  }

  @Test
  void catchingUpOn200VersionsReadsThreeBatchesAndTheRestOfTheVersionFiles() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      assertThat(stale.version()).isEqualTo(1);
      appendUntil(ds, 201);
      store.reads.clear();
      long committed = append(stale, 5000);
      assertThat(committed).isEqualTo(202);
      // Versions 2..200 are checked: 2..64, 65..128 and 129..192 from their batches, 193..200 one by one; 201
      // is the version built upon.
      assertThat(store.readsUnder(TransactionBatches.PREFIX)).isEqualTo(3);
      assertThat(store.readsUnder(ObjectStoreCommitStore.VERSIONS_PREFIX)).isEqualTo(8 + 1);
      try (Dataset after = fresh()) {
        assertThat(scanIds(after.newScan().open())).hasSize(10 + 200 + 1).contains(5000L, 1002L, 1201L);
      }
    }
  }

  @Test
  void aConflictingVersionInsideABatchIsFound() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      appendUntil(ds, 30);
      ds.update(Predicate.lt("id", 3L), Map.of("name", "concurrent"));
      appendUntil(ds, 100);
      store.reads.clear();
      assertThatExceptionOfType(CommitConflictException.class)
          .isThrownBy(() -> stale.update(Predicate.lt("id", 5L), Map.of("name", "stale")));
      assertThat(store.reads).contains(TransactionBatches.path(1));
      assertThat(store.reads).doesNotContain(ObjectStoreCommitStore.manifestKey(31));
      assertThat(ds.latestVersion()).isEqualTo(100);
    }
  }

  @Test
  void aMissingOrDamagedBatchIsReadAroundAndValidateReportsTheDamage() {
    try (Dataset ds = table(); Dataset stale = fresh(); Dataset stale2 = fresh()) {
      appendUntil(ds, 30);
      ds.update(Predicate.lt("id", 3L), Map.of("name", "concurrent"));
      appendUntil(ds, 140);
      // Block 1's batch damaged; block 65's replaced by block 1's (a batch under another block's name).
      byte[] first = memory.read(TransactionBatches.path(1));
      byte[] damaged = first.clone();
      damaged[damaged.length - 1] ^= 0x5a;
      memory.write(TransactionBatches.path(1), damaged);
      memory.write(TransactionBatches.path(65), first);
      store.reads.clear();
      // The conflict in version 31 is still found, from the version files.
      assertThatExceptionOfType(CommitConflictException.class)
          .isThrownBy(() -> stale.update(Predicate.lt("id", 5L), Map.of("name", "stale")));
      assertThat(store.reads).contains(ObjectStoreCommitStore.manifestKey(31), ObjectStoreCommitStore.manifestKey(100));
      // With no batch at all, an append catches up on every version file and commits on top.
      memory.delete(TransactionBatches.path(1));
      memory.delete(TransactionBatches.path(65));
      assertThat(append(stale2, 5000)).isEqualTo(141);

      memory.write(TransactionBatches.path(1), damaged);
      memory.write(TransactionBatches.path(65), first);
      assertThat(ds.checkout(20).validate().problems()).anySatisfy(p -> {
        assertThat(p.kind()).isEqualTo(ValidationReport.Kind.CORRUPT_FILE);
        assertThat(p.location()).isEqualTo(TransactionBatches.path(1));
        assertThat(p.message()).contains("checksum mismatch").contains("Delete the batch");
      });
      assertThat(ds.checkout(70).validate().problems()).anySatisfy(p -> {
        assertThat(p.location()).isEqualTo(TransactionBatches.path(65));
        assertThat(p.message()).contains("from version 1; its name says 64 from version 65");
      });
      assertThat(ds.checkout(130).validate().isValid()).isTrue();
      // A sound envelope around transactions that are not transactions: ignored by committers, reported.
      memory.write(TransactionBatches.path(65), MetadataCodec.encodeTransactionBatch(65,
          Collections.nCopies(TransactionBatches.SIZE, com.google.protobuf.ByteString.copyFrom(new byte[] {(byte) 0xff, 0x7f}))));
      try (Dataset stale3 = fresh()) {
        assertThat(append(stale3.checkout(66), 6000)).isEqualTo(142);
      }
      assertThat(ds.checkout(70).validate().problems()).anySatisfy(p -> {
        assertThat(p.location()).isEqualTo(TransactionBatches.path(65));
        assertThat(p.kind()).isEqualTo(ValidationReport.Kind.CORRUPT_FILE);
      });
    }
  }

  @Test
  void aBatchThatCannotBeWrittenLeavesTheCommitCommitted() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      appendUntil(ds, 63);
      store.failWritesUnder = TransactionBatches.PREFIX;
      assertThat(append(ds, 64_000)).isEqualTo(64);
      assertThat(batchKeys()).isEmpty();
      store.failWritesUnder = "\0";
      appendUntil(ds, 70);
      assertThat(append(stale, 5000)).isEqualTo(71);
      try (Dataset after = fresh()) {
        assertThat(scanIds(after.newScan().open())).contains(64_000L, 5000L).hasSize(10 + 69 + 1);
      }
    }
  }

  @Test
  void cleanupRemovesEveryBatchOverARemovedVersionEvenOneWrittenWhileItRuns() {
    try (Dataset ds = table(); Dataset stale = fresh()) {
      appendUntil(ds, 100);
      clock.advance(Duration.ofDays(10));
      appendUntil(ds, 200);
      assertThat(batchKeys()).containsExactly(TransactionBatches.path(1), TransactionBatches.path(65),
          TransactionBatches.path(129));
      // A committer that read block 1's versions before the cleanup writes its batch as the cleanup removes them.
      byte[] late = memory.read(TransactionBatches.path(1));
      AtomicBoolean written = new AtomicBoolean();
      store.onDelete = key -> {
        if (key.equals(ObjectStoreCommitStore.manifestKey(50)) && written.compareAndSet(false, true)) {
          memory.write(TransactionBatches.path(1), late);
        }
      };
      CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(7)).build());
      assertThat(written).isTrue();
      assertThat(report.versionsRemoved()).hasSize(100);
      // 1..64 and 65..128 held removed versions; 129..192 is whole.
      assertThat(batchKeys()).containsExactly(TransactionBatches.path(129));
      // So the handle at version 1 cannot commit: versions after it are gone, with no batch that holds them.
      StaleReadVersionException e = assertThatExceptionOfType(StaleReadVersionException.class)
          .isThrownBy(() -> append(stale, 5000)).actual();
      assertThat(e.getMessage()).contains("removed by a cleanup");
      assertThat(ds.latestVersion()).isEqualTo(200);
      // A handle on a retained version catches up through the whole batch and commits.
      try (Dataset at = fresh()) {
        assertThat(append(at.checkout(101), 6000)).isEqualTo(201);
      }
    }
  }
}
