package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.codec.ManifestBytes;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Segment;
import io.quiver.manifest.SegmentList;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStoreCommitStore;
import java.time.Duration;
import java.util.ArrayList;
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
 * Segment lists (docs/format.md §11.1): with segments of at most 4 fragments, a merge factor of 2 and lists of
 * at most 3 segments, full segments are named through lists, so the root stays small however many fragments
 * the table holds; a list is rewritten only when a commit changes one of its segments or completes a full
 * segment after it; every version reads back exactly; cleanup, validation and damaged files behave as they do
 * for segments.
 */
class SegmentListTest {
  private static final String URI_ = DeleteTest.URI_;
  private static final Map<String, String> SMALL = Map.of("manifest.segment.merge-factor", "2",
      "manifest.segment.max-fragments", "4", "manifest.segment.list-max-segments", "3");

  private RootAllocator allocator;
  private MemoryObjectStore memory;
  private SegmentedManifestTest.Recording store;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    memory = new MemoryObjectStore(URI_);
    store = new SegmentedManifestTest.Recording(memory);
    options = DeleteTest.options(store, allocator);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  private Dataset smallLists() {
    Dataset ds;
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
      ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
    ds.updateConfig(SMALL, Set.of());
    return ds;
  }

  private long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  private Dataset fresh() {
    return Dataset.open(URI_, options.toBuilder().session(new Session(1 << 20)).build());
  }

  private static FragmentList fragments(Manifest m) {
    return (FragmentList) m.fragments();
  }

  private List<String> listWrites() {
    return store.writes.stream().filter(k -> k.endsWith(SegmentList.SUFFIX)).toList();
  }

  private Set<String> keys(String suffix) {
    return memory.listAll(Segment.PREFIX).stream().map(ObjectInfo::key).filter(k -> k.endsWith(suffix))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** What the root names directly: its lists and the segments in no list. */
  private static int rootEntries(Manifest m) {
    return fragments(m).lists().size() + fragments(m).directSegments().size();
  }

  @Test
  void fullSegmentsAreNamedThroughListsSoTheRootStaysSmallAndEveryVersionReadsBack() {
    List<Long> expected = new ArrayList<>(range(0, 10));
    int mostEntries = 0;
    try (Dataset ds = smallLists()) {
      assertThat(fragments(ds.manifest()).lists()).isEmpty();
      assertThat(ds.manifest().readerFeatures()).doesNotContain(Manifest.SEGMENT_LISTS_FEATURE);
      for (int i = 0; i < 120; i++) {
        long from = 100 + i * 10L;
        store.reset();
        append(ds, from, 1);
        expected.add(from);
        Manifest m = ds.manifest();
        // An append writes at most one list: the newest one, when it completes a full segment.
        assertThat(listWrites()).as("lists written by append " + i).hasSizeLessThanOrEqualTo(1);
        for (SegmentList l : fragments(m).lists()) {
          assertThat(l.segmentCount()).isBetween(1L, 3L);
          assertThat(fragments(m).segmentsOf(l)).allSatisfy(s -> assertThat(l.covers(s)).isTrue());
        }
        assertThat(m.readerFeatures().contains(Manifest.SEGMENT_LISTS_FEATURE))
            .isEqualTo(!fragments(m).lists().isEmpty());
        assertThat(m.segments().stream().mapToLong(Segment::fragmentCount).sum()
            + fragments(m).inline().size()).isEqualTo(m.fragments().size());
        mostEntries = Math.max(mostEntries, rootEntries(m) - fragments(m).lists().size());
        if (i % 17 == 0) {
          assertThat(scanIds(ds.newScan().open())).isEqualTo(expected);
        }
      }
      Manifest m = ds.manifest();
      assertThat(m.fragments()).hasSize(121);
      // 121 fragments: about 29 full segments in about 10 lists; the root names those and the tiered tail.
      assertThat(fragments(m).lists()).hasSizeGreaterThanOrEqualTo(8);
      assertThat(fragments(m).directSegments()).as("segments the root names directly").hasSizeLessThanOrEqualTo(4);
      assertThat(mostEntries).as("direct segments at any version").isLessThanOrEqualTo(4);
      assertThat(m.liveRows()).isEqualTo(expected.size());
      try (Dataset reopened = fresh()) {
        assertThat(scanIds(reopened.newScan().open())).isEqualTo(expected);
        assertThat(reopened.validate().problems()).isEmpty();
        // Time travel to a version whose lists later commits replaced: v1 create, v2 config, 58 appends.
        try (Dataset old = reopened.checkout(60)) {
          assertThat(fragments(old.manifest()).lists()).isNotEmpty();
          assertThat(scanIds(old.newScan().open())).isEqualTo(expected.subList(0, 10 + 58));
        }
      }
    }
  }

  @Test
  void theRootStaysTheSameSizeAsTheTableGrows() {
    try (Dataset ds = smallLists()) {
      ds.updateConfig(Map.of("manifest.segment.list-max-segments", "64"), Set.of());
      Map<Integer, Integer> rootBytes = new java.util.TreeMap<>();
      for (int i = 0; i < 400; i++) {
        append(ds, 100 + i * 10L, 1);
        int n = ds.manifest().fragments().size();
        if (n == 41 || n == 401) {
          // Both with the same tail: full segments, then one inline fragment.
          assertThat(fragments(ds.manifest()).inline()).hasSize(1);
          assertThat(fragments(ds.manifest()).directSegments()).isEmpty();
          String root = MetadataCodec.rootPath(ds.version(), ds.manifest().transactionUuid());
          rootBytes.put(n, memory.read(root).length);
        }
      }
      // Ten times the fragments (10 full segments in one list, then 100 in two): one more list reference,
      // where naming every segment would add 90 references of about 170 bytes each.
      assertThat(ds.manifest().segments()).hasSize(100);
      assertThat(fragments(ds.manifest()).lists()).hasSize(2);
      assertThat(rootBytes.get(401) - rootBytes.get(41)).as("root growth, bytes " + rootBytes).isLessThan(400);
    }
  }

  @Test
  void aCommitRewritesOnlyTheListHoldingTheSegmentItChanges() {
    try (Dataset ds = smallLists()) {
      for (int i = 0; i < 40; i++) {
        append(ds, 100 + i * 10L, 1);
      }
      Manifest before = ds.manifest();
      List<SegmentList> lists = fragments(before).lists();
      assertThat(lists).hasSizeGreaterThanOrEqualTo(3);
      store.reset();
      // Fragment of id 130 lies in the first list's range.
      ds.delete(Predicate.eq("id", 130L));
      Manifest after = ds.manifest();
      assertThat(listWrites()).hasSize(1);
      assertThat(store.writes.stream().filter(k -> k.endsWith(".segment"))).hasSize(1);
      List<SegmentList> now = fragments(after).lists();
      assertThat(now.get(0).path()).isNotEqualTo(lists.get(0).path()).isEqualTo(listWrites().get(0));
      assertThat(now.subList(1, now.size())).isEqualTo(lists.subList(1, lists.size()));
      List<Long> expected = new ArrayList<>(range(0, 10));
      for (int i = 0; i < 40; i++) {
        if (i != 3) {
          expected.add(100 + i * 10L);
        }
      }
      try (Dataset reopened = fresh()) {
        assertThat(scanIds(reopened.newScan().open())).isEqualTo(expected);
        assertThat(reopened.validate().problems()).isEmpty();
      }
    }
  }

  @Test
  void aFilteredScanReadsOnlyTheSegmentsThatMayMatchThroughTheLists() {
    try (Dataset ds = smallLists()) {
      for (int i = 0; i < 40; i++) {
        append(ds, 100 + i * 10L, 2);
      }
      assertThat(fragments(ds.manifest()).lists()).isNotEmpty();
    }
    try (Dataset fresh = fresh()) {
      store.reset();
      assertThat(scanIds(fresh.newScan().filter(Predicate.eq("id", 251L)).open())).containsExactly(251L);
      assertThat(store.reads.stream().filter(k -> k.endsWith(".segment")).distinct().count())
          .as("segments read for a filter matching one fragment").isEqualTo(1);
    }
  }

  @Test
  void cleanupKeepsExactlyTheListsAKeptVersionNames() {
    try (Dataset ds = smallLists()) {
      for (int i = 0; i < 40; i++) {
        append(ds, 100 + i * 10L, 1);
      }
      ds.delete(Predicate.eq("id", 100L));
      List<Long> expected = scanIds(ds.newScan().open());
      ds.tags().create("old", 30);
      Set<String> kept = new HashSet<>();
      fragments(ds.manifest()).lists().forEach(l -> kept.add(l.path()));
      List<Long> taggedIds;
      try (Dataset v30 = ds.checkout(30)) {
        fragments(v30.manifest()).lists().forEach(l -> kept.add(l.path()));
        taggedIds = scanIds(v30.newScan().open());
      }
      assertThat(keys(SegmentList.SUFFIX)).hasSizeGreaterThan(kept.size());
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).safetyWindow(Duration.ZERO).build());
      assertThat(keys(SegmentList.SUFFIX)).isEqualTo(new TreeSet<>(kept));
      try (Dataset reopened = fresh()) {
        assertThat(scanIds(reopened.newScan().open())).isEqualTo(expected);
        try (Dataset v30 = reopened.checkout("old")) {
          assertThat(scanIds(v30.newScan().open())).isEqualTo(taggedIds);
        }
        assertThat(reopened.validate().problems()).isEmpty();
      }
    }
  }

  private void expectCorruptOnRead(String named, String... words) {
    CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> {
      try (Dataset fresh = fresh()) {
        scanIds(fresh.newScan().open());
      }
    }).actual();
    assertThat(e.path()).contains(named);
    assertThat(e.getMessage()).contains(words);
  }

  private Dataset listedTable() {
    Dataset ds = smallLists();
    for (int i = 0; i < 30; i++) {
      append(ds, 100 + i * 10L, 1);
    }
    assertThat(fragments(ds.manifest()).lists()).hasSizeGreaterThanOrEqualTo(2);
    return ds;
  }

  @Test
  void aDamagedTruncatedMissingOrSubstitutedListIsACorruptFileNamingIt() {
    try (Dataset ds = listedTable()) {
      List<SegmentList> lists = fragments(ds.manifest()).lists();
      String list = lists.get(0).path();
      byte[] original = memory.read(list);
      byte[] flipped = original.clone();
      flipped[flipped.length - 3] ^= 0x40;
      memory.write(list, flipped);
      expectCorruptOnRead(list, "checksum");
      memory.write(list, java.util.Arrays.copyOf(original, original.length - 1));
      expectCorruptOnRead(list, "truncated");
      memory.write(list, memory.read(lists.get(1).path()));
      expectCorruptOnRead(list, "root says");
      memory.delete(list);
      expectCorruptOnRead(list, "missing");
      memory.write(list, original);
      try (Dataset fresh = fresh()) {
        assertThat(fresh.validate().problems()).isEmpty();
      }
    }
  }

  @Test
  void aRootWhoseListsDisagreeWithTheirSegmentsOrLackTheFeatureIsRefused() {
    try (Dataset ds = listedTable()) {
      String root = MetadataCodec.rootPath(ds.version(), ds.manifest().transactionUuid());
      byte[] original = memory.read(root);
      byte[] versionFile = memory.read(ObjectStoreCommitStore.manifestKey(ds.version()));
      String list = fragments(ds.manifest()).lists().get(0).path();
      SegmentedManifestTest.rewriteRoot(memory, ds,
          b -> b.getSegmentListsBuilder(0).setSegmentCount(b.getSegmentLists(0).getSegmentCount() + 1));
      expectCorruptOnRead(list, "root says");
      restore(ds, root, original, versionFile);
      SegmentedManifestTest.rewriteRoot(memory, ds,
          b -> b.clearReaderFeatures().addReaderFeatures(Manifest.SEGMENTED_FEATURE));
      expectCorruptOnRead(root, Manifest.SEGMENT_LISTS_FEATURE);
      restore(ds, root, original, versionFile);
      // A segment named both directly and through a list: ranges overlap.
      Segment listed = fragments(ds.manifest()).segmentsOf(fragments(ds.manifest()).lists().get(0)).get(0);
      SegmentedManifestTest.rewriteRoot(memory, ds, b -> b.addSegments(io.quiver.internal.proto.SegmentRef.newBuilder()
          .setPath(listed.path()).setSizeBytes(listed.sizeBytes()).setFirstFragmentId(listed.firstFragmentId())
          .setLastFragmentId(listed.lastFragmentId()).setFragmentCount(listed.fragmentCount())
          .setPhysicalRows(listed.physicalRows()).setLiveRows(listed.liveRows()).setCompressed(listed.compressed())));
      expectCorruptOnRead(root, "not after");
      restore(ds, root, original, versionFile);
      try (Dataset fresh = fresh()) {
        assertThat(fresh.validate().problems()).isEmpty();
      }
    }
  }

  private void restore(Dataset ds, String root, byte[] rootBytes, byte[] versionFile) {
    memory.write(root, rootBytes);
    memory.write(ObjectStoreCommitStore.manifestKey(ds.version()), versionFile);
  }

  @Test
  void validateReportsAListTheRootMisdescribes() {
    try (Dataset ds = listedTable()) {
      SegmentList first = fragments(ds.manifest()).lists().get(0);
      SegmentedManifestTest.rewriteRoot(memory, ds, b -> {
        for (io.quiver.internal.proto.SegmentBounds.Builder bb : b.getSegmentListsBuilder(0).getBoundsBuilderList()) {
          if (bb.hasLower() && bb.getLower().hasIntValue()) {
            bb.setUpper(bb.getLower());
          }
        }
      });
      try (Dataset fresh = fresh()) {
        assertThat(fresh.validate().problems()).isNotEmpty().allSatisfy(p -> {
          assertThat(p.kind()).isEqualTo(ValidationReport.Kind.SEGMENT_MISMATCH);
          assertThat(p.location()).isEqualTo(first.path());
          assertThat(p.message()).contains("segment list").contains("do not hold for fragment");
        });
      }
    }
  }

  @Test
  void theListSizeIsConfigurableAndCheckedAndSingleFileLayoutDropsLists() {
    try (Dataset ds = listedTable()) {
      List<Long> expected = scanIds(ds.newScan().open());
      for (String bad : List.of("1", "x", "70000")) {
        assertThatExceptionOfType(InvalidArgumentException.class)
            .isThrownBy(() -> ds.updateConfig(Map.of("manifest.segment.list-max-segments", bad), Set.of()))
            .withMessageContaining("manifest.segment.list-max-segments").withMessageContaining("expected");
      }
      ds.updateConfig(Map.of("manifest.layout", "single"), Set.of());
      assertThat(ds.manifest().segmented()).isFalse();
      assertThat(ds.manifest().readerFeatures()).doesNotContain(Manifest.SEGMENT_LISTS_FEATURE);
      assertThat(ManifestBytes.decode(memory.read(ObjectStoreCommitStore.manifestKey(ds.version())))
          .getManifest().getReaderFeaturesList()).doesNotContain(Manifest.SEGMENT_LISTS_FEATURE);
      ds.updateConfig(Map.of("manifest.layout", "segmented", "manifest.segment.list-max-segments", "2"), Set.of());
      assertThat(fragments(ds.manifest()).lists()).isNotEmpty()
          .allSatisfy(l -> assertThat(l.segmentCount()).isLessThanOrEqualTo(2));
      try (Dataset reopened = fresh()) {
        assertThat(scanIds(reopened.newScan().open())).isEqualTo(expected);
      }
    }
  }
}
