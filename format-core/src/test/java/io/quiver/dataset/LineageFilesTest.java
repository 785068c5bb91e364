package io.quiver.dataset;

import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.table.LineageFiles;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.scenario.DataLossScenarios;
import io.quiver.scenario.RowIdScenarios;
import io.quiver.scenario.ScenarioTable;
import io.quiver.store.MemoryObjectStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lineage files (docs/format.md section 14.1): a fragment's row lineage above {@code write.lineage.spill-bytes}
 * lives in {@code _lineage/}, and every reader of ids, versions and the change feed sees exactly what it sees with
 * the lineage inline; cleanup keeps the files kept versions reference; a damaged file is a typed error naming it.
 */
class LineageFilesTest {
  /** A threshold every lineage with more than a run or two exceeds. */
  private static final Map<String, String> SPILL_ALL = Map.of(LineageFiles.CONFIG_KEY, "16");
  /** Every lineage goes to a file. */
  private static final Map<String, String> EVERY = Map.of(LineageFiles.CONFIG_KEY, "1");
  private static final Map<String, String> NEVER = Map.of(LineageFiles.CONFIG_KEY, "0");

  private RootAllocator allocator;
  private ScenarioTable spilled;
  private ScenarioTable inline;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    spilled = ScenarioTable.on(new MemoryObjectStore("memory://spilled"), allocator);
    inline = ScenarioTable.on(new MemoryObjectStore("memory://inline"), allocator);
  }

  @AfterEach
  void tearDown() {
    spilled.close();
    inline.close();
    allocator.close();
  }

  private static Set<String> lineageFiles(ScenarioTable t) {
    return t.keys().stream().filter(k -> k.startsWith("_lineage/")).collect(Collectors.toSet());
  }

  private static long spilledFragments(Manifest m) {
    return m.fragments().stream().filter(LineageFiles::inFile).count();
  }

  @Test
  void everyRowIdScenarioGivesTheSameIdsVersionsAndFeedWithLineageFiles() {
    RowIdScenarios.withTableConfig(EVERY, () -> {
      RowIdScenarios.h1_rowIdsSurviveEveryKindOfCommit(spilled);
      RowIdScenarios.h3(inline, 7);
    });
    assertThat(lineageFiles(spilled)).isNotEmpty();
    assertThat(lineageFiles(inline)).as("h3 spilled too").isNotEmpty();
    try (Dataset ds = spilled.open()) {
      assertThat(ds.manifest().readerFeatures()).contains(Manifest.LINEAGE_FILES_FEATURE);
      assertThat(ds.manifest().writerFeatures()).contains(Manifest.LINEAGE_FILES_FEATURE);
    }
  }

  @Test
  void concurrentWritersWithLineageFilesNeverShareAnId() {
    RowIdScenarios.withTableConfig(EVERY, () -> RowIdScenarios.h2_concurrentWritersNeverShareARowId(spilled));
  }

  /** The same history on both tables: scattered updates, deletes, compaction, an append, a restore. */
  private static List<Long> history(ScenarioTable t, Map<String, String> config) {
    List<Long> versions = new ArrayList<>();
    RowIdScenarios.withTableConfig(config, () -> {
      try (Dataset ds = RowIdScenarios.createWithRowIds(t, 0, 120)) {
        versions.add(ds.version());
        for (int k = 0; k < 3; k++) {
          List<Long> every = new ArrayList<>();
          for (long id = k; id < 120; id += 3 + k) {
            every.add(id);
          }
          ds.update(Predicate.in("id", every), Map.of("name", "u" + k)); // scattered: many updated runs
          versions.add(ds.version());
        }
        List<Long> holes = new ArrayList<>();
        for (long id = 1; id < 120; id += 5) {
          holes.add(id);
        }
        ds.delete(Predicate.in("id", holes)); // scattered: compaction copies short id runs
        versions.add(ds.version());
        ds.compact(CompactionOptions.defaults());
        versions.add(ds.version());
        t.append(ds, 500, 30);
        versions.add(ds.version());
        ds.update(lt("id", 40L), Map.of("name", "late"));
        versions.add(ds.version());
        ds.restore(3);
        versions.add(ds.version());
      }
    });
    return versions;
  }

  @Test
  void scatteredUpdatesAndCompactionSpillAndReadTheSameAtEveryVersion() {
    List<Long> versions = history(spilled, SPILL_ALL);
    assertThat(history(inline, NEVER)).isEqualTo(versions);
    assertThat(lineageFiles(inline)).isEmpty();
    assertThat(lineageFiles(spilled)).isNotEmpty();
    try (Dataset s = DataLossScenarios.restarted(spilled); Dataset i = DataLossScenarios.restarted(inline)) {
      assertThat(i.manifest().readerFeatures()).doesNotContain(Manifest.LINEAGE_FILES_FEATURE);
      long latest = s.version();
      for (long v = 1; v <= latest; v++) {
        try (Dataset sv = s.checkout(v); Dataset iv = i.checkout(v)) {
          assertThat(RowIdScenarios.lineage(sv)).as("lineage at version %d", v).isEqualTo(RowIdScenarios.lineage(iv));
          assertThat(RowIdScenarios.rows(sv)).isEqualTo(RowIdScenarios.rows(iv));
        }
      }
      // The compaction (version 6) wrote fragments whose lineage spilled, and no change.
      try (Dataset compacted = s.checkout(6)) {
        assertThat(spilledFragments(compacted.manifest())).isPositive();
      }
      assertThat(s.changes(5, 6).changeCounts()).containsExactly(Map.entry(6L, 0));
      for (long a = 1; a < latest; a++) {
        for (long b = a + 1; b <= latest; b++) {
          assertThat(RowIdScenarios.feed(s.changes(a, b))).as("changes(%d, %d)", a, b)
              .isEqualTo(RowIdScenarios.feed(i.changes(a, b)));
        }
      }
      long[] ids = RowIdScenarios.lineage(s).values().stream().mapToLong(l -> l.get(0)).limit(7).toArray();
      try (var taken = s.takeByRowIds(ids, List.of("id")); var expected = i.takeByRowIds(ids, List.of("id"))) {
        assertThat(taken.contentToTSVString()).isEqualTo(expected.contentToTSVString());
      }
      assertThat(s.validate().isValid()).isTrue();
    }
  }

  @Test
  void smallLineageStaysInlineUnderTheDefaultThreshold() {
    try (Dataset ds = RowIdScenarios.createWithRowIds(spilled, 0, 100)) {
      ds.update(lt("id", 50L), Map.of("name", "x"));
      ds.compact(CompactionOptions.defaults());
      assertThat(spilledFragments(ds.manifest())).isZero();
      assertThat(ds.manifest().readerFeatures()).doesNotContain(Manifest.LINEAGE_FILES_FEATURE);
    }
    assertThat(lineageFiles(spilled)).isEmpty();
  }

  @Test
  void aThresholdThatIsNotAByteCountIsRefused() {
    try (Dataset ds = RowIdScenarios.createWithRowIds(spilled, 0, 10)) {
      assertThatExceptionOfType(InvalidArgumentException.class)
          .isThrownBy(() -> ds.updateConfig(Map.of(LineageFiles.CONFIG_KEY, "-1"), Set.of()))
          .withMessageContaining(LineageFiles.CONFIG_KEY).withMessageContaining("found '-1'");
    }
  }

  @Test
  void cleanupKeepsTheLineageFilesOfKeptVersionsAndRemovesTheOthers() {
    history(spilled, SPILL_ALL);
    Set<String> before = lineageFiles(spilled);
    // An orphan: a lineage file no version names (a writer that crashed before its claim).
    spilled.store().write("_lineage/orphan.lin", new byte[] {1, 2, 3});
    try (Dataset ds = spilled.open()) {
      Set<String> live = ds.manifest().fragments().stream().filter(LineageFiles::inFile)
          .map(f -> f.lineage().get().file().get().path()).collect(Collectors.toSet());
      assertThat(live).isNotEmpty();
      CleanupReport young = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
      assertThat(lineageFiles(spilled)).as("within the safety window nothing goes").contains("_lineage/orphan.lin")
          .containsAll(before);
      spilled.clock().advance(Duration.ofDays(2));
      CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(1)).build());
      assertThat(report.manifestsRemoved()).isPositive();
      assertThat(lineageFiles(spilled)).containsAll(live).doesNotContain("_lineage/orphan.lin");
      assertThat(lineageFiles(spilled).size()).isLessThan(before.size());
      assertThat(young).isNotNull();
    }
    try (Dataset reopened = DataLossScenarios.restarted(spilled)) {
      assertThat(RowIdScenarios.lineage(reopened)).hasSize((int) reopened.manifest().liveRows());
      assertThat(reopened.validate().isValid()).isTrue();
    }
  }

  private String someLineageFile() {
    history(spilled, SPILL_ALL);
    try (Dataset ds = spilled.open()) {
      Fragment f = ds.manifest().fragments().stream().filter(LineageFiles::inFile).findFirst().orElseThrow();
      return f.lineage().get().file().get().path();
    }
  }

  private void assertLineageReadFails(String path, String detail) {
    try (Dataset ds = DataLossScenarios.restarted(spilled)) {
      assertThat(ds.countRows()).as("rows read without the lineage").isPositive();
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> RowIdScenarios.lineage(ds))
          .satisfies(e -> assertThat(e.path()).endsWith(path)).withMessageContaining(detail);
    }
  }

  @Test
  void aTruncatedLineageFileIsATypedErrorNamingIt() {
    String path = someLineageFile();
    byte[] bytes = spilled.store().read(path);
    spilled.store().write(path, java.util.Arrays.copyOf(bytes, bytes.length - 3));
    assertLineageReadFails(path, "truncated");
  }

  @Test
  void aDamagedLineageFileIsATypedErrorNamingIt() {
    String path = someLineageFile();
    byte[] bytes = spilled.store().read(path);
    bytes[bytes.length - 1] ^= 0x55;
    spilled.store().write(path, bytes);
    assertLineageReadFails(path, "checksum");
  }

  @Test
  void aMissingLineageFileIsATypedErrorNamingIt() {
    String path = someLineageFile();
    spilled.store().delete(path);
    assertLineageReadFails(path, "missing");
  }

  @Test
  void aTakeByRowIdReadsOnlyTheLineageFilesWhoseRecordedSpanHoldsItsIds() {
    Map<Long, List<Long>> lineage;
    Map<Long, String> fileOfRow = new java.util.HashMap<>();
    RowIdScenarios.withTableConfig(EVERY, () -> {
      try (Dataset ds = RowIdScenarios.createWithRowIds(spilled, 0, 100)) {
        for (int k = 1; k <= 3; k++) {
          spilled.append(ds, 100L * k, 100);
        }
      }
    });
    try (Dataset ds = DataLossScenarios.restarted(spilled)) {
      assertThat(spilledFragments(ds.manifest())).isEqualTo(ds.manifest().fragments().size()).isGreaterThan(3);
      for (Fragment f : ds.manifest().fragments()) {
        io.quiver.manifest.RowLineage.File file = f.lineage().orElseThrow().file().orElseThrow();
        long[] span = f.lineage().get().idSpan();
        assertThat(new long[] {file.firstRowId(), file.rowIdEnd()}).as("the recorded span of " + file.path())
            .containsExactly(span);
        for (long id = span[0]; id < span[1]; id++) {
          fileOfRow.put(id, file.path());
        }
      }
      lineage = RowIdScenarios.lineage(ds); // by the id column: [_rowid, created, updated]
    }
    long wanted = lineage.get(250L).get(0);
    long other = lineage.get(260L).get(0);
    String kept = fileOfRow.get(wanted);
    assertThat(fileOfRow.get(other)).isEqualTo(kept);
    // Every other lineage file is gone: a take of ids in the kept one's span never reads them.
    for (String path : lineageFiles(spilled)) {
      if (!path.equals(kept)) {
        spilled.store().delete(path);
      }
    }
    try (Dataset ds = DataLossScenarios.restarted(spilled);
        var taken = ds.takeByRowIds(new long[] {other, wanted}, List.of("id"))) {
      assertThat(taken.getVector("id").getObject(0)).isEqualTo(260L);
      assertThat(taken.getVector("id").getObject(1)).isEqualTo(250L);
    }
    // An id whose span's file is missing: the typed error names that file (it was needed).
    long gone = lineage.get(50L).get(0);
    try (Dataset ds = DataLossScenarios.restarted(spilled)) {
      assertThatExceptionOfType(CorruptFileException.class)
          .isThrownBy(() -> ds.takeByRowIds(new long[] {gone}, List.of("id")).close())
          .satisfies(e -> assertThat(e.path()).endsWith(fileOfRow.get(gone)));
    }
  }

  @Test
  void aLineageFileHoldingIdsOutsideItsRecordedSpanIsCorrupt() {
    RowIdScenarios.withTableConfig(EVERY, () -> {
      try (Dataset ds = RowIdScenarios.createWithRowIds(spilled, 0, 100)) {
        spilled.append(ds, 100, 100);
      }
    });
    // Swap the two files' contents under each other's reference: sizes may match, the CRC or the span does not.
    try (Dataset ds = DataLossScenarios.restarted(spilled)) {
      List<Fragment> fragments = ds.manifest().fragments();
      String a = fragments.get(0).lineage().get().file().get().path();
      String b = fragments.get(1).lineage().get().file().get().path();
      byte[] bytesA = spilled.store().read(a);
      spilled.store().write(a, spilled.store().read(b));
      spilled.store().write(b, bytesA);
    }
    try (Dataset ds = DataLossScenarios.restarted(spilled)) {
      assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> RowIdScenarios.lineage(ds));
    }
  }
}
