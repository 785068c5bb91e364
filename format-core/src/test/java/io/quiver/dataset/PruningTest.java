package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.internal.proto.ManifestFile;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pruning on clustered data: the metrics say how many fragments and batches the statistics skipped; task
 * statistics survive the encoding; hostile statistics (contradictory manifest entries, a damaged zone blob)
 * never change a result.
 */
class PruningTest {
  private BufferAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;
  private Dataset ds;

  /** Ids 0..999 (the sample table), 10 fragments of 100 rows, file batches of 10 rows. */
  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 10).toBuilder().maxRowsPerFragment(100).build();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 1000)) {
      ds = Dataset.create(OverlayTestSupport.URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  @AfterEach
  void tearDown() {
    ds.close();
    allocator.close();
  }

  private static List<Long> ids(ArrowReader reader) {
    List<Long> out = new ArrayList<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        org.apache.arrow.vector.BigIntVector id = (org.apache.arrow.vector.BigIntVector) root.getVector("id");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(id.get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static final Predicate NARROW = Predicate.and(Predicate.ge("id", 505L), Predicate.lt("id", 515L));

  @Test
  void fragmentsAndBatchesOutsideTheBoundsAreNotRead() {
    ScanMetrics m = new ScanMetrics();
    assertThat(ids(ds.newScan().filter(NARROW).metrics(m).open())).isEqualTo(SampleTable.range(505, 515));
    assertThat(m.fragmentsConsidered()).isEqualTo(10);
    assertThat(m.fragmentsPruned()).isEqualTo(9);
    assertThat(m.batchesConsidered()).isEqualTo(10);
    assertThat(m.batchesPruned()).as("batches 500..509 and 510..519 are read").isEqualTo(8);
    assertThat(m.dataFilesOpened()).isEqualTo(1);

    ScanMetrics full = new ScanMetrics();
    assertThat(ids(ds.newScan().columns("id").metrics(full).open())).hasSize(1000);
    ScanMetrics narrow = new ScanMetrics();
    ids(ds.newScan().columns("id").filter(NARROW).metrics(narrow).open());
    assertThat(narrow.bytesFetched()).isLessThan(full.bytesFetched() / 10);

    ScanMetrics planning = new ScanMetrics();
    List<ScanTask> tasks = ds.newScan().filter(NARROW).metrics(planning).planTasks();
    assertThat(tasks).hasSize(1);
    assertThat(planning.fragmentsPruned()).isEqualTo(9);
    ScanMetrics reading = new ScanMetrics();
    assertThat(ids(ScanTask.decode(tasks.get(0).encode()).open(ds, allocator, reading)))
        .isEqualTo(SampleTable.range(505, 515));
    assertThat(reading.batchesPruned()).isEqualTo(8);
  }

  @Test
  void everyOperatorPrunesWhatCannotMatchAndNothingElse() {
    record Case(Predicate p, int fragmentsRead) {}
    List<Case> cases = List.of(
        new Case(Predicate.eq("id", 250L), 1),
        new Case(Predicate.eq("id", 250), 1), // an Integer literal on an int64 column
        new Case(Predicate.eq("id", 250.5), 1), // bounds cannot tell that no integer equals 250.5
        new Case(Predicate.lt("id", 100L), 1),
        new Case(Predicate.le("id", 100L), 2),
        new Case(Predicate.gt("id", 899L), 1),
        new Case(Predicate.ge("id", 899L), 2),
        new Case(Predicate.ne("id", 5L), 10),
        new Case(Predicate.in("id", 5L, 705L, 5000L), 2),
        new Case(Predicate.in("id"), 0),
        new Case(Predicate.not(Predicate.in("id")), 10),
        new Case(Predicate.not(Predicate.ge("id", 100L)), 1),
        new Case(Predicate.or(Predicate.lt("id", 100L), Predicate.gt("id", 899L)), 2),
        new Case(Predicate.isNull("id"), 0),
        new Case(Predicate.isNotNull("name"), 10),
        new Case(Predicate.gt("s.x", 2990), 1), // x = 3 * id: only 997..999 (x 2991..2997)
        new Case(Predicate.eq("name", "name-5"), 10), // checked for rows only (strings sort by bytes)
        new Case(Predicate.and(Predicate.ge("id", 300L), Predicate.isNull("id")), 0));
    for (Case c : cases) {
      ScanMetrics m = new ScanMetrics();
      List<Long> got = ids(ds.newScan().filter(c.p()).metrics(m).open());
      List<Long> expected = new ArrayList<>();
      try (ArrowReader r = ds.newScan().open()) {
        while (r.loadNextBatch()) {
          java.util.BitSet hits = c.p().evaluate(r.getVectorSchemaRoot());
          org.apache.arrow.vector.BigIntVector id = (org.apache.arrow.vector.BigIntVector) r.getVectorSchemaRoot().getVector("id");
          hits.stream().forEach(i -> expected.add(id.get(i)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      assertThat(got).as(c.p().toString()).isEqualTo(expected);
      if (!c.p().toString().contains("name")) {
        assertThat(10 - m.fragmentsPruned()).as("fragments read for " + c.p()).isEqualTo(c.fragmentsRead());
      }
    }
  }

  @Test
  void taskStatisticsCarryTheBoundsOfTheFieldsRead() {
    ScanTask task = ds.newScan().columns("name").filter(Predicate.lt("id", 50L)).planTasks().get(0);
    TaskStatistics stats = ScanTask.decode(task.encode()).statistics();
    assertThat(stats).isEqualTo(task.statistics());
    assertThat(stats.rowCount()).isEqualTo(100);
    int id = ds.schema().findField("id").orElseThrow().id();
    FieldBounds bounds = stats.field(id).orElseThrow();
    assertThat(bounds.lower()).contains(new StatValue.Int(0));
    assertThat(bounds.upper()).contains(new StatValue.Int(99));
    assertThat(bounds.tight()).isTrue();
    assertThat(bounds.nullCount()).hasValue(0);
    int name = ds.schema().findField("name").orElseThrow().id();
    assertThat(stats.field(name).orElseThrow().mayHaveNulls()).isTrue();
  }

  private void rewriteLatestManifest(Consumer<ManifestFile.Builder> edit) {
    String key = ObjectStoreCommitStore.manifestKey(ds.version());
    io.quiver.internal.codec.ManifestBytes.rewrite(store, key, edit);
  }

  @Test
  void contradictoryStatisticsInTheManifestAreIgnoredNotBelieved() {
    // Bounds of another kind than the column's (bytes for an int64), and a lower bound above the upper: the
    // field reads as unknown, so the fragment is read and the filter decides.
    rewriteLatestManifest(b -> {
      var stats = b.getManifestBuilder().getFragmentsBuilder(2).getFilesBuilder(0).getStatsBuilder();
      for (int i = 0; i < stats.getColumnsCount(); i++) {
        var c = stats.getColumnsBuilder(i);
        if (c.getFieldId() == 1) {
          c.getLowerBuilder().setBytesValue(com.google.protobuf.ByteString.copyFromUtf8("x"));
          c.getUpperBuilder().setBytesValue(com.google.protobuf.ByteString.copyFromUtf8("y"));
        }
      }
      var other = b.getManifestBuilder().getFragmentsBuilder(3).getFilesBuilder(0).getStatsBuilder();
      for (int i = 0; i < other.getColumnsCount(); i++) {
        var c = other.getColumnsBuilder(i);
        if (c.getFieldId() == 1) {
          c.getLowerBuilder().setIntValue(1000);
          c.getUpperBuilder().setIntValue(-1000);
        }
      }
    });
    try (Dataset reopened = Dataset.open(OverlayTestSupport.URI_, options)) {
      assertThat(ids(reopened.newScan().filter(Predicate.eq("id", 250L)).open())).containsExactly(250L);
      assertThat(ids(reopened.newScan().filter(Predicate.eq("id", 350L)).open())).containsExactly(350L);
    }
  }

  @Test
  void impossibleCountsInTheManifestAreACorruptManifest() {
    rewriteLatestManifest(b -> b.getManifestBuilder().getFragmentsBuilder(0).getFilesBuilder(0).getStatsBuilder()
        .getColumnsBuilder(0).setNullCount(1_000_000));
    org.assertj.core.api.Assertions.assertThatExceptionOfType(io.quiver.exceptions.CorruptFileException.class)
        .isThrownBy(() -> Dataset.open(OverlayTestSupport.URI_, options).close())
        .withMessageContaining(ObjectStoreCommitStore.manifestKey(ds.version()));
  }

  @Test
  void aDamagedZoneStatisticsBlobIsIgnored() throws IOException {
    String key = ds.manifest().fragments().get(5).files().get(0).path();
    byte[] file = store.read(key);
    String blob;
    try (var reader = new org.apache.arrow.vector.ipc.ArrowFileReader(
        new org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel(file), allocator)) {
      reader.getRecordBlocks(); // reads the footer
      blob = reader.getMetaData().get(io.quiver.internal.file.DataFileWriter.ZONE_STATS_KEY);
    }
    byte[] needle = blob.getBytes(StandardCharsets.US_ASCII);
    int at = indexOf(file, needle);
    assertThat(at).isPositive();
    for (int i = 0; i < needle.length; i++) {
      file[at + i] = '!'; // not base64: the blob does not decode
    }
    store.write(key, file);
    try (Dataset reopened = Dataset.open(OverlayTestSupport.URI_, DatasetOptions.builder()
        .allocator(allocator).session(new Session(1 << 20))
        .registry(io.quiver.store.ObjectStores.empty().register(io.quiver.store.TestStores.provider("test", () -> store)))
        .build())) {
      ScanMetrics m = new ScanMetrics();
      assertThat(ids(reopened.newScan().filter(NARROW).metrics(m).open())).isEqualTo(SampleTable.range(505, 515));
      assertThat(m.batchesConsidered()).isEqualTo(10);
      assertThat(m.batchesPruned()).as("no zone statistics: every batch of the fragment is read").isZero();
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
