package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.google.protobuf.UnknownFieldSet;
import io.quiver.checkpoint.CheckpointStatus.State;
import io.quiver.checkpoint.CheckpointStatus;
import io.quiver.checkpoint.CheckpointStore;
import io.quiver.checkpoint.CheckpointedWriter.Outcome;
import io.quiver.checkpoint.CheckpointedWriter;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import io.quiver.manifest.CommitLedger;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalYearVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The format 1.1 tables under {@code compat/format-1.1/} (written once by the build named in the README there,
 * never regenerated) read cell for cell at every version in every later build, their tags, keys, watermarks and
 * staged checkpoints are found, and commits on top of them (in a copy) work and read back.
 *
 * <p>Expected values are computed here from the row index, by the formulas of the fixture's generator
 * ({@code MakeFixture.java.txt}), and the history's operations applied to them; nothing is a dump of the files.
 * Only the public API is used, so the engine's packages may move.
 */
class FormatCompatibilityTest {
  private static final String BASE = "memory://quiver-compat-1.1/";
  private static final String JOB = "job-7";

  private RootAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close(); // fails the test if any Arrow buffer leaked
  }

  // ---------------------------------------------------------------- fixture copies

  /** A copy of one fixture table in a fresh memory store at the location it was written at. */
  private static MemoryObjectStore copy(String table) {
    return copy(table, Clock.systemUTC());
  }

  /** {@link #copy(String)}, every object modified at {@code storeClock}'s time. */
  private static MemoryObjectStore copy(String table, Clock storeClock) {
    return TestStores.loadDirectory(new MemoryObjectStore(BASE + table, storeClock), resource(table));
  }

  /** A copy of the format 1.2 fixture table (compat/format-1.2/) at the location it was written at. */
  private static MemoryObjectStore copy12(String table) {
    return TestStores.loadDirectory(new MemoryObjectStore("memory://quiver-compat-1.2/" + table, Clock.systemUTC()),
        resource("../format-1.2/" + table));
  }

  private static Path resource(String name) {
    try {
      return Path.of(FormatCompatibilityTest.class.getResource("/compat/format-1.1/" + name).toURI()).normalize();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Options on the copy; commits are stamped one minute after the fixture's last one (its keys are in retention).
   * Every copy has its own session: the metadata cache knows tables by location, and the copies share one.
   */
  private DatasetOptions options(MemoryObjectStore store) {
    DatasetOptions read = DatasetOptions.builder().allocator(allocator).session(new Session(4 << 20))
        .registry(TestStores.registry("memory", TestStores.keepOpen(store))).build();
    Instant last;
    try (Dataset ds = Dataset.open(store.location(), read)) {
      last = ds.manifest().timestamp();
    }
    return read.toBuilder().clock(Clock.fixed(last.plusSeconds(60), ZoneOffset.UTC)).build();
  }

  // ---------------------------------------------------------------- reading cells

  /** Column names and rows by id (column 0), every cell normalised by {@link #cell}. */
  private record Table(List<String> columns, SortedMap<Long, List<Object>> rows) {
    Table copy() {
      SortedMap<Long, List<Object>> out = new TreeMap<>();
      rows.forEach((id, row) -> out.put(id, new ArrayList<>(row)));
      return new Table(new ArrayList<>(columns), out);
    }

    int column(String name) {
      int c = columns.indexOf(name);
      assertThat(c >= 0).as(name).isTrue();
      return c;
    }

    void set(long id, String column, Object value) {
      rows.get(id).set(column(column), value);
    }

    Object get(long id, String column) {
      return rows.get(id).get(column(column));
    }

    void addColumn(String name, java.util.function.LongFunction<Object> value) {
      columns.add(name);
      rows.forEach((id, row) -> row.add(value.apply(id)));
    }

    void dropColumn(String name) {
      int c = column(name);
      columns.remove(c);
      rows.values().forEach(row -> row.remove(c));
    }
  }

  private static Table read(Dataset ds) {
    List<String> columns = ds.schema().fields().stream().map(io.quiver.schema.Field::name).toList();
    SortedMap<Long, List<Object>> rows = new TreeMap<>();
    try (ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        assertThat(root.getSchema().getFields().stream().map(f -> f.getName()).toList()).isEqualTo(columns);
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(cell(v, i));
          }
          assertThat(rows.put((Long) row.get(0), row)).as("id " + row.get(0) + " read twice").isNull();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Table(columns, rows);
  }

  /**
   * A cell as a plain Java value: null; a struct as the list of its members; a list, fixed-size list or map as
   * the list of its items (a map entry as [key, value]); bytes as hex; times as their stored integer.
   */
  private static Object cell(ValueVector v, int i) {
    if (v.isNull(i)) {
      return null;
    }
    if (v instanceof StructVector s) {
      List<Object> members = new ArrayList<>();
      for (FieldVector child : s.getChildrenFromFields()) {
        members.add(cell(child, i));
      }
      return members;
    }
    if (v instanceof ListVector l) { // and MapVector
      List<Object> items = new ArrayList<>();
      for (int j = l.getElementStartIndex(i); j < l.getElementEndIndex(i); j++) {
        items.add(cell(l.getDataVector(), j));
      }
      return items;
    }
    if (v instanceof FixedSizeListVector l) {
      int size = ((ArrowType.FixedSizeList) l.getField().getType()).getListSize();
      List<Object> items = new ArrayList<>();
      for (int j = i * size; j < (i + 1) * size; j++) {
        items.add(cell(l.getDataVector(), j));
      }
      return items;
    }
    if (v instanceof VarCharVector s) {
      return new String(s.get(i), StandardCharsets.UTF_8);
    }
    if (v instanceof LargeVarCharVector s) {
      return new String(s.get(i), StandardCharsets.UTF_8);
    }
    if (v instanceof VarBinaryVector b) {
      return HexFormat.of().formatHex(b.get(i));
    }
    if (v instanceof FixedSizeBinaryVector b) {
      return HexFormat.of().formatHex(b.get(i));
    }
    if (v instanceof DecimalVector d) {
      return d.getObject(i);
    }
    if (v instanceof Decimal256Vector d) {
      return d.getObject(i);
    }
    if (v instanceof TimeStampVector t) {
      return t.get(i);
    }
    if (v instanceof DateDayVector d) {
      return d.get(i);
    }
    if (v instanceof TimeMicroVector t) {
      return t.get(i);
    }
    if (v instanceof DurationVector d) {
      return DurationVector.get(d.getDataBuffer(), i);
    }
    if (v instanceof IntervalYearVector iv) {
      return iv.get(i);
    }
    if (v instanceof UInt1Vector u) {
      return Byte.toUnsignedInt(u.get(i));
    }
    if (v instanceof BitVector b) {
      return b.get(i) == 1;
    }
    if (v instanceof Float8Vector d) {
      return nan(d.get(i));
    }
    if (v instanceof Float4Vector d) {
      return nan(d.get(i));
    }
    return v.getObject(i); // Long, Integer, Short
  }

  /** A float as itself (-0.0 and 0.0 differ), except a NaN: its bits, so a payload that changed is seen. */
  private static Object nan(double d) {
    return Double.isNaN(d) ? "NaN/" + Long.toHexString(Double.doubleToRawLongBits(d)) : (Object) d;
  }

  private static Object nan(float f) {
    return Float.isNaN(f) ? "NaN/" + Integer.toHexString(Float.floatToRawIntBits(f)) : (Object) f;
  }

  /** Every version of the table, from 1: reads cell for cell, validates, and names the expected operation. */
  private static void assertEveryVersion(Dataset latest, List<Table> expected, List<String> operations) {
    List<VersionInfo> versions = new ArrayList<>(latest.versions());
    java.util.Collections.reverse(versions);
    assertThat(versions.size()).isEqualTo(expected.size());
    for (int v = 1; v <= expected.size(); v++) {
      VersionInfo info = versions.get(v - 1);
      assertThat(info.version()).isEqualTo(v);
      assertThat(info.operation()).as("operation of version " + v).isEqualTo(operations.get(v - 1));
      try (Dataset ds = latest.checkout(v)) {
        Table want = expected.get(v - 1);
        Table got = read(ds);
        assertThat(got.columns()).as("columns of version " + v).isEqualTo(want.columns());
        for (Long id : want.rows().keySet()) {
          assertThat(got.rows().get(id)).as("version " + v + ", id " + id).isEqualTo(want.rows().get(id));
        }
        assertThat(got.rows().keySet()).as("ids of version " + v).isEqualTo(want.rows().keySet());
        assertThat(ds.countRows()).as("row count of version " + v).isEqualTo(want.rows().size());
        ValidationReport report = ds.validate();
        assertThat(report.isValid()).as("version " + v + ": " + report).isTrue();
      }
    }
  }

  // ---------------------------------------------------------------- the fixtures are format 1.1

  @Test
  void everyManifestOfTheFixturesIsFormat11WithTheLedgerAndDataFiles10() throws Exception {
    for (String table : List.of("history", "nested", "staged", "checkpointed")) {
      MemoryObjectStore store = copy(table);
      for (ObjectInfo o : store.listAll("_versions/")) {
        byte[] bytes = store.read(o.key());
        assertThat(new String(bytes, 0, 4, StandardCharsets.US_ASCII)).as(o.key()).isEqualTo("QVM1");
        // ManifestFile.manifest (1) -> Manifest.format_version (1) -> {major (1), minor (2)}
        UnknownFieldSet file = UnknownFieldSet.parseFrom(Arrays.copyOfRange(bytes, 8, bytes.length));
        UnknownFieldSet manifest = UnknownFieldSet.parseFrom(file.getField(1).getLengthDelimitedList().get(0));
        UnknownFieldSet format = UnknownFieldSet.parseFrom(manifest.getField(1).getLengthDelimitedList().get(0));
        assertThat(format.getField(1).getVarintList()).as(table + " " + o.key() + " major").isEqualTo(List.of(1L));
        assertThat(format.getField(2).getVarintList()).as(table + " " + o.key() + " minor").isEqualTo(List.of(1L));
      }
      try (Dataset latest = Dataset.open(store.location(), options(store))) {
        for (VersionInfo info : latest.versions()) {
          try (Dataset ds = latest.checkout(info.version())) {
            Manifest m = ds.manifest();
            assertThat(m.writerFeatures()).as(table + " v" + m.version()).isEqualTo(Set.of(CommitLedger.WRITER_FEATURE));
            assertThat(m.readerFeatures()).isEqualTo(Set.of());
            assertThat(m.ledger().isPresent()).as(table + " v" + m.version() + " has a ledger").isTrue();
            assertThat(m.ledger().get().completeFromVersion()).as("nothing expired while the fixture was written").isEqualTo(1);
            for (Fragment f : m.fragments()) {
              for (DataFile d : f.files()) {
                assertThat(List.of(d.formatMajor(), d.formatMinor())).as(d.path()).isEqualTo(List.of(1, 0));
              }
              f.overlays().forEach(o -> assertThat(List.of(o.dataFile().formatMajor(), o.dataFile().formatMinor())).as(o.dataFile().path()).isEqualTo(List.of(1, 0)));
            }
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- (a) history: one version per operation

  /** Row i of the history table: id, name prefix + i (null when i % 7 == 6), val 10i (null when i % 5 == 4). */
  private static List<Object> historyRow(String prefix, long i) {
    return new ArrayList<>(Arrays.asList(i, i % 7 == 6 ? null : prefix + i, i % 5 == 4 ? null : (int) (10 * i)));
  }

  private static List<Table> historyVersions() {
    List<Table> out = new ArrayList<>();
    Table t = new Table(new ArrayList<>(List.of("id", "name", "val")), new TreeMap<>());
    Consumer<Table> commit = x -> out.add(x.copy());
    for (long i = 0; i < 20; i++) {
      t.rows().put(i, historyRow("n", i));
    }
    commit.accept(t); // v1 create
    for (long i = 20; i < 30; i++) {
      t.rows().put(i, historyRow("n", i));
    }
    commit.accept(t); // v2 append
    for (long i = 30; i < 40; i++) {
      t.rows().put(i, historyRow("n", i));
    }
    commit.accept(t); // v3 keyed append
    t.rows().clear();
    for (long i = 0; i < 30; i++) {
      t.rows().put(i, historyRow("o", i));
    }
    commit.accept(t); // v4 keyed overwrite
    for (long i = 25; i <= 28; i++) {
      t.rows().remove(i);
    }
    commit.accept(t); // v5 delete val >= 250
    t.rows().remove(0L);
    t.rows().remove(11L);
    commit.accept(t); // v6 delete by address
    for (long id : new long[] {5, 15}) {
      t.set(id, "name", "lit");
      t.set(id, "val", -1);
    }
    commit.accept(t); // v7 literal update
    for (long id : t.rows().keySet()) {
      if (id >= 20) {
        Integer val = (Integer) t.get(id, "val");
        t.set(id, "val", val == null ? (int) id : val * 2 + 1);
      }
    }
    commit.accept(t); // v8 computed update
    t.addColumn("note", id -> null);
    commit.accept(t); // v9 all-null column
    t.addColumn("twice", id -> 2 * id);
    commit.accept(t); // v10 computed column
    Table v10 = t.copy();
    t.rows().forEach((id, row) -> t.set(id, "note", "t" + id));
    commit.accept(t); // v11 replaced data
    t.dropColumn("twice");
    commit.accept(t); // v12 drop
    t.columns().set(t.column("note"), "memo");
    commit.accept(t); // v13 rename
    commit.accept(t); // v14 memo non-nullable
    commit.accept(t); // v15 compaction
    out.add(v10.copy()); // v16 restore of v10
    out.add(v10.copy()); // v17 config
    out.add(v10.copy()); // v18 config
    return out;
  }

  private static final List<String> HISTORY_OPERATIONS = List.of("overwrite", "append", "append", "overwrite",
      "delete", "delete", "update", "update", "add-columns", "add-columns", "replace-data", "project", "project",
      "project", "rewrite", "restore", "update-config", "update-config");

  @Test
  void theHistoryTableReadsAtEveryVersionWithItsTagsKeysAndConfig() {
    MemoryObjectStore store = copy("history");
    List<Table> expected = historyVersions();
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      assertThat(ds.version()).isEqualTo(18);
      assertEveryVersion(ds, expected, HISTORY_OPERATIONS);
      try (Dataset v14 = ds.checkout(14); Dataset v13 = ds.checkout(13)) {
        assertThat(v13.schema().findField("memo").orElseThrow().nullable()).isTrue();
        assertThat(v14.schema().findField("memo").orElseThrow().nullable()).as("setNullable(memo, false) at v14").isFalse();
        assertThat(v14.manifest().fragments().size()).isEqualTo(3);
        assertThat(v14.manifest().fragments().stream().allMatch(f -> f.overlays().isEmpty())).as("v14 has overlays").isFalse();
      }
      try (Dataset v15 = ds.checkout(15)) {
        assertThat(v15.manifest().fragments().size()).as("compacted into one fragment").isEqualTo(1);
        assertThat(v15.manifest().fragments().get(0).overlays().isEmpty()).isTrue();
        assertThat(v15.manifest().fragments().get(0).deletionFile().isEmpty()).isTrue();
      }
      assertThat(ds.config()).isEqualTo(Map.of("compat.fixture", "format-1.1", "idempotence.retention", "3650d"));
      try (Dataset v17 = ds.checkout(17)) {
        assertThat(v17.config()).isEqualTo(Map.of("compat.fixture", "format-1.1", "compat.scratch", "x"));
      }
      // Tags
      assertThat(ds.tags().list()).isEqualTo(Map.of("before-compaction", 14L, "compacted", 15L, "created", 1L, "restored", 16L));
      try (Dataset restored = ds.checkout("restored"); Dataset created = ds.checkout("created")) {
        assertThat(restored.version()).isEqualTo(16);
        assertThat(read(restored)).isEqualTo(expected.get(15));
        assertThat(read(created)).isEqualTo(expected.get(0));
      }
      // Keys: the ledger names both keyed commits, with their operations
      CommitLookup append = ds.distributed().findCommit("history/append", 0);
      assertThat(append.status()).isEqualTo(CommitLookup.Status.COMMITTED);
      assertThat(append.version()).isEqualTo(3);
      assertThat(append.commit().orElseThrow().operation()).isEqualTo("append");
      CommitLookup overwrite = ds.distributed().findCommit("history/overwrite", 0);
      assertThat(overwrite.version()).isEqualTo(4);
      assertThat(overwrite.commit().orElseThrow().operation()).isEqualTo("overwrite");
      assertThat(ds.distributed().findCommit("history/never", 0).status()).isEqualTo(CommitLookup.Status.NOT_COMMITTED);
      assertThat(ds.manifest().ledger().orElseThrow().lastReplaceVersion()).as("the restore").isEqualTo(16);
    }
  }

  @Test
  void aFormat11TableStaysSingleFileUntilAskedThenUpgradesToSegmentsAndReadsTheSame() {
    MemoryObjectStore store = copy("history");
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      Table before = read(ds);
      // A commit by this build keeps a 1.1 table readable by 1.1 readers: single file, no new feature.
      ds.updateConfig(java.util.Map.of("owner", "compat"), java.util.Set.of());
      assertThat(ds.manifest().segmented()).isFalse();
      assertThat(ds.manifest().readerFeatures()).doesNotContain(io.quiver.manifest.Manifest.SEGMENTED_FEATURE);
      ds.updateConfig(java.util.Map.of("manifest.layout", "segmented", "manifest.segment.merge-factor", "2",
          "manifest.segment.max-fragments", "4"), java.util.Set.of());
      assertThat(ds.manifest().segmented()).isTrue();
      assertThat(ds.manifest().readerFeatures()).contains(io.quiver.manifest.Manifest.SEGMENTED_FEATURE);
      try (Dataset reopened = Dataset.open(store.location(), options(store))) {
        assertThat(read(reopened)).isEqualTo(before);
        assertThat(reopened.validate().isValid()).isTrue();
        // Older versions keep their single-file layout and read as they did.
        try (Dataset v18 = reopened.checkout(18)) {
          assertThat(v18.manifest().segmented()).isFalse();
          assertThat(read(v18)).isEqualTo(before);
        }
      }
    }
  }

  // ---------------------------------------------------------------- the format 1.2 fixture: segmented history

  /** The 1.2 fixture's versions (compat/format-1.2/README.md): the 1.1 history's, then 19..29 on segments. */
  private static List<Table> segmentedHistoryVersions() {
    List<Table> out = new ArrayList<>(historyVersions());
    Table t = out.get(17).copy();
    out.add(t.copy()); // v19 config: segmented
    for (int k = 0; k < 8; k++) {
      for (long i = 100 + 3 * k; i < 103 + 3 * k; i++) {
        List<Object> row = historyRow("s", i);
        row.add(null);
        row.add(2 * i);
        t.rows().put(i, row);
      }
      out.add(t.copy()); // v20..v27 appends
    }
    t.rows().remove(104L);
    out.add(t.copy()); // v28 delete
    for (long id = 120; id < 124; id++) {
      t.set(id, "name", "seg");
    }
    out.add(t.copy()); // v29 update
    return out;
  }

  /** The 1.2 fixture's operations: the 1.1 history's, then a configuration, eight appends, a delete, an update. */
  private static List<String> segmentedHistoryOperations() {
    List<String> operations = new ArrayList<>(HISTORY_OPERATIONS);
    operations.add("update-config");
    for (int k = 0; k < 8; k++) {
      operations.add("append");
    }
    operations.add("delete");
    operations.add("update");
    return operations;
  }

  /** Appends the row {@code id, "on-top", 10 id, null, 2 id} (the history's schema since v10); its version. */
  private long appendOnTop(Dataset ds, long id) {
    try (VectorSchemaRoot rows = VectorSchemaRoot.create(ds.schema().toArrow(), allocator)) {
      rows.allocateNew();
      ((BigIntVector) rows.getVector("id")).setSafe(0, id);
      ((VarCharVector) rows.getVector("name")).setSafe(0, "on-top".getBytes(StandardCharsets.UTF_8));
      ((IntVector) rows.getVector("val")).setSafe(0, (int) (10 * id));
      ((VarCharVector) rows.getVector("note")).setNull(0);
      ((BigIntVector) rows.getVector("twice")).setSafe(0, 2 * id);
      rows.setRowCount(1);
      return ds.append(List.of(rows));
    }
  }

  @Test
  void theFormat12FixtureReadsAtEveryVersionFromItsRootsAndSegmentsAndTakesCommitsOnTop() {
    MemoryObjectStore store = copy12("history");
    List<String> operations = segmentedHistoryOperations();
    List<Table> expected = segmentedHistoryVersions();
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      assertThat(ds.version()).isEqualTo(29);
      assertEveryVersion(ds, expected, operations);
      for (long v = 19; v <= 29; v++) {
        try (Dataset at = ds.checkout(v)) {
          assertThat(at.manifest().segmented()).as("v" + v).isTrue();
          assertThat(at.manifest().readerFeatures()).contains(io.quiver.manifest.Manifest.SEGMENTED_FEATURE);
          assertThat(at.manifest().segments()).allSatisfy(seg -> assertThat(seg.fragmentCount()).isBetween(1L, 4L));
        }
      }
      assertThat(store.listAll("_segments/")).as("segments shared and merged across versions").hasSizeGreaterThan(
          ds.manifest().segments().size());
      try (Dataset v18 = ds.checkout(18)) {
        assertThat(v18.manifest().segmented()).as("v18 stays single-file").isFalse();
      }
      // A filtered scan plans only fragments that may hold the rows.
      assertThat(scanIds(ds.newScan().filter(io.quiver.predicate.Predicate.eq("id", 121L)).open()))
          .containsExactly(121L);
      // A commit on top: merges segments again and reads back.
      assertThat(appendOnTop(ds, 500)).isEqualTo(30);
      try (Dataset reopened = Dataset.open(store.location(), options(store))) {
        Table want = expected.get(28).copy();
        want.rows().put(500L, new ArrayList<>(Arrays.asList(500L, "on-top", 5000, null, 1000L)));
        assertThat(read(reopened)).isEqualTo(want);
        assertThat(reopened.validate().isValid()).isTrue();
      }
    }
  }

  /** A copy of the segment-lists fixture table (compat/format-1.2-lists/) at the location it was written at. */
  private static MemoryObjectStore copy12Lists(String table) {
    return TestStores.loadDirectory(
        new MemoryObjectStore("memory://quiver-compat-1.2-lists/" + table, Clock.systemUTC()),
        resource("../format-1.2-lists/" + table));
  }

  /** The lists fixture's versions (compat/format-1.2-lists/README.md): the 1.2 history's, then 30..40. */
  private static List<Table> listedHistoryVersions() {
    List<Table> out = new ArrayList<>(segmentedHistoryVersions());
    Table t = out.get(28).copy();
    out.add(t.copy()); // v30 config: lists of at most 2 segments
    for (int k = 0; k < 8; k++) {
      for (long i = 200 + 2 * k; i < 202 + 2 * k; i++) {
        List<Object> row = historyRow("s", i);
        row.add(null);
        row.add(2 * i);
        t.rows().put(i, row);
      }
      out.add(t.copy()); // v31..v38 appends
    }
    t.rows().remove(101L);
    out.add(t.copy()); // v39 delete
    for (long id = 210; id < 216; id++) {
      t.set(id, "name", "lst");
    }
    out.add(t.copy()); // v40 update
    return out;
  }

  @Test
  void theSegmentListsFixtureReadsAtEveryVersionThroughItsListsAndTakesCommitsOnTop() {
    MemoryObjectStore store = copy12Lists("history");
    List<String> operations = new ArrayList<>(segmentedHistoryOperations());
    operations.addAll(segmentedHistoryOperations().subList(HISTORY_OPERATIONS.size(), HISTORY_OPERATIONS.size() + 11));
    List<Table> expected = listedHistoryVersions();
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      assertThat(ds.version()).isEqualTo(40);
      assertEveryVersion(ds, expected, operations);
      for (long v = 30; v <= 40; v++) {
        try (Dataset at = ds.checkout(v)) {
          io.quiver.manifest.FragmentList fragments = (io.quiver.manifest.FragmentList) at.manifest().fragments();
          assertThat(fragments.lists()).as("v" + v).isNotEmpty()
              .allSatisfy(l -> assertThat(l.segmentCount()).isBetween(1L, 2L));
          assertThat(at.manifest().readerFeatures()).contains(io.quiver.manifest.Manifest.SEGMENT_LISTS_FEATURE);
        }
      }
      try (Dataset v29 = ds.checkout(29)) {
        assertThat(((io.quiver.manifest.FragmentList) v29.manifest().fragments()).lists()).as("v29 names none")
            .isEmpty();
      }
      assertThat(scanIds(ds.newScan().filter(io.quiver.predicate.Predicate.eq("id", 205L)).open()))
          .containsExactly(205L);
      assertThat(appendOnTop(ds, 600)).isEqualTo(41);
      try (Dataset reopened = Dataset.open(store.location(), options(store))) {
        Table want = expected.get(39).copy();
        want.rows().put(600L, new ArrayList<>(Arrays.asList(600L, "on-top", 6000, null, 1200L)));
        assertThat(read(reopened)).isEqualTo(want);
        assertThat(reopened.validate().isValid()).isTrue();
      }
    }
  }

  /** The ids a scan returns, in order. */
  private static List<Long> scanIds(ArrowReader reader) {
    List<Long> ids = new ArrayList<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        BigIntVector id = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < id.getValueCount(); i++) {
          ids.add(id.get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }

  @Test
  void aCommitOnTopOfTheHistoryTableWorksAndKeepsItsLedger() {
    MemoryObjectStore store = copy("history");
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      // The latest schema is v10's (restored): id, name, val, note (all null), twice = 2 id.
      try (VectorSchemaRoot rows = VectorSchemaRoot.create(ds.schema().toArrow(), allocator)) {
        rows.allocateNew();
        for (int n = 0; n < 5; n++) {
          long i = 100 + n;
          ((BigIntVector) rows.getVector("id")).setSafe(n, i);
          ((VarCharVector) rows.getVector("name")).setSafe(n, ("n" + i).getBytes(StandardCharsets.UTF_8));
          ((IntVector) rows.getVector("val")).setSafe(n, (int) (10 * i));
          ((VarCharVector) rows.getVector("note")).setNull(n);
          ((BigIntVector) rows.getVector("twice")).setSafe(n, 2 * i);
        }
        rows.setRowCount(5);
        assertThat(ds.append(List.of(rows), CommitOptions.defaults().withIdempotenceKey("history/on-top"))).isEqualTo(19);
        // The same key with other rows than its first commit is refused, whatever build wrote the first one.
        assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> ds.append(List.of(rows), CommitOptions.defaults().withIdempotenceKey("history/append")));
      }
      assertThat(ds.latestVersion()).isEqualTo(19);
      Table want = historyVersions().get(17).copy();
      for (long i = 100; i < 105; i++) {
        want.rows().put(i, new ArrayList<>(Arrays.asList(i, "n" + i, (int) (10 * i), null, 2 * i)));
      }
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(read(latest)).isEqualTo(want);
        assertThat(latest.validate().isValid()).isTrue();
      }
      CommitLedger ledger = ds.manifest().ledger().orElseThrow();
      assertThat(ledger.completeFromVersion()).isEqualTo(1);
      assertThat(ledger.find("history/append").orElseThrow().version()).isEqualTo(3);
      assertThat(ledger.find("history/overwrite").orElseThrow().version()).isEqualTo(4);
      assertThat(ledger.find("history/on-top").orElseThrow().version()).isEqualTo(19);
      // Compaction and a delete over the fixture's files
      assertThat(ds.delete(Predicate.eq("id", 100L)).version()).isEqualTo(20);
      assertThat(ds.compact(CompactionOptions.defaults()).version()).isEqualTo(21);
      want.rows().remove(100L);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(read(latest)).isEqualTo(want);
        assertThat(latest.validate().isValid()).isTrue();
      }
    }
  }

  // ---------------------------------------------------------------- (b) nested and typed columns

  private static final List<String> NESTED_COLUMNS = List.of("id", "s", "l", "m", "fl", "fsb", "dec", "dec256", "ts",
      "lts", "d", "tm", "dur", "iv", "f", "f4", "b", "bin", "lu", "u8");

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  /** Row i of the nested table, by the generator's formulas. */
  private static List<Object> nestedRow(long i) {
    List<Object> row = new ArrayList<>();
    row.add(i);
    row.add(i % 5 == 4 ? null : Arrays.asList(i % 3 == 2 ? null : (int) (10 * i), i % 4 == 1 ? null : "y" + i,
        i % 6 == 3 ? null : Arrays.asList(i % 7 == 2 ? null : i + 0.5)));
    List<Object> l = new ArrayList<>();
    for (int j = 0; j < i % 4; j++) {
      l.add((i + j) % 5 == 3 ? null : (int) (10 * i + j));
    }
    row.add(i % 6 == 5 ? null : l);
    List<Object> m = new ArrayList<>();
    for (int j = 0; j < i % 3; j++) {
      m.add(Arrays.asList("k" + j, j == 1 ? null : 100 * i + j));
    }
    row.add(i % 5 == 3 ? null : m);
    row.add(i % 7 == 5 ? null : Arrays.asList((short) i, i % 4 == 2 ? null : (short) -i));
    row.add(i % 8 == 7 ? null : hex(ByteBuffer.allocate(4).putInt((int) (i * 16777619L)).array()));
    row.add(i % 9 == 8 ? null : BigDecimal.valueOf(1234 * i - 5000, 3));
    BigInteger big =
        BigInteger.TEN.pow(30).multiply(BigInteger.valueOf(i % 2 == 0 ? 1 : -1)).add(BigInteger.valueOf(i));
    row.add(i % 10 == 4 ? null : new BigDecimal(big, 5));
    row.add(i % 10 == 9 ? null : 1_700_000_000_000_000L + i * 3_600_000_001L);
    row.add(i % 12 == 11 ? null : 1_600_000_000_000L + i * 86_400_123L);
    row.add(i % 11 == 10 ? null : (int) (19000 + 3 * i));
    row.add(i % 13 == 12 ? null : i * 1_000_003L);
    row.add(i % 14 == 13 ? null : i * 1001 - 3000);
    row.add(i % 15 == 14 ? null : (int) i - 10);
    Double f = i == 0 ? -0.0 : i % 6 == 1 ? Double.NaN : i % 12 == 3 ? Double.POSITIVE_INFINITY
        : i % 12 == 9 ? Double.NEGATIVE_INFINITY : i * 0.25;
    row.add(i % 6 == 5 ? null : nan(f));
    row.add(i % 8 == 3 ? null : nan(i % 5 == 2 ? Float.NaN : i * 0.5f));
    row.add(i % 7 == 3 ? null : i % 3 == 0);
    byte[] bin = new byte[(int) (i % 4)];
    Arrays.fill(bin, (byte) (i & 0x7f));
    row.add(i % 13 == 5 ? null : hex(bin));
    row.add(i % 6 == 2 ? null : "large-" + i);
    row.add(i % 9 == 4 ? null : (int) (i * 37 % 256));
    return row;
  }

  private static List<Table> nestedVersions() {
    List<Table> out = new ArrayList<>();
    Table t = new Table(new ArrayList<>(NESTED_COLUMNS), new TreeMap<>());
    for (long i = 0; i < 24; i++) {
      t.rows().put(i, nestedRow(i));
    }
    out.add(t.copy()); // v1 create
    for (long i = 24; i < 36; i++) {
      t.rows().put(i, nestedRow(i));
    }
    out.add(t.copy()); // v2 append
    for (long id : new long[] {7, 10, 21, 32}) {
      t.rows().remove(id);
    }
    out.add(t.copy()); // v3 delete s.x = 70 or d is null
    for (long id : new long[] {1, 2, 3, 4, 9}) {
      @SuppressWarnings("unchecked")
      List<Object> s = (List<Object>) t.get(id, "s");
      if (s != null) { // values set under a null struct stay hidden
        t.set(id, "s", Arrays.asList(-1, null, s.get(2) == null ? null : Arrays.asList(0.5)));
      }
    }
    out.add(t.copy()); // v4 struct members
    for (long id : new long[] {6, 13, 30}) {
      t.set(id, "fsb", "01020304");
      t.set(id, "dec", new BigDecimal("-1.500"));
      t.set(id, "ts", Instant.parse("2030-01-01T00:00:00Z").getEpochSecond() * 1_000_000L);
      t.set(id, "d", (int) LocalDate.of(2030, 1, 1).toEpochDay());
      t.set(id, "f", nan(Double.NaN));
      t.set(id, "b", null);
      t.set(id, "lu", "updated");
      t.set(id, "u8", 255);
    }
    out.add(t.copy()); // v5 typed literals
    for (long id : t.rows().keySet()) {
      @SuppressWarnings("unchecked")
      List<Object> l = (List<Object>) t.get(id, "l");
      if (id >= 24 && l != null) {
        List<Object> reversed = new ArrayList<>(l);
        java.util.Collections.reverse(reversed);
        t.set(id, "l", reversed);
      }
    }
    out.add(t.copy()); // v6 computed list update
    for (long id : new long[] {0, 25}) {
      @SuppressWarnings("unchecked")
      List<Object> s = new ArrayList<>((List<Object>) t.get(id, "s"));
      s.set(1, "addr");
      t.set(id, "s", s);
      t.set(id, "b", true);
    }
    out.add(t.copy()); // v7 update by address
    t.rows().remove(30L);
    out.add(t.copy()); // v8 delete by address
    for (long i = 36; i < 42; i++) {
      t.rows().put(i, nestedRow(i));
    }
    out.add(t.copy()); // v9 keyed append
    out.add(t.copy()); // v10 compaction
    return out;
  }

  @Test
  void theNestedTableReadsAtEveryVersionAndTakesCommitsOnTop() {
    MemoryObjectStore store = copy("nested");
    List<Table> expected = nestedVersions();
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      assertThat(ds.version()).isEqualTo(10);
      assertEveryVersion(ds, expected, List.of("overwrite", "append", "delete", "update", "update", "update", "update",
          "delete", "append", "rewrite"));
      assertThat(ds.tags().version("overlaid")).isEqualTo(8);
      assertThat(ds.distributed().findCommit("nested/append", 0).version()).isEqualTo(9);
      // By address, at the overlaid version: the row addresses of v8 still resolve there.
      try (Dataset v8 = ds.checkout("overlaid")) {
        long fragment2 = v8.manifest().fragments().get(2).id();
        try (VectorSchemaRoot taken = v8.take(new long[] {fragment2 << 32 | 1, 1}, List.of("id", "s", "l"))) {
          assertThat(List.of(cell(taken.getVector("id"), 0), cell(taken.getVector("id"), 1))).isEqualTo(List.of(25L, 1L));
          assertThat(cell(taken.getVector("s"), 0)).isEqualTo(expected.get(7).get(25L, "s"));
          assertThat(cell(taken.getVector("l"), 0)).isEqualTo(expected.get(7).get(25L, "l"));
          assertThat(cell(taken.getVector("s"), 1)).isEqualTo(expected.get(7).get(1L, "s"));
        }
      }
      // On top: a member update, a delete, a compaction of the fixture's compacted file
      Map<String, Object> set = new LinkedHashMap<>();
      set.put("s.x", 12345);
      set.put("lu", "on-top");
      set.put("dec", new BigDecimal("7.000"));
      assertThat(ds.update(Predicate.in("id", 36L, 39L), set)).isEqualTo(new UpdateResult(11, 2));
      assertThat(ds.delete(Predicate.eq("id", 37L)).version()).isEqualTo(12);
      Table want = expected.get(9).copy();
      for (long id : new long[] {36, 39}) {
        @SuppressWarnings("unchecked")
        List<Object> s = (List<Object>) want.get(id, "s");
        if (s != null) {
          s = new ArrayList<>(s);
          s.set(0, 12345);
          want.set(id, "s", s);
        }
        want.set(id, "lu", "on-top");
        want.set(id, "dec", new BigDecimal("7.000"));
      }
      want.rows().remove(37L);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(read(latest)).isEqualTo(want);
      }
      assertThat(ds.compact(CompactionOptions.defaults()).version()).isEqualTo(13);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(read(latest)).isEqualTo(want);
        assertThat(latest.validate().isValid()).isTrue();
      }
    }
  }

  // ---------------------------------------------------------------- (c) staged column writes

  private static String text(long i) {
    return i % 6 == 4 ? null : "text-" + i;
  }

  private static List<Table> stagedVersions() {
    List<Table> out = new ArrayList<>();
    Table t = new Table(new ArrayList<>(List.of("id", "text", "s")), new TreeMap<>());
    for (long i = 0; i < 30; i++) {
      t.rows().put(i, new ArrayList<>(Arrays.asList(i, text(i),
          i % 5 == 2 ? null : Arrays.asList((int) (2 * i), i % 4 == 3 ? null : (int) i))));
    }
    out.add(t.copy()); // v1 create
    t.addColumn("len", i -> text(i) == null ? null : text(i).length());
    out.add(t.copy()); // v2 staged new column, 3 workers
    for (long id : t.rows().keySet()) {
      @SuppressWarnings("unchecked")
      List<Object> s = (List<Object>) t.get(id, "s");
      if (s != null && (id < 10 || id >= 20)) { // the struct's nulls stay, whatever the workers' batches said
        t.set(id, "s", Arrays.asList((int) (3 * id), s.get(1)));
      }
    }
    out.add(t.copy()); // v3 staged member rewrite, fragments 0 and 2
    t.set(12, "text", "upd");
    out.add(t.copy()); // v4 overlay
    t.rows().remove(20L);
    out.add(t.copy()); // v5 delete
    for (long id : t.rows().keySet()) {
      String text = (String) t.get(id, "text");
      t.set(id, "text", text == null ? null : text + "!");
    }
    t.addColumn("ns", i -> i % 6 == 5 ? null : Arrays.asList((int) i + 1, i % 4 == 0 ? null : "q" + i));
    out.add(t.copy()); // v6 staged rewrite and new struct column, 6 writes in one commit
    return out;
  }

  @Test
  void theStagedWriteTableReadsAtEveryVersionAndItsPendingWriteCommits() throws Exception {
    MemoryObjectStore store = copy("staged");
    List<Table> expected = stagedVersions();
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      assertThat(ds.version()).isEqualTo(6);
      assertEveryVersion(ds, expected, List.of("overwrite", "write-columns", "write-columns", "update", "delete",
          "write-columns"));
      try (Dataset v5 = ds.checkout(5)) {
        assertThat(v5.manifest().fragments().get(1).overlays().isEmpty()).as("text of id 12 in an overlay at v5").isFalse();
      }
      // A write staged by a worker at v6 (new column extra = 7 id for the second fragment, from id), never
      // committed when the fixture was written: it decodes and commits now.
      StagedColumnWrite pending = StagedColumnWrite.decode(Files.readAllBytes(resource("staged-pending-extra.qvs1")));
      assertThat(pending.readVersion()).isEqualTo(6);
      assertThat(pending.tableLocation()).isEqualTo(BASE + "staged");
      assertThat(ds.columns().commit(List.of(pending))).isEqualTo(7);
      Table want = expected.get(5).copy();
      want.addColumn("extra", i -> i >= 10 && i < 20 ? (int) (7 * i) : null);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(read(latest)).isEqualTo(want);
        assertThat(latest.validate().isValid()).isTrue();
      }
    }
  }

  // ---------------------------------------------------------------- (d) checkpointed writes and watermarks

  private static Table checkpointRows(long to) {
    Table t = new Table(new ArrayList<>(List.of("id", "name", "v")), new TreeMap<>());
    for (long i = 0; i < to; i++) {
      t.rows().put(i, new ArrayList<>(Arrays.asList(i, i % 7 == 6 ? null : "c" + i, i % 9 == 8 ? null : nan(i * 1.5))));
    }
    return t;
  }

  private VectorSchemaRoot checkpointBatch(Dataset ds, int from, int to) {
    VectorSchemaRoot root = VectorSchemaRoot.create(ds.schema().toArrow(), allocator);
    root.allocateNew();
    int n = 0;
    for (int i = from; i < to; i++, n++) {
      ((BigIntVector) root.getVector("id")).setSafe(n, i);
      if (i % 7 == 6) {
        ((VarCharVector) root.getVector("name")).setNull(n);
      } else {
        ((VarCharVector) root.getVector("name")).setSafe(n, ("c" + i).getBytes(StandardCharsets.UTF_8));
      }
      if (i % 9 == 8) {
        ((Float8Vector) root.getVector("v")).setNull(n);
      } else {
        ((Float8Vector) root.getVector("v")).setSafe(n, i * 1.5);
      }
    }
    root.setRowCount(n);
    return root;
  }

  @Test
  void theCheckpointedTableReadsAtEveryVersionAndItsStagedCheckpointsStandAsTheyWereLeft() {
    MemoryObjectStore store = copy("checkpointed");
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      assertThat(ds.version()).isEqualTo(6);
      List<Table> expected = new ArrayList<>();
      for (long to : new long[] {10, 20, 35, 40, 45, 50}) {
        expected.add(checkpointRows(to));
      }
      assertEveryVersion(ds, expected, List.of("overwrite", "append", "append", "append", "append", "append"));
      assertThat(ds.tags().version("before-checkpoint-3")).isEqualTo(6);
      // Keys and watermarks
      assertThat(ds.distributed().findCommit("job-7/1", 0).version()).isEqualTo(2);
      assertThat(ds.distributed().findCommit("job-7/2", 0).version()).isEqualTo(3);
      assertThat(ds.distributed().findCommit("batch-9", 0).version()).isEqualTo(6);
      assertThat(ds.distributed().findCommit("job-7/3", 0).status()).isEqualTo(CommitLookup.Status.NOT_COMMITTED);
      CommitLedger.SequenceWatermark stream1 = ds.distributed().applicationWatermark("stream-1").orElseThrow();
      assertThat(List.of(stream1.sequence(), stream1.version())).isEqualTo(List.of(8L, 5L));
      CommitLedger.SequenceWatermark stream2 = ds.distributed().applicationWatermark("stream-2").orElseThrow();
      assertThat(List.of(stream2.sequence(), stream2.version())).isEqualTo(List.of(100L, 6L));
      // The checkpoint store, as the job left it
      CheckpointStore checkpoints = CheckpointStore.in(store);
      assertThat(checkpoints.status(JOB, "1")).isEqualTo(new CheckpointStatus(JOB, "1", State.COMMITTED, List.of("t0", "t1"), OptionalLong.of(2)));
      assertThat(checkpoints.status(JOB, "2")).isEqualTo(new CheckpointStatus(JOB, "2", State.COMMITTED, List.of("t0", "t1", "t2"), OptionalLong.of(3)));
      assertThat(checkpoints.status(JOB, "3")).isEqualTo(new CheckpointStatus(JOB, "3", State.SEALED, List.of("t0", "t1"), OptionalLong.empty()));
      assertThat(checkpoints.status(JOB, "4")).isEqualTo(new CheckpointStatus(JOB, "4", State.OPEN, List.of("t0"), OptionalLong.empty()));
      assertThat(checkpoints.pending(JOB)).isEqualTo(List.of("3"));
      List<WriteResult> staged3 = checkpoints.staged(JOB, "3");
      assertThat(staged3.stream().map(WriteResult::readVersion).toList()).isEqualTo(List.of(6L, 6L));
      assertThat(staged3.stream().mapToLong(WriteResult::rows).sum()).isEqualTo(10);
    }
  }

  @Test
  void retriesOfTheFixturesCommitsAreRecognisedAndTheStagedCheckpointCommitsOnTop() {
    MemoryObjectStore store = copy("checkpointed");
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      CheckpointStore checkpoints = CheckpointStore.in(store);
      // The rows digest of today's build matches the one the fixture's build recorded: retries of its keyed
      // and sequenced commits publish nothing and return the original versions.
      assertThat(ds.distributed().commit(checkpoints.staged(JOB, "2"), WriteMode.APPEND,
          CommitOptions.defaults().withIdempotenceKey("job-7/2"))).isEqualTo(3);
      try (VectorSchemaRoot rows = checkpointBatch(ds, 45, 50)) {
        assertThat(ds.append(List.of(rows), CommitOptions.defaults().withIdempotenceKey("batch-9"))).isEqualTo(6);
        assertThatExceptionOfType(IdempotenceKeyConflictException.class).isThrownBy(() -> ds.append(List.of(rows), CommitOptions.defaults().withIdempotenceKey("job-7/1")));
      }
      try (VectorSchemaRoot rows = checkpointBatch(ds, 40, 45)) {
        assertThat(ds.append(List.of(rows), CommitOptions.defaults().withApplicationSequence("stream-1", 8))).isEqualTo(5);
      }
      assertThat(ds.latestVersion()).isEqualTo(6);
      // The driver recovers the job: the sealed checkpoint commits once, the open one waits.
      CheckpointedWriter writer = CheckpointedWriter.create(ds, checkpoints);
      List<CheckpointedWriter.Finalized> recovered = writer.recover(JOB);
      assertThat(recovered).isEqualTo(List.of(new CheckpointedWriter.Finalized("3", 7, Outcome.COMMITTED)));
      assertThat(writer.finalize(JOB, "1")).isEqualTo(new CheckpointedWriter.Finalized("1", 2, Outcome.ALREADY_MARKED));
      assertThat(checkpoints.status(JOB, "3").state()).isEqualTo(State.COMMITTED);
      assertThat(checkpoints.status(JOB, "4").state()).isEqualTo(State.OPEN);
      assertThat(checkpoints.pending(JOB)).isEqualTo(List.of());
      assertThat(ds.distributed().findCommit("job-7/3", 6).version()).isEqualTo(7);
      // A new sequence of stream-1 commits after it.
      try (VectorSchemaRoot rows = checkpointBatch(ds, 60, 63)) {
        assertThat(ds.append(List.of(rows), CommitOptions.defaults().withApplicationSequence("stream-1", 9))).isEqualTo(8);
      }
      assertThat(List.of(ds.distributed().applicationWatermark("stream-1").orElseThrow().sequence(),
          ds.distributed().applicationWatermark("stream-1").orElseThrow().version())).isEqualTo(List.of(9L, 8L));
      Table want = checkpointRows(63);
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(read(latest)).isEqualTo(want);
        assertThat(latest.validate().isValid()).isTrue();
      }
      CommitLedger ledger = ds.manifest().ledger().orElseThrow();
      assertThat(ledger.completeFromVersion()).isEqualTo(1);
      assertThat(ledger.keys().keySet()).containsExactly("job-7/1", "job-7/2", "batch-9", "job-7/3");
    }
  }

  @Test
  void aCleanupLongAfterTheJobKeepsTheSealedCheckpointsFilesWhichCommitAfterwards() {
    // Every object as old as it would be a month after the job: outside any safety window.
    MemoryObjectStore store = copy("checkpointed", Clock.fixed(Instant.parse("2000-01-01T00:00:00Z"), ZoneOffset.UTC));
    DatasetOptions options = options(store);
    Instant later = options.clock().instant().plus(java.time.Duration.ofDays(30));
    try (Dataset ds = Dataset.open(store.location(),
        options.toBuilder().clock(Clock.fixed(later, ZoneOffset.UTC)).build())) {
      CleanupReport report = ds.cleanup(CleanupOptions.builder().olderThan(java.time.Duration.ofDays(7)).build());
      assertThat(report.versionsRemoved()).as("all but the latest (and tagged) version").isEqualTo(List.of(1L, 2L, 3L, 4L, 5L));
      assertThat(report.dataFilesRemoved()).as("the abandoned open checkpoint's file").isEqualTo(1);
      assertThat(report.stagingFilesRemoved()).as("checkpoints 1 and 2 (committed) and 4 (abandoned)").isEqualTo(10);
      CheckpointStore checkpoints = CheckpointStore.in(store);
      assertThat(checkpoints.status(JOB, "1").state()).isEqualTo(State.ABSENT);
      assertThat(checkpoints.status(JOB, "4").state()).isEqualTo(State.ABSENT);
      assertThat(checkpoints.status(JOB, "3").state()).isEqualTo(State.SEALED);
      assertThat(ds.distributed().findCommit("job-7/1", 0).version()).as("the ledger outlives the versions").isEqualTo(2);
      assertThat(read(ds)).isEqualTo(checkpointRows(50));
      assertThat(CheckpointedWriter.create(ds, checkpoints).recover(JOB)).isEqualTo(List.of(new CheckpointedWriter.Finalized("3", 7, Outcome.COMMITTED)));
      try (Dataset latest = ds.checkoutLatest()) {
        assertThat(read(latest)).isEqualTo(checkpointRows(60));
        ValidationReport vr = latest.validate();
        assertThat(vr.isValid()).as(vr.toString()).isTrue();
      }
    }
  }
}
