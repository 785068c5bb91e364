package io.quiver.dataset;

import static io.quiver.dataset.ScanFixture.rows;
import static io.quiver.dataset.ScanFixture.rowsByAddress;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.VersionNotFoundException;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Scanner#planTasks()} and {@link ScanTask}: tasks that travel as bytes and, read by a worker with
 * only the task and options, return exactly the full scan's rows for their fragment or range; their union
 * is the full scan; they stay pinned to the planned version; a removed version is a typed error.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScanTaskTest {
  private RootAllocator allocator;
  private String uri;
  /** Read only: a test that commits makes its own table. */
  private Dataset table;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
    uri = ScanFixture.newUri();
    table = ScanFixture.create(uri, allocator, ScanFixture.options(allocator));
  }

  @AfterAll
  void tearDown() {
    table.close();
    allocator.close();
  }

  /** What a remote worker has: its own allocator and cache, the default store registry. */
  private DatasetOptions worker() {
    return ScanFixture.options(allocator);
  }

  /** Every task shipped as bytes, read by a worker, rows concatenated in task order (by address). */
  private Map<Long, String> readShipped(List<ScanTask> tasks) {
    Map<Long, String> out = new LinkedHashMap<>();
    for (ScanTask task : tasks) {
      ScanTask received = ScanTask.decode(task.encode());
      assertThat(received).isEqualTo(task);
      rowsByAddress(received.open(worker())).forEach((a, row) -> {
        if (out.put(a, row) != null) {
          throw new AssertionError("address " + a + " read by two tasks");
        }
      });
    }
    return out;
  }

  static Stream<Arguments> scans() {
    List<Arguments> out = new ArrayList<>();
    List<Predicate> filters = Arrays.asList(null, Predicate.gt("id", 57L),
        Predicate.or(Predicate.eq("name", "upd"), Predicate.isNull("s.x")), Predicate.eq("s.x", 999));
    List<List<String>> projections = List.of(List.of("id", "name", "s", "tags"), List.of("s.y", "id"), List.of("name"));
    for (Predicate filter : filters) {
      for (List<String> columns : projections) {
        for (long target : new long[] {0, 1_500}) {
          out.add(Arguments.of(filter, columns, target));
        }
      }
    }
    return out.stream();
  }

  private Scanner scanner(Predicate filter, List<String> columns, long targetBytes) {
    Scanner s = table.newScan().columns(columns).batchSize(5).withRowAddress(true);
    if (filter != null) {
      s.filter(filter);
    }
    if (targetBytes > 0) {
      s.targetTaskBytes(targetBytes);
    }
    return s;
  }

  @ParameterizedTest(name = "{0} over {1}, target {2} bytes")
  @MethodSource("scans")
  void theTasksTogetherReturnTheFullScanAndEachItsOwnRangesRows(Predicate filter, List<String> columns,
      long targetBytes) {
    Scanner scanner = scanner(filter, columns, targetBytes);
    List<ScanTask> tasks = scanner.planTasks();
    if (targetBytes > 0 && filter == null) {
      assertThat(tasks.size()).as("fragments split").isGreaterThan(table.manifest().fragments().size());
    } else if (targetBytes > 0) {
      // The filter may prune fragments by their statistics; the ones left are split.
      assertThat(tasks.size()).as("fragments split").isGreaterThanOrEqualTo(scanner(filter, columns, 0).planTasks().size());
    }
    Map<Long, String> full = rowsByAddress(scanner.open());
    Map<Long, String> shipped = readShipped(tasks);
    assertThat(shipped.entrySet()).containsExactlyElementsOf(full.entrySet());
    // Each task reads exactly the full scan's rows of its fragment and range.
    for (ScanTask task : tasks) {
      Map<Long, String> expected = new LinkedHashMap<>();
      full.forEach((a, row) -> {
        if (RowAddress.fragmentId(a) == task.fragmentId() && RowAddress.offset(a) >= task.rowStart()
            && RowAddress.offset(a) < task.rowEnd()) {
          expected.put(a, row);
        }
      });
      assertThat(rowsByAddress(task.open(table)).entrySet()).containsExactlyElementsOf(expected.entrySet());
      assertThat(task.batchSize()).isEqualTo(5);
      assertThat(task.version()).isEqualTo(table.version());
    }
  }

  @Test
  void oneTaskPerFragmentWithLiveRowsWithItsRowCountBeforeTheFilterAndAByteEstimate() {
    // A filter the column statistics cannot prune by (every fragment holds non-null names).
    List<ScanTask> tasks = table.newScan().filter(Predicate.isNotNull("name")).planTasks();
    List<Fragment> live = table.manifest().fragments().stream().filter(f -> f.liveRows() > 0).toList();
    assertThat(tasks).extracting(ScanTask::fragmentId).containsExactlyElementsOf(live.stream().map(Fragment::id).toList());
    assertThat(tasks).extracting(ScanTask::rowCount)
        .containsExactlyElementsOf(live.stream().map(Fragment::liveRows).toList());
    assertThat(tasks.stream().mapToLong(ScanTask::rowCount).sum()).isEqualTo(table.countRows());
    for (int i = 0; i < tasks.size(); i++) {
      assertThat(tasks.get(i).rowStart()).isZero();
      assertThat(tasks.get(i).rowEnd()).isEqualTo(live.get(i).physicalRows());
      assertThat(tasks.get(i).bytesEstimate()).isPositive();
      assertThat(tasks.get(i).tableUri()).isEqualTo(uri);
    }
    // Fewer columns read, fewer bytes estimated (the filter's column counts as read).
    long all = table.newScan().planTasks().get(0).bytesEstimate();
    long idOnly = table.newScan().columns("id").planTasks().get(0).bytesEstimate();
    long nameFilteredById = table.newScan().columns("name").filter(Predicate.gt("id", 1L)).planTasks().get(0)
        .bytesEstimate();
    assertThat(idOnly).isLessThan(all);
    assertThat(nameFilteredById).isGreaterThan(idOnly).isLessThan(all);
  }

  @Test
  void aFragmentAboveTheTargetSizeIsSplitIntoContiguousRangesWithExactLiveRowCounts() {
    long whole = table.newScan().planTasks().get(0).bytesEstimate();
    List<ScanTask> tasks = table.newScan().targetTaskBytes(Math.max(1, whole / 4)).planTasks();
    assertThat(tasks.size()).isGreaterThan(table.manifest().fragments().size());
    Map<Long, List<ScanTask>> byFragment = new LinkedHashMap<>();
    tasks.forEach(t -> byFragment.computeIfAbsent(t.fragmentId(), k -> new ArrayList<>()).add(t));
    for (Fragment f : table.manifest().fragments()) {
      List<ScanTask> parts = byFragment.get(f.id());
      long next = 0;
      for (ScanTask t : parts) {
        // Ranges whose rows are all deleted are not planned; the others follow each other.
        assertThat(t.rowStart()).isGreaterThanOrEqualTo(next);
        next = t.rowEnd();
        assertThat(t.rowCount()).isEqualTo(rows(t.open(table)).size()).isPositive();
      }
      assertThat(next).isLessThanOrEqualTo(f.physicalRows());
      assertThat(parts.stream().mapToLong(ScanTask::rowCount).sum()).isEqualTo(f.liveRows());
    }
  }

  @Test
  void aTaskKeepsReadingItsVersionAfterAppendsDeletesUpdatesAndACompaction() {
    try (Dataset table = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator))) {
      keepsReadingItsVersion(table);
    }
  }

  private void keepsReadingItsVersion(Dataset table) {
    Scanner scanner = table.newScan().filter(Predicate.ge("id", 30L)).withRowAddress(true);
    List<ScanTask> tasks = scanner.planTasks();
    Map<Long, String> planned = rowsByAddress(scanner.open());
    long plannedVersion = table.version();
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 200, 30)) {
      table.append(List.of(b));
    }
    table.delete(Predicate.lt("id", 120L));
    table.update(Predicate.ge("id", 120L), Map.of("name", "later"));
    table.compact(CompactionOptions.defaults());
    assertThat(table.version()).isGreaterThan(plannedVersion);
    assertThat(readShipped(tasks).entrySet()).containsExactlyElementsOf(planned.entrySet());
    // Through a handle on the latest version too: the task, not the handle, picks the version.
    Map<Long, String> viaHandle = new LinkedHashMap<>();
    for (ScanTask task : tasks) {
      viaHandle.putAll(rowsByAddress(task.open(table)));
    }
    assertThat(viaHandle.entrySet()).containsExactlyElementsOf(planned.entrySet());
  }

  @Test
  void aTaskWhoseVersionACleanupRemovedFailsWithVersionNotFoundSayingWhatToDo() {
    CleanupTestClock clock = new CleanupTestClock(Instant.parse("2026-01-01T00:00:00Z"));
    MemoryObjectStore store = new MemoryObjectStore("test://cleaned", clock);
    DatasetOptions options = ScanFixture.options(allocator).toBuilder()
        .registry(ObjectStores.empty().register(TestStores.provider("test", () -> store)))
        .clock(clock)
        .build();
    try (Dataset ds = ScanFixture.create("test://cleaned", allocator, options)) {
      List<ScanTask> tasks = ds.newScan().planTasks();
      long planned = ds.version();
      clock.advance(Duration.ofDays(2));
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 500, 10)) {
        ds.append(List.of(b));
      }
      clock.advance(Duration.ofDays(2));
      ds.cleanup(CleanupOptions.builder().olderThan(Duration.ofDays(1)).safetyWindow(Duration.ofHours(1)).build());
      ScanTask task = tasks.get(0);
      for (Runnable open : List.<Runnable>of(() -> task.open(options), () -> task.open(ds))) {
        assertThatThrownBy(open::run)
            .isInstanceOfSatisfying(VersionNotFoundException.class, e -> assertThat(e.version()).isEqualTo(planned))
            .hasMessageContaining("planned at version " + planned)
            .hasMessageContaining("latest version is " + ds.version())
            .hasMessageContaining("cleanup removed it")
            .hasMessageContaining("Plan the scan again");
      }
    }
  }

  @Test
  void theLimitAppliesToEachTasksOwnRows() {
    List<ScanTask> tasks = table.newScan().filter(Predicate.gt("id", 10L)).limit(3).planTasks();
    assertThat(tasks).allSatisfy(t -> assertThat(t.limit()).hasValue(3));
    for (ScanTask task : tasks) {
      assertThat(rows(ScanTask.decode(task.encode()).open(worker()))).hasSize(3);
    }
  }

  @Test
  void encodingIsCompactDeterministicJavaSerializableAndKeepsEveryLiteralType() throws Exception {
    Predicate all = Predicate.and(
        Predicate.or(Predicate.eq("b", true), Predicate.eq("i8", (byte) -7), Predicate.eq("i16", (short) 300),
            Predicate.eq("i32", 5), Predicate.eq("i64", 5L), Predicate.eq("big", new BigInteger("-123456789012345678901")),
            Predicate.eq("f32", Float.NaN), Predicate.eq("f64", -0.0d), Predicate.eq("dec", new BigDecimal("-12.340"))),
        Predicate.in("s", "it's", "", "ünï"), Predicate.eq("bin", new byte[] {0, -1, 2}),
        Predicate.eq("d", LocalDate.of(1969, 12, 31)), Predicate.eq("ts", Instant.parse("1969-12-31T23:59:59.000000001Z")),
        Predicate.eq("ldt", LocalDateTime.parse("2024-02-29T12:00:00.5")), Predicate.not(Predicate.isNull("`a.b`.c")),
        Predicate.in("e"), Predicate.TRUE);
    io.quiver.internal.codec.ScanTaskCodec.Task fields = new io.quiver.internal.codec.ScanTaskCodec.Task(
        "s3://bucket/tables/people", "s3://bucket/tables/people", 42, 7, 100, 4_000, List.of(1, 4, 2),
        java.util.Optional.of(all), true, 8192, java.util.OptionalLong.of(10), 3_900, 1 << 20);
    ScanTask task = new ScanTask(fields);
    byte[] bytes = task.encode();
    assertThat(bytes).isEqualTo(task.encode()).isEqualTo(ScanTask.decode(bytes).encode());
    ScanTask decoded = ScanTask.decode(bytes);
    assertThat(decoded).isEqualTo(task);
    assertThat(decoded.filter()).hasValue(all);
    assertThat(decoded.filter().get().toString()).isEqualTo(all.toString());
    // A typical task is a few dozen bytes; Java serialization carries the same bytes.
    ScanTask typical = table.newScan().columns("id", "name").filter(Predicate.gt("id", 5L)).planTasks().get(0);
    assertThat(typical.encode().length).isLessThan(250);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ObjectOutputStream o = new ObjectOutputStream(out)) {
      o.writeObject(typical);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray()))) {
      ScanTask back = (ScanTask) in.readObject();
      assertThat(back).isEqualTo(typical);
      assertThat(rows(back.open(worker()))).isEqualTo(rows(typical.open(table)));
    }
  }

  @Test
  void damagedBytesAndTasksThatDoNotFitFailWithTypedErrors() {
    ScanTask task = table.newScan().filter(Predicate.gt("id", 5L)).planTasks().get(0);
    byte[] bytes = task.encode();
    byte[] flipped = bytes.clone();
    flipped[flipped.length - 1] ^= 0x40;
    assertThatThrownBy(() -> ScanTask.decode(flipped)).isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("checksum");
    assertThatThrownBy(() -> ScanTask.decode(Arrays.copyOf(bytes, 6))).isInstanceOf(CorruptFileException.class);
    assertThatThrownBy(() -> ScanTask.decode(null)).isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("ScanTask.encode()");
    assertThatThrownBy(() -> ScanTask.decode(table.distributed().newWriter().write(List.<VectorSchemaRoot>of()).encode()))
        .isInstanceOf(CorruptFileException.class).hasMessageContaining("QVP1");
    // A handle on another table is refused.
    try (Dataset other = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator))) {
      assertThatThrownBy(() -> task.open(other)).isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining(uri);
    }
    // A filter too deep for a task is refused when planning, not by a worker.
    Predicate deep = Predicate.gt("id", 0L);
    for (int i = 0; i < 250; i++) {
      deep = Predicate.not(deep);
    }
    Predicate tooDeep = deep;
    assertThatThrownBy(() -> table.newScan().filter(tooDeep).planTasks()).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("Flatten");
  }
}
