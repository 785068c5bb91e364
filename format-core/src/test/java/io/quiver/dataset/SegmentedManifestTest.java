package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.codec.ManifestBytes;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Segment;
import io.quiver.predicate.Predicate;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Segmented manifests (format 1.2): with segments small enough (merge factor 2, at most 4 fragments) that every
 * commit merges or splits something, every version reads back exactly, a commit writes only the segments it
 * changes, catching up reads only version files, cleanup follows segment references, and damaged or missing
 * roots and segments are typed errors naming the file.
 */
class SegmentedManifestTest {
  private static final String URI_ = DeleteTest.URI_;
  private static final Map<String, String> SMALL =
      Map.of("manifest.segment.merge-factor", "2", "manifest.segment.max-fragments", "4");

  private RootAllocator allocator;
  private MemoryObjectStore memory;
  private Recording store;
  private DatasetOptions options;

  /** Records the keys read and written through it. */
  static final class Recording extends ForwardingObjectStore {
    final List<String> reads = Collections.synchronizedList(new ArrayList<>());
    final List<String> writes = Collections.synchronizedList(new ArrayList<>());

    Recording(ObjectStore delegate) {
      super(delegate);
    }

    @Override
    public byte[] read(String key) {
      reads.add(key);
      return super.read(key);
    }

    @Override
    public void write(String key, byte[] data) {
      writes.add(key);
      super.write(key, data);
    }

    void reset() {
      reads.clear();
      writes.clear();
    }
  }

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    memory = new MemoryObjectStore(URI_);
    store = new Recording(memory);
    options = DeleteTest.options(store, allocator);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset create(long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  private long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  private Dataset smallSegments() {
    Dataset ds = create(0, 10);
    ds.updateConfig(SMALL, Set.of());
    return ds;
  }

  private Set<String> keys(String prefix) {
    return memory.listAll(prefix).stream().map(ObjectInfo::key).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The layout's invariants at one version: bounded segments, a short inline tail, ids in order. */
  private static void checkLayout(Manifest m) {
    assertThat(m.segmented()).isTrue();
    assertThat(m.readerFeatures()).contains(Manifest.SEGMENTED_FEATURE);
    long previous = -1;
    for (Segment s : m.segments()) {
      assertThat(s.fragmentCount()).isBetween(1L, 4L);
      assertThat(s.firstFragmentId()).isGreaterThan(previous);
      previous = s.lastFragmentId();
    }
    List<Fragment> all = m.fragments();
    assertThat(all.stream().map(Fragment::id).toList()).isSorted().doesNotHaveDuplicates();
    assertThat(((io.quiver.manifest.FragmentList) all).inline()).hasSizeLessThan(2);
    // Tiers of 1, 2 and 4 fragments: never more than one of each below the top besides full segments.
    long small = m.segments().stream().filter(s -> s.fragmentCount() < 4).count();
    assertThat(small).as("segments below the maximum in " + m.segments()).isLessThanOrEqualTo(2);
  }

  @Test
  void appendsMergeTierByTierAndEveryVersionReadsBackExactly() {
    List<Long> expected = new ArrayList<>(range(0, 10));
    try (Dataset ds = smallSegments()) {
      for (int i = 0; i < 21; i++) {
        long from = 100 + i * 10L;
        append(ds, from, 3);
        expected.addAll(range(from, from + 3));
        checkLayout(ds.manifest());
        assertThat(scanIds(ds.newScan().open())).isEqualTo(expected);
      }
      assertThat(ds.manifest().segments()).hasSizeGreaterThan(4);
      assertThat(ds.manifest().liveRows()).isEqualTo(expected.size());
      // Time travel: an older version still names segments that later merges replaced.
      try (Dataset v5 = ds.checkout(5)) {
        checkLayout(v5.manifest());
        assertThat(scanIds(v5.newScan().open())).isEqualTo(expected.subList(0, 10 + 3 * 3));
      }
      try (Dataset reopened = Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build())) {
        assertThat(scanIds(reopened.newScan().open())).isEqualTo(expected);
        assertThat(reopened.validate().isValid()).isTrue();
      }
    }
  }

  @Test
  void aCommitWritesOnlyTheSegmentsItChanges() {
    try (Dataset ds = smallSegments()) {
      for (int i = 0; i < 16; i++) {
        append(ds, 100 + i * 10L, 3);
      }
      Manifest before = ds.manifest();
      Segment first = before.segments().get(0);
      store.reset();
      // Deletes one row of the first fragment: only the first segment is rewritten.
      ds.delete(Predicate.eq("id", 1L));
      Manifest after = ds.manifest();
      List<String> segmentWrites = store.writes.stream().filter(k -> k.endsWith(".segment")).toList();
      assertThat(segmentWrites).hasSize(1);
      assertThat(after.segments().get(0).path()).isNotEqualTo(first.path()).isEqualTo(segmentWrites.get(0));
      assertThat(after.segments().subList(1, after.segments().size()))
          .isEqualTo(before.segments().subList(1, before.segments().size()));
      // An append that fills no tier writes no segment at all: the root and the version file.
      store.reset();
      if (((io.quiver.manifest.FragmentList) after.fragments()).inline().isEmpty()) {
        append(ds, 1000, 1);
        assertThat(store.writes.stream().filter(k -> k.startsWith(Segment.PREFIX))).isEmpty();
        assertThat(store.writes.stream().filter(k -> k.startsWith(MetadataCodec.ROOTS_PREFIX))).hasSize(1);
      }
    }
  }

  @Test
  void catchingUpReadsOnlyTheVersionFilesInBetweenAndTheLatestRoot() {
    try (Dataset ds = smallSegments()) {
      for (int i = 0; i < 8; i++) {
        append(ds, 100 + i * 10L, 3);
      }
      try (Dataset stale = Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build())) {
        long read = stale.version();
        for (int i = 0; i < 6; i++) {
          append(ds, 500 + i * 10L, 1);
        }
        String latestRoot = MetadataCodec.rootPath(read + 6, ds.manifest().transactionUuid());
        store.reset();
        long committed = append(stale, 900, 1);
        assertThat(committed).isEqualTo(read + 7);
        Set<String> roots = store.reads.stream().filter(k -> k.startsWith(MetadataCodec.ROOTS_PREFIX))
            .collect(Collectors.toSet());
        assertThat(roots).as("only the root built upon").containsExactly(latestRoot);
        long versionReads = store.reads.stream().filter(k -> k.startsWith(ObjectStoreCommitStore.VERSIONS_PREFIX))
            .count();
        assertThat(versionReads).as("each version in between, once").isEqualTo(6);
        Set<String> stillListed = new HashSet<>();
        stale.manifest().segments().forEach(seg -> stillListed.add(seg.path()));
        assertThat(store.reads.stream().filter(k -> k.startsWith(Segment.PREFIX)))
            .as("the only segments read are those the append merged away").noneMatch(stillListed::contains);
      }
    }
  }

  @Test
  void cleanupKeepsExactlyTheSegmentsAKeptVersionNames() {
    try (Dataset ds = smallSegments()) {
      for (int i = 0; i < 12; i++) {
        append(ds, 100 + i * 10L, 2);
      }
      ds.delete(Predicate.eq("id", 100L));
      List<Long> expected = scanIds(ds.newScan().open());
      Set<String> everSegments = keys(Segment.PREFIX);
      ds.tags().create("old", 6);
      Set<String> named = new HashSet<>();
      ds.manifest().segments().forEach(s -> named.add(s.path()));
      ((io.quiver.manifest.FragmentList) ds.manifest().fragments()).lists().forEach(l -> named.add(l.path()));
      Set<String> namedByTagged = new HashSet<>();
      try (Dataset v6 = ds.checkout(6)) {
        v6.manifest().segments().forEach(s -> namedByTagged.add(s.path()));
        ((io.quiver.manifest.FragmentList) v6.manifest().fragments()).lists().forEach(l -> namedByTagged.add(l.path()));
      }
      CleanupReport report = ds.cleanup(
          CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ZERO).build());
      Set<String> kept = new TreeSet<>(named);
      kept.addAll(namedByTagged);
      assertThat(keys(Segment.PREFIX)).isEqualTo(kept);
      assertThat(report.segmentFilesRemoved()).isGreaterThanOrEqualTo(everSegments.size() - kept.size());
      assertThat(keys(MetadataCodec.ROOTS_PREFIX)).hasSize(2);
      try (Dataset reopened = Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build())) {
        assertThat(scanIds(reopened.newScan().open())).isEqualTo(expected);
        try (Dataset v6 = reopened.checkout("old")) {
          // v1 create, v2 configuration, v3..v6 four appends of two rows.
          assertThat(scanIds(v6.newScan().open())).isEqualTo(
              concat(range(0, 10), range(100, 102), range(110, 112), range(120, 122), range(130, 132)));
        }
      }
    }
  }

  @Test
  void aFilteredScanOrATakeReadsOnlyTheSegmentsThatMayHoldItsRows() {
    try (Dataset ds = smallSegments()) {
      for (int i = 0; i < 16; i++) {
        append(ds, 100 + i * 10L, 3);
      }
      assertThat(ds.manifest().segments()).hasSizeGreaterThan(3);
    }
    try (Dataset fresh = Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build())) {
      store.reset();
      assertThat(scanIds(fresh.newScan().filter(Predicate.eq("id", 151L)).open())).containsExactly(151L);
      assertThat(store.reads.stream().filter(k -> k.startsWith(Segment.PREFIX)).distinct().count())
          .as("segments read for a filter matching one fragment").isEqualTo(1);
      assertThat(fresh.newScan().filter(Predicate.eq("id", 99_999L)).planTasks()).isEmpty();
    }
  }

  private Dataset damagedTable() {
    Dataset ds = smallSegments();
    for (int i = 0; i < 6; i++) {
      append(ds, 100 + i * 10L, 2);
    }
    return ds;
  }

  private void expectCorruptOnRead(String named, String... words) {
    try (Dataset fresh = Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build())) {
      CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class)
          .isThrownBy(() -> scanIds(fresh.newScan().open())).actual();
      assertThat(e.path()).contains(named);
      assertThat(e.getMessage()).contains(words);
    } catch (CorruptFileException e) {
      // The open itself may read the damaged file first.
      assertThat(e.path()).contains(named);
      assertThat(e.getMessage()).contains(words);
    }
  }

  @Test
  void aDamagedTruncatedOrMissingSegmentIsACorruptFileNamingIt() {
    try (Dataset ds = damagedTable()) {
      String segment = ds.manifest().segments().get(0).path();
      byte[] original = memory.read(segment);
      byte[] flipped = original.clone();
      flipped[flipped.length - 3] ^= 0x40;
      memory.write(segment, flipped);
      expectCorruptOnRead(segment, "checksum");
      memory.write(segment, java.util.Arrays.copyOf(original, original.length - 1));
      expectCorruptOnRead(segment, "truncated");
      memory.delete(segment);
      expectCorruptOnRead(segment, "missing");
      memory.write(segment, original);
      assertThat(scanIds(ds.newScan().open())).hasSize(10 + 12);
    }
  }

  @Test
  void aSegmentThatDisagreesWithItsRootIsRefused() {
    try (Dataset ds = damagedTable()) {
      Segment first = ds.manifest().segments().get(0);
      Segment second = ds.manifest().segments().get(1);
      byte[] original = memory.read(first.path());
      // Another segment's (valid) bytes under the first one's name: the sizes or the ids disagree.
      memory.write(first.path(), memory.read(second.path()));
      expectCorruptOnRead(first.path(), "root says");
      memory.write(first.path(), original);
    }
  }

  @Test
  void aDamagedOrMissingRootIsACorruptFileNamingIt() {
    try (Dataset ds = damagedTable()) {
      String root = MetadataCodec.rootPath(ds.version(), ds.manifest().transactionUuid());
      byte[] original = memory.read(root);
      byte[] flipped = original.clone();
      flipped[10] ^= 0x01;
      memory.write(root, flipped);
      expectCorruptOnRead(root, "checksum");
      memory.delete(root);
      expectCorruptOnRead(root, "missing");
      memory.write(root, original);
      // A version file naming another version's root is refused before that root is read.
      String key = ObjectStoreCommitStore.manifestKey(ds.version());
      byte[] versionFile = memory.read(key);
      memory.write(key, ManifestBytes.rewrite(versionFile,
          b -> b.getRootBuilder().setPath(MetadataCodec.rootPath(ds.version() - 1, "x"))));
      expectCorruptOnRead(key, "root file");
      memory.write(key, versionFile);
    }
  }

  /** Rewrites the latest version's root with {@code edit}, and the size of it the version file records. */
  private void rewriteRoot(Dataset ds, java.util.function.Consumer<io.quiver.internal.proto.Manifest.Builder> edit) {
    rewriteRoot(memory, ds, edit);
  }

  /** Rewrites {@code ds}'s latest root in {@code memory} with {@code edit}, and its size in the version file. */
  static void rewriteRoot(MemoryObjectStore memory, Dataset ds,
      java.util.function.Consumer<io.quiver.internal.proto.Manifest.Builder> edit) {
    String key = ObjectStoreCommitStore.manifestKey(ds.version());
    String root = MetadataCodec.rootPath(ds.version(), ds.manifest().transactionUuid());
    byte[] bytes = memory.read(root);
    try {
      io.quiver.internal.proto.Manifest.Builder b = io.quiver.internal.proto.Manifest
          .parseFrom(java.util.Arrays.copyOfRange(bytes, 8, bytes.length)).toBuilder();
      edit.accept(b);
      byte[] payload = b.build().toByteArray();
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(payload);
      byte[] rewritten = java.nio.ByteBuffer.allocate(8 + payload.length).put(bytes, 0, 4)
          .putInt((int) crc.getValue()).put(payload).array();
      memory.write(root, rewritten);
      memory.write(key, ManifestBytes.rewrite(memory.read(key), f -> f.getRootBuilder().setSizeBytes(rewritten.length)));
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  private ValidationReport validateFresh() {
    try (Dataset fresh = Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build())) {
      return fresh.validate();
    }
  }

  @Test
  void validateReadsEverySegmentAndReportsASegmentTheRootMisdescribes() {
    try (Dataset ds = damagedTable()) {
      assertThat(ds.validate().problems()).isEmpty();
      Segment first = ds.manifest().segments().get(0);
      assertThat(first.compressed()).as("default ZSTD: the first segment's files are format 1.1").isTrue();
      // Bounds narrower than the values: every int bound of the first segment collapsed to its lower bound.
      rewriteRoot(ds, b -> {
        io.quiver.internal.proto.SegmentRef.Builder seg = b.getSegmentsBuilder(0);
        for (io.quiver.internal.proto.SegmentBounds.Builder bb : seg.getBoundsBuilderList()) {
          if (bb.hasLower() && bb.getLower().hasIntValue()) {
            bb.setUpper(bb.getLower());
          }
        }
      });
      ValidationReport narrowed = validateFresh();
      assertThat(narrowed.problems()).isNotEmpty().allSatisfy(p -> {
        assertThat(p.kind()).isEqualTo(ValidationReport.Kind.SEGMENT_MISMATCH);
        assertThat(p.location()).isEqualTo(first.path());
        assertThat(p.message()).contains("do not hold for fragment").contains("a filtered scan could skip rows");
      });
      rewriteRoot(ds, b -> b.getSegmentsBuilder(0).setCompressed(false));
      assertThat(validateFresh().problems()).anySatisfy(p -> {
        assertThat(p.kind()).isEqualTo(ValidationReport.Kind.SEGMENT_MISMATCH);
        assertThat(p.message()).contains("compressed");
      });
    }
  }

  @Test
  void validateReportsAMissingOrDamagedSegmentAndChecksTheOthers() {
    try (Dataset ds = damagedTable()) {
      for (int i = 0; i < 8; i++) {
        append(ds, 300 + i * 10L, 2);
      }
      List<Segment> segments = ds.manifest().segments();
      assertThat(segments).hasSizeGreaterThan(2);
      String missing = segments.get(0).path();
      String damaged = segments.get(1).path();
      memory.delete(missing);
      byte[] flipped = memory.read(damaged).clone();
      flipped[flipped.length - 2] ^= 0x10;
      memory.write(damaged, flipped);
      ValidationReport report = validateFresh();
      assertThat(report.problems()).extracting(ValidationReport.Problem::kind, ValidationReport.Problem::location)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple(ValidationReport.Kind.MISSING_FILE, missing),
              org.assertj.core.groups.Tuple.tuple(ValidationReport.Kind.CORRUPT_FILE, damaged));
      assertThat(report.filesChecked()).isGreaterThan(segments.size());
    }
  }

  @Test
  void aDamagedTransactionInAVersionFileStopsCommitsAndValidateButNotReads() {
    try (Dataset ds = damagedTable()) {
      List<Long> expected = scanIds(ds.newScan().open());
      long latest = ds.version();
      String key = ObjectStoreCommitStore.manifestKey(latest);
      byte[] original = memory.read(key);
      memory.write(key, ManifestBytes.rewrite(original, f -> f.getTransactionBuilder().setUuid("someone-else")));
      try (Dataset fresh = Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build())) {
        // The table state is in the root: a reader never decodes the version's transaction.
        assertThat(scanIds(fresh.newScan().open())).isEqualTo(expected);
        assertThat(fresh.validate().problems()).singleElement().satisfies(p -> {
          assertThat(p.kind()).isEqualTo(ValidationReport.Kind.CORRUPT_FILE);
          assertThat(p.message()).contains("someone-else");
        });
        // A committer catching up over that version must check its transaction: it refuses, and publishes nothing.
        try (Dataset stale = fresh.checkout(latest - 1)) {
          CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class)
              .isThrownBy(() -> append(stale, 900, 1)).actual();
          assertThat(e.path()).contains(key);
        }
      }
      assertThat(ds.latestVersion()).isEqualTo(latest);
      memory.write(key, original);
    }
  }

  @Test
  void theVersionFileHoldsNoTableStateOnlyItsTransactionAndRoot() {
    try (Dataset ds = damagedTable()) {
      io.quiver.internal.proto.ManifestFile file =
          ManifestBytes.decode(memory.read(ObjectStoreCommitStore.manifestKey(ds.version())));
      assertThat(file.hasRoot()).isTrue();
      assertThat(file.getManifest().getFragmentsCount()).isZero();
      assertThat(file.getManifest().hasSchema()).isFalse();
      assertThat(file.getManifest().getReaderFeaturesList()).contains(Manifest.SEGMENTED_FEATURE);
      assertThat(file.getManifest().getFormatVersion().getMinor()).isEqualTo(2);
    }
  }

  @Test
  void theLayoutFollowsTheConfigurationBothWays() {
    try (Dataset ds = smallSegments()) {
      for (int i = 0; i < 6; i++) {
        append(ds, 100 + i * 10L, 2);
      }
      List<Long> expected = scanIds(ds.newScan().open());
      ds.updateConfig(Map.of("manifest.layout", "single"), Set.of());
      assertThat(ds.manifest().segmented()).isFalse();
      assertThat(ds.manifest().readerFeatures()).doesNotContain(Manifest.SEGMENTED_FEATURE);
      assertThat(ManifestBytes.decode(memory.read(ObjectStoreCommitStore.manifestKey(ds.version())))
          .getManifest().getFormatVersion().getMinor()).isEqualTo(1);
      append(ds, 900, 1);
      assertThat(ds.manifest().segmented()).isFalse();
      expected.add(900L);
      assertThat(scanIds(ds.newScan().open())).isEqualTo(expected);
      ds.updateConfig(Map.of("manifest.layout", "segmented"), Set.of());
      checkLayout(ds.manifest());
      assertThat(scanIds(ds.newScan().open())).isEqualTo(expected);
      for (String bad : List.of("tree", "")) {
        assertThatExceptionOfType(InvalidArgumentException.class)
            .isThrownBy(() -> ds.updateConfig(Map.of("manifest.layout", bad), Set.of()))
            .withMessageContaining("manifest.layout").withMessageContaining("expected");
      }
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.updateConfig(Map.of("manifest.segment.merge-factor", "1"), Set.of()))
          .withMessageContaining("manifest.segment.merge-factor");
    }
  }

  @Test
  void aTableCreatedSingleFileStaysSoUntilAskedAndRestoreKeepsTheCurrentLayout() {
    try (Dataset ds = smallSegments()) {
      append(ds, 100, 2);
      append(ds, 110, 2);
      append(ds, 120, 2);
      ds.updateConfig(Map.of("manifest.layout", "single"), Set.of());
      long single = ds.version();
      ds.updateConfig(Map.of("manifest.layout", "segmented"), Set.of());
      append(ds, 130, 2);
      // Restoring a single-file version brings its content back in the layout the table has now.
      ds.restore(single);
      checkLayout(ds.manifest());
      assertThat(scanIds(ds.newScan().open())).isEqualTo(
          concat(range(0, 10), range(100, 102), range(110, 112), range(120, 122)));
    }
  }

  private static List<Long> concat(List<Long>... parts) {
    List<Long> out = new ArrayList<>();
    for (List<Long> p : parts) {
      out.addAll(p);
    }
    return out;
  }
}
