package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.stream.Stream;
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
    MemoryObjectStore store = new MemoryObjectStore(BASE + table, storeClock);
    Path root = resource(table);
    try (Stream<Path> files = Files.walk(root)) {
      files.filter(Files::isRegularFile).forEach(f -> {
        try {
          store.write(root.relativize(f).toString().replace('\\', '/'), Files.readAllBytes(f));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return store;
  }

  private static Path resource(String name) {
    try {
      return Path.of(FormatCompatibilityTest.class.getResource("/compat/format-1.1/" + name).toURI());
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
      assertTrue(c >= 0, name);
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
        assertEquals(columns, root.getSchema().getFields().stream().map(f -> f.getName()).toList());
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector v : root.getFieldVectors()) {
            row.add(cell(v, i));
          }
          assertEquals(null, rows.put((Long) row.get(0), row), "id " + row.get(0) + " read twice");
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
    assertEquals(expected.size(), versions.size());
    for (int v = 1; v <= expected.size(); v++) {
      VersionInfo info = versions.get(v - 1);
      assertEquals(v, info.version());
      assertEquals(operations.get(v - 1), info.operation(), "operation of version " + v);
      try (Dataset ds = latest.checkout(v)) {
        Table want = expected.get(v - 1);
        Table got = read(ds);
        assertEquals(want.columns(), got.columns(), "columns of version " + v);
        for (Long id : want.rows().keySet()) {
          assertEquals(want.rows().get(id), got.rows().get(id), "version " + v + ", id " + id);
        }
        assertEquals(want.rows().keySet(), got.rows().keySet(), "ids of version " + v);
        assertEquals(want.rows().size(), ds.countRows(), "row count of version " + v);
        ValidationReport report = ds.validate();
        assertTrue(report.isValid(), "version " + v + ": " + report);
      }
    }
  }

  // ---------------------------------------------------------------- the fixtures are format 1.1

  @Test
  void everyManifestOfTheFixturesIsFormat11WithTheLedgerAndDataFiles10() throws IOException {
    for (String table : List.of("history", "nested", "staged", "checkpointed")) {
      MemoryObjectStore store = copy(table);
      for (ObjectInfo o : store.listAll("_versions/")) {
        byte[] bytes = store.read(o.key());
        assertEquals("QVM1", new String(bytes, 0, 4, StandardCharsets.US_ASCII), o.key());
        // ManifestFile.manifest (1) -> Manifest.format_version (1) -> {major (1), minor (2)}
        UnknownFieldSet file = UnknownFieldSet.parseFrom(Arrays.copyOfRange(bytes, 8, bytes.length));
        UnknownFieldSet manifest = UnknownFieldSet.parseFrom(file.getField(1).getLengthDelimitedList().get(0));
        UnknownFieldSet format = UnknownFieldSet.parseFrom(manifest.getField(1).getLengthDelimitedList().get(0));
        assertEquals(List.of(1L), format.getField(1).getVarintList(), table + " " + o.key() + " major");
        assertEquals(List.of(1L), format.getField(2).getVarintList(), table + " " + o.key() + " minor");
      }
      try (Dataset latest = Dataset.open(store.location(), options(store))) {
        for (VersionInfo info : latest.versions()) {
          try (Dataset ds = latest.checkout(info.version())) {
            Manifest m = ds.manifest();
            assertEquals(Set.of(CommitLedger.WRITER_FEATURE), m.writerFeatures(), table + " v" + m.version());
            assertEquals(Set.of(), m.readerFeatures());
            assertTrue(m.ledger().isPresent(), table + " v" + m.version() + " has a ledger");
            assertEquals(1, m.ledger().get().completeFromVersion(), "nothing expired while the fixture was written");
            for (Fragment f : m.fragments()) {
              for (DataFile d : f.files()) {
                assertEquals(List.of(1, 0), List.of(d.formatMajor(), d.formatMinor()), d.path());
              }
              f.overlays().forEach(o -> assertEquals(List.of(1, 0),
                  List.of(o.dataFile().formatMajor(), o.dataFile().formatMinor()), o.dataFile().path()));
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
      assertEquals(18, ds.version());
      assertEveryVersion(ds, expected, HISTORY_OPERATIONS);
      try (Dataset v14 = ds.checkout(14); Dataset v13 = ds.checkout(13)) {
        assertTrue(v13.schema().findField("memo").orElseThrow().nullable());
        assertFalse(v14.schema().findField("memo").orElseThrow().nullable(), "setNullable(memo, false) at v14");
        assertEquals(3, v14.manifest().fragments().size());
        assertFalse(v14.manifest().fragments().stream().allMatch(f -> f.overlays().isEmpty()), "v14 has overlays");
      }
      try (Dataset v15 = ds.checkout(15)) {
        assertEquals(1, v15.manifest().fragments().size(), "compacted into one fragment");
        assertTrue(v15.manifest().fragments().get(0).overlays().isEmpty());
        assertTrue(v15.manifest().fragments().get(0).deletionFile().isEmpty());
      }
      assertEquals(Map.of("compat.fixture", "format-1.1", "idempotence.retention", "3650d"), ds.config());
      try (Dataset v17 = ds.checkout(17)) {
        assertEquals(Map.of("compat.fixture", "format-1.1", "compat.scratch", "x"), v17.config());
      }
      // Tags
      assertEquals(Map.of("before-compaction", 14L, "compacted", 15L, "created", 1L, "restored", 16L),
          ds.tags().list());
      try (Dataset restored = ds.checkout("restored"); Dataset created = ds.checkout("created")) {
        assertEquals(16, restored.version());
        assertEquals(expected.get(15), read(restored));
        assertEquals(expected.get(0), read(created));
      }
      // Keys: the ledger names both keyed commits, with their operations
      CommitLookup append = ds.distributed().findCommit("history/append", 0);
      assertEquals(CommitLookup.Status.COMMITTED, append.status());
      assertEquals(3, append.version());
      assertEquals("append", append.commit().orElseThrow().operation());
      CommitLookup overwrite = ds.distributed().findCommit("history/overwrite", 0);
      assertEquals(4, overwrite.version());
      assertEquals("overwrite", overwrite.commit().orElseThrow().operation());
      assertEquals(CommitLookup.Status.NOT_COMMITTED, ds.distributed().findCommit("history/never", 0).status());
      assertEquals(16, ds.manifest().ledger().orElseThrow().lastReplaceVersion(), "the restore");
    }
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
        assertEquals(19, ds.append(List.of(rows), CommitOptions.defaults().withIdempotenceKey("history/on-top")));
        // The same key with other rows than its first commit is refused, whatever build wrote the first one.
        assertThrows(IdempotenceKeyConflictException.class,
            () -> ds.append(List.of(rows), CommitOptions.defaults().withIdempotenceKey("history/append")));
      }
      assertEquals(19, ds.latestVersion());
      Table want = historyVersions().get(17).copy();
      for (long i = 100; i < 105; i++) {
        want.rows().put(i, new ArrayList<>(Arrays.asList(i, "n" + i, (int) (10 * i), null, 2 * i)));
      }
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(want, read(latest));
        assertTrue(latest.validate().isValid());
      }
      CommitLedger ledger = ds.manifest().ledger().orElseThrow();
      assertEquals(1, ledger.completeFromVersion());
      assertEquals(3, ledger.find("history/append").orElseThrow().version());
      assertEquals(4, ledger.find("history/overwrite").orElseThrow().version());
      assertEquals(19, ledger.find("history/on-top").orElseThrow().version());
      // Compaction and a delete over the fixture's files
      assertEquals(20, ds.delete(Predicate.eq("id", 100L)).version());
      assertEquals(21, ds.compact(CompactionOptions.defaults()).version());
      want.rows().remove(100L);
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(want, read(latest));
        assertTrue(latest.validate().isValid());
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
      assertEquals(10, ds.version());
      assertEveryVersion(ds, expected, List.of("overwrite", "append", "delete", "update", "update", "update", "update",
          "delete", "append", "rewrite"));
      assertEquals(8, ds.tags().version("overlaid"));
      assertEquals(9, ds.distributed().findCommit("nested/append", 0).version());
      // By address, at the overlaid version: the row addresses of v8 still resolve there.
      try (Dataset v8 = ds.checkout("overlaid")) {
        long fragment2 = v8.manifest().fragments().get(2).id();
        try (VectorSchemaRoot taken = v8.take(new long[] {fragment2 << 32 | 1, 1}, List.of("id", "s", "l"))) {
          assertEquals(List.of(25L, 1L), List.of(cell(taken.getVector("id"), 0), cell(taken.getVector("id"), 1)));
          assertEquals(expected.get(7).get(25L, "s"), cell(taken.getVector("s"), 0));
          assertEquals(expected.get(7).get(25L, "l"), cell(taken.getVector("l"), 0));
          assertEquals(expected.get(7).get(1L, "s"), cell(taken.getVector("s"), 1));
        }
      }
      // On top: a member update, a delete, a compaction of the fixture's compacted file
      Map<String, Object> set = new LinkedHashMap<>();
      set.put("s.x", 12345);
      set.put("lu", "on-top");
      set.put("dec", new BigDecimal("7.000"));
      assertEquals(new UpdateResult(11, 2), ds.update(Predicate.in("id", 36L, 39L), set));
      assertEquals(12, ds.delete(Predicate.eq("id", 37L)).version());
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
        assertEquals(want, read(latest));
      }
      assertEquals(13, ds.compact(CompactionOptions.defaults()).version());
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(want, read(latest));
        assertTrue(latest.validate().isValid());
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
  void theStagedWriteTableReadsAtEveryVersionAndItsPendingWriteCommits() throws IOException {
    MemoryObjectStore store = copy("staged");
    List<Table> expected = stagedVersions();
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      assertEquals(6, ds.version());
      assertEveryVersion(ds, expected, List.of("overwrite", "write-columns", "write-columns", "update", "delete",
          "write-columns"));
      try (Dataset v5 = ds.checkout(5)) {
        assertFalse(v5.manifest().fragments().get(1).overlays().isEmpty(), "text of id 12 in an overlay at v5");
      }
      // A write staged by a worker at v6 (new column extra = 7 id for the second fragment, from id), never
      // committed when the fixture was written: it decodes and commits now.
      StagedColumnWrite pending = StagedColumnWrite.decode(Files.readAllBytes(resource("staged-pending-extra.qvs1")));
      assertEquals(6, pending.readVersion());
      assertEquals(BASE + "staged", pending.tableLocation());
      assertEquals(7, ds.columns().commit(List.of(pending)));
      Table want = expected.get(5).copy();
      want.addColumn("extra", i -> i >= 10 && i < 20 ? (int) (7 * i) : null);
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(want, read(latest));
        assertTrue(latest.validate().isValid());
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
      assertEquals(6, ds.version());
      List<Table> expected = new ArrayList<>();
      for (long to : new long[] {10, 20, 35, 40, 45, 50}) {
        expected.add(checkpointRows(to));
      }
      assertEveryVersion(ds, expected, List.of("overwrite", "append", "append", "append", "append", "append"));
      assertEquals(6, ds.tags().version("before-checkpoint-3"));
      // Keys and watermarks
      assertEquals(2, ds.distributed().findCommit("job-7/1", 0).version());
      assertEquals(3, ds.distributed().findCommit("job-7/2", 0).version());
      assertEquals(6, ds.distributed().findCommit("batch-9", 0).version());
      assertEquals(CommitLookup.Status.NOT_COMMITTED, ds.distributed().findCommit("job-7/3", 0).status());
      CommitLedger.SequenceWatermark stream1 = ds.distributed().applicationWatermark("stream-1").orElseThrow();
      assertEquals(List.of(8L, 5L), List.of(stream1.sequence(), stream1.version()));
      CommitLedger.SequenceWatermark stream2 = ds.distributed().applicationWatermark("stream-2").orElseThrow();
      assertEquals(List.of(100L, 6L), List.of(stream2.sequence(), stream2.version()));
      // The checkpoint store, as the job left it
      CheckpointStore checkpoints = CheckpointStore.in(store);
      assertEquals(new CheckpointStatus(JOB, "1", State.COMMITTED, List.of("t0", "t1"), OptionalLong.of(2)),
          checkpoints.status(JOB, "1"));
      assertEquals(new CheckpointStatus(JOB, "2", State.COMMITTED, List.of("t0", "t1", "t2"), OptionalLong.of(3)),
          checkpoints.status(JOB, "2"));
      assertEquals(new CheckpointStatus(JOB, "3", State.SEALED, List.of("t0", "t1"), OptionalLong.empty()),
          checkpoints.status(JOB, "3"));
      assertEquals(new CheckpointStatus(JOB, "4", State.OPEN, List.of("t0"), OptionalLong.empty()),
          checkpoints.status(JOB, "4"));
      assertEquals(List.of("3"), checkpoints.pending(JOB));
      List<WriteResult> staged3 = checkpoints.staged(JOB, "3");
      assertEquals(List.of(6L, 6L), staged3.stream().map(WriteResult::readVersion).toList());
      assertEquals(10, staged3.stream().mapToLong(WriteResult::rows).sum());
    }
  }

  @Test
  void retriesOfTheFixturesCommitsAreRecognisedAndTheStagedCheckpointCommitsOnTop() {
    MemoryObjectStore store = copy("checkpointed");
    try (Dataset ds = Dataset.open(store.location(), options(store))) {
      CheckpointStore checkpoints = CheckpointStore.in(store);
      // The rows digest of today's build matches the one the fixture's build recorded: retries of its keyed
      // and sequenced commits publish nothing and return the original versions.
      assertEquals(3, ds.distributed().commit(checkpoints.staged(JOB, "2"), WriteMode.APPEND,
          CommitOptions.defaults().withIdempotenceKey("job-7/2")));
      try (VectorSchemaRoot rows = checkpointBatch(ds, 45, 50)) {
        assertEquals(6, ds.append(List.of(rows), CommitOptions.defaults().withIdempotenceKey("batch-9")));
        assertThrows(IdempotenceKeyConflictException.class,
            () -> ds.append(List.of(rows), CommitOptions.defaults().withIdempotenceKey("job-7/1")));
      }
      try (VectorSchemaRoot rows = checkpointBatch(ds, 40, 45)) {
        assertEquals(5, ds.append(List.of(rows), CommitOptions.defaults().withApplicationSequence("stream-1", 8)));
      }
      assertEquals(6, ds.latestVersion());
      // The driver recovers the job: the sealed checkpoint commits once, the open one waits.
      CheckpointedWriter writer = CheckpointedWriter.create(ds, checkpoints);
      List<CheckpointedWriter.Finalized> recovered = writer.recover(JOB);
      assertEquals(List.of(new CheckpointedWriter.Finalized("3", 7, Outcome.COMMITTED)), recovered);
      assertEquals(new CheckpointedWriter.Finalized("1", 2, Outcome.ALREADY_MARKED), writer.finalize(JOB, "1"));
      assertEquals(State.COMMITTED, checkpoints.status(JOB, "3").state());
      assertEquals(State.OPEN, checkpoints.status(JOB, "4").state());
      assertEquals(List.of(), checkpoints.pending(JOB));
      assertEquals(7, ds.distributed().findCommit("job-7/3", 6).version());
      // A new sequence of stream-1 commits after it.
      try (VectorSchemaRoot rows = checkpointBatch(ds, 60, 63)) {
        assertEquals(8, ds.append(List.of(rows), CommitOptions.defaults().withApplicationSequence("stream-1", 9)));
      }
      assertEquals(List.of(9L, 8L), List.of(ds.distributed().applicationWatermark("stream-1").orElseThrow().sequence(),
          ds.distributed().applicationWatermark("stream-1").orElseThrow().version()));
      Table want = checkpointRows(63);
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(want, read(latest));
        assertTrue(latest.validate().isValid());
      }
      CommitLedger ledger = ds.manifest().ledger().orElseThrow();
      assertEquals(1, ledger.completeFromVersion());
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
      assertEquals(List.of(1L, 2L, 3L, 4L, 5L), report.versionsRemoved(), "all but the latest (and tagged) version");
      assertEquals(1, report.dataFilesRemoved(), "the abandoned open checkpoint's file");
      assertEquals(10, report.stagingFilesRemoved(), "checkpoints 1 and 2 (committed) and 4 (abandoned)");
      CheckpointStore checkpoints = CheckpointStore.in(store);
      assertEquals(State.ABSENT, checkpoints.status(JOB, "1").state());
      assertEquals(State.ABSENT, checkpoints.status(JOB, "4").state());
      assertEquals(State.SEALED, checkpoints.status(JOB, "3").state());
      assertEquals(2, ds.distributed().findCommit("job-7/1", 0).version(), "the ledger outlives the versions");
      assertEquals(checkpointRows(50), read(ds));
      assertEquals(List.of(new CheckpointedWriter.Finalized("3", 7, Outcome.COMMITTED)),
          CheckpointedWriter.create(ds, checkpoints).recover(JOB));
      try (Dataset latest = ds.checkoutLatest()) {
        assertEquals(checkpointRows(60), read(latest));
        ValidationReport vr = latest.validate();
        assertTrue(vr.isValid(), vr.toString());
      }
    }
  }
}
