package io.quiver.conformance.crossreader;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.conformance.emulator.AzuriteEmulator;
import io.quiver.conformance.emulator.FakeGcsEmulator;
import io.quiver.conformance.emulator.S3ProxyEmulator;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Scanner;
import io.quiver.dataset.VersionInfo;
import io.quiver.predicate.Predicate;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The pure-Python reader ({@code python/}, package {@code quiver}) against the Java reader. This test exports what
 * the Java reader returns as Arrow IPC files with a JSON index under {@code target/python-reader/}: every version
 * of every compatibility fixture under {@code format-core/src/test/resources/compat/}, every version of a table this
 * test builds with the Java API (create, append, delete, update, column add, compaction, merge-insert), filtered
 * reads of it, and the same journey on S3Proxy. It then runs pytest on {@code python/tests} (in the pyarrow
 * environment that {@code emulators/pyarrow/install.sh} makes) with {@code QUIVER_EXPECTATIONS} naming the index;
 * pytest compares cell for cell, checks pruning counts and that corrupt files raise {@code quiver.CorruptFileError}
 * naming the file. A pytest failure fails this test with pytest's output.
 */
class PythonReaderIT {
  private static final Schema JOURNEY = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("val", FieldType.nullable(new ArrowType.Int(32, true)), null),
      new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
          new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null),
          new Field("y", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));

  private final List<Map<String, Object>> index = new ArrayList<>();

  private static Path repoRoot() {
    String property = System.getProperty("quiver.repo.root");
    if (property != null && !property.isEmpty()) {
      return Path.of(property);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("emulators")) && Files.isDirectory(p.resolve("python"))) {
        return p;
      }
    }
    throw new IllegalStateException("cannot find the repository root; set -Dquiver.repo.root");
  }

  private static Path python() {
    String venv = System.getProperty("quiver.pyarrow.venv", System.getenv().getOrDefault("QUIVER_PYARROW_VENV",
        System.getProperty("user.home") + "/.cache/quiver/pyarrow-venv"));
    Path python = Path.of(venv, "bin", "python");
    if (!Files.isExecutable(python)) {
      throw new IllegalStateException("no Python environment at " + venv + ": the build installs it before the"
          + " integration tests (emulators/pyarrow/install.sh); run that script, or skip integration tests with -DskipITs");
    }
    return python;
  }

  @Test
  void thePythonReaderReadsWhatTheJavaReaderReads() throws Exception {
    Path out = Path.of("target", "python-reader").toAbsolutePath();
    deleteRecursively(out);
    Files.createDirectories(out);
    Path compat = repoRoot().resolve("format-core/src/test/resources/compat");
    try (RootAllocator allocator = new RootAllocator()) {
      DatasetOptions read = DatasetOptions.builder().allocator(allocator).build();
      // (1) every version of every compatibility fixture
      List<Path> tables;
      try (Stream<Path> s = Files.walk(compat, 2)) {
        tables = s.filter(p -> Files.isDirectory(p.resolve("_versions"))).sorted().toList();
      }
      assertThat(tables).hasSizeGreaterThanOrEqualTo(11);
      int fixtureVersions = 0;
      for (Path table : tables) {
        String name = compat.relativize(table).toString().replace('/', '_');
        String uri = "file://" + table.toAbsolutePath();
        try (Dataset ds = Dataset.open(uri, read)) {
          for (VersionInfo info : ds.versions()) {
            try (Dataset at = ds.checkout(info.version())) {
              export(at, at.newScan().withRowAddress(true), out.resolve("fixtures/" + name + "/v" + info.version()
                  + ".arrow"), "fixture", name, table.toString(), null, null);
              fixtureVersions++;
            }
          }
        }
      }
      assertThat(fixtureVersions).isGreaterThan(100);

      // (1b) the change feed of the format 1.4 fixture between every pair of its versions (docs/format.md §14.3)
      Path rowIds = compat.resolve("rowids-1.4/table");
      int feeds = 0;
      try (Dataset ds = Dataset.open("file://" + rowIds.toAbsolutePath(), read)) {
        for (long a = 1; a < ds.version(); a++) {
          for (long b = a + 1; b <= ds.version(); b++) {
            try (Dataset at = ds.checkout(b)) {
              Path file = out.resolve("changes/v" + a + "-v" + b + ".arrow");
              long rows = write(at.changes(a, b).open(), file);
              Map<String, Object> e = new LinkedHashMap<>();
              e.put("kind", "changes");
              e.put("name", "rowids-1.4");
              e.put("table", rowIds.toString());
              e.put("from", a);
              e.put("version", b);
              e.put("expected", file.toString());
              e.put("rows", rows);
              index.add(e);
              feeds++;
            }
          }
        }
      }
      assertThat(feeds).isEqualTo(21);

      // (2) a table built with the Java API, every version; (3) filtered reads of its latest version
      Path journey = out.resolve("journey");
      buildJourney("file://" + journey, read, allocator, 1024);
      exportJourney("file://" + journey, journey.toString(), read, out.resolve("journey-expect"), "journey");

      // (5) the same journey on S3Proxy, fake-gcs-server and Azurite, read by pyarrow's S3, GCS and Azure
      // filesystems from the options the Java adapters take
      Map<String, Map<String, String>> stores = new LinkedHashMap<>();
      try (S3ProxyEmulator s3proxy = S3ProxyEmulator.start();
          FakeGcsEmulator gcs = FakeGcsEmulator.start();
          AzuriteEmulator azurite = AzuriteEmulator.start()) {
        s3proxy.createBucket("quiver-py");
        gcs.createBucket("quiver-py");
        azurite.createContainer("quiver-py");
        stores.put("s3", s3proxy.storeOptions());
        stores.put("gs", gcs.storeOptions());
        stores.put("az", azurite.options());
        for (Map.Entry<String, Map<String, String>> store : stores.entrySet()) {
          String uri = store.getKey() + "://quiver-py/journey";
          DatasetOptions remote = read.toBuilder().storeOptions(store.getValue()).build();
          buildJourney(uri, remote, allocator, 1 << 20);
          exportJourney(uri, uri, remote, out.resolve(store.getKey() + "-expect"), store.getKey());
        }
        Path indexFile = out.resolve("index.json");
        Files.writeString(indexFile, indexJson(stores), StandardCharsets.UTF_8);
        runPytest(indexFile, out);
      }
    }
  }

  /** The journey, its ZSTD bodies in frames of {@code frameBytes} (docs/format.md §5.1). */
  private static void buildJourney(String uri, DatasetOptions base, BufferAllocator allocator, int frameBytes)
      throws IOException {
    DatasetOptions options = base.toBuilder().rowsPerBatch(16).maxRowsPerFragment(25).build();
    try (VectorSchemaRoot rows = rows(allocator, 0, 300);
        Dataset ds = Dataset.create(uri, JOURNEY, List.of(rows), options,
            Map.of("write.compression.frame-bytes", Integer.toString(frameBytes),
                "write.compression.min-savings", "0"))) {
      try (VectorSchemaRoot more = rows(allocator, 300, 400)) {
        ds.append(List.of(more));
      }
      ds.delete(Predicate.in("id", 3L, 40L, 41L, 250L, 399L));
      ds.delete(Predicate.and(Predicate.ge("val", 100), Predicate.lt("val", 105)));
      ds.update(Predicate.in("id", 5L, 77L, 301L), Map.of("name", "upd", "val", -1));
      ds.update(Predicate.eq("id", 12L), Map.of("s.y", "upd-y"));
      ds.columns().add(List.of(new Field("note", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
      ds.compact(CompactionOptions.defaults().withTargetRowsPerFragment(100).withSmallFragmentRows(30));
      try (ArrowReader src = mergeSource(allocator)) {
        ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(src);
      }
      ds.delete(Predicate.eq("id", 7L));
      ds.tags().create("after-merge", ds.version());
    }
  }

  private void exportJourney(String uri, String where, DatasetOptions read, Path dir, String kind) throws IOException {
    try (Dataset ds = Dataset.open(uri, read)) {
      for (VersionInfo info : ds.versions()) {
        try (Dataset at = ds.checkout(info.version())) {
          export(at, at.newScan().withRowAddress(true), dir.resolve("v" + info.version() + ".arrow"), kind, kind,
              where, null, null);
        }
      }
      Map<String, Predicate> filters = new LinkedHashMap<>();
      filters.put("id < 50", Predicate.lt("id", 50L));
      filters.put("val >= 200 | name is null", Predicate.or(Predicate.ge("val", 200), Predicate.isNull("name")));
      filters.put("id in (5, 12, 77, 401)", Predicate.in("id", 5L, 12L, 77L, 401L));
      filters.put("s.x > 900", Predicate.gt("s.x", 900));
      int i = 0;
      for (Map.Entry<String, Predicate> f : filters.entrySet()) {
        export(ds, ds.newScan().filter(f.getValue()).withRowAddress(true), dir.resolve("filter-" + i++ + ".arrow"),
            kind + "-filter", kind, where, f.getKey(), null);
      }
    }
  }

  private void export(Dataset ds, Scanner scan, Path file, String kind, String name, String table, String filter,
      String tag) throws IOException {
    long rows = write(scan.open(), file);
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("kind", kind);
    e.put("name", name);
    e.put("table", table);
    e.put("version", ds.version());
    e.put("expected", file.toString());
    e.put("rows", rows);
    e.put("count_rows", filter == null ? ds.countRows() : rows);
    if (filter != null) {
      e.put("filter", filter);
    }
    index.add(e);
  }

  /** Writes what {@code reader} returns to {@code file} as an Arrow IPC file, closing the reader; returns the rows. */
  private static long write(ArrowReader reader, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    long rows = 0;
    try (reader;
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
        ArrowFileWriter w = new ArrowFileWriter(reader.getVectorSchemaRoot(), null, ch)) {
      w.start();
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
        w.writeBatch();
      }
      w.end();
    }
    return rows;
  }

  private static VectorSchemaRoot rows(BufferAllocator allocator, int from, int to) {
    VectorSchemaRoot root = VectorSchemaRoot.create(JOURNEY, allocator);
    fill(root, from, to, "n");
    return root;
  }

  private static void fill(VectorSchemaRoot root, int from, int to, String prefix) {
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    IntVector val = (IntVector) root.getVector("val");
    StructVector s = (StructVector) root.getVector("s");
    IntVector x = (IntVector) s.getChild("x");
    VarCharVector y = (VarCharVector) s.getChild("y");
    for (int r = 0; r < to - from; r++) {
      int i = from + r;
      id.setSafe(r, i);
      if (i % 7 == 6) {
        name.setNull(r);
      } else {
        name.setSafe(r, (prefix + i).getBytes(StandardCharsets.UTF_8));
      }
      if (i % 5 == 4) {
        val.setNull(r);
      } else {
        val.setSafe(r, i);
      }
      if (i % 9 == 8) {
        s.setNull(r);
        x.setNull(r);
        y.setNull(r);
      } else {
        s.setIndexDefined(r);
        x.setSafe(r, (i * 37) % 1000);
        if (i % 4 == 1) {
          y.setNull(r);
        } else {
          y.setSafe(r, ("y" + i % 6).getBytes(StandardCharsets.UTF_8));
        }
      }
    }
    root.setRowCount(to - from);
  }

  private static ArrowReader mergeSource(BufferAllocator allocator) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(JOURNEY, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      writer.start();
      fill(root, 380, 420, "m"); // 380..398 update (399 was deleted), 399..419 insert
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  /** {@code store_options}: each emulator's store options by URI scheme; {@code entries}: what was exported. */
  private String indexJson(Map<String, Map<String, String>> stores) {
    StringBuilder b = new StringBuilder("{\n\"store_options\": {");
    stores.forEach((scheme, options) -> b.append(b.charAt(b.length() - 1) == '{' ? "" : ", ").append(quote(scheme))
        .append(": ").append(jsonMap(options)));
    b.append("},\n\"entries\": [\n");
    for (int i = 0; i < index.size(); i++) {
      b.append(i == 0 ? "  " : ",\n  ").append(jsonMap(index.get(i)));
    }
    return b.append("\n]}\n").toString();
  }

  private static String jsonMap(Map<String, ?> m) {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, ?> e : m.entrySet()) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append(quote(e.getKey())).append(": ");
      Object v = e.getValue();
      b.append(v instanceof Number ? v.toString() : quote(String.valueOf(v)));
    }
    return b.append('}').toString();
  }

  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  private static void runPytest(Path indexFile, Path out) throws Exception {
    Path repo = repoRoot();
    ProcessBuilder pb = new ProcessBuilder(python().toString(), "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
        repo.resolve("python/tests").toString())
        .directory(repo.resolve("python").toFile())
        .redirectErrorStream(true)
        .redirectOutput(out.resolve("pytest.log").toFile());
    pb.environment().put("QUIVER_EXPECTATIONS", indexFile.toString());
    pb.environment().put("QUIVER_REQUIRE_EXPECTATIONS", "1");
    pb.environment().put("PYTHONPATH", repo.resolve("python").toString());
    pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
    Process p = pb.start();
    boolean finished = p.waitFor(600, TimeUnit.SECONDS);
    if (!finished) {
      p.destroyForcibly();
    }
    String output = Files.readString(out.resolve("pytest.log"), StandardCharsets.UTF_8);
    System.out.print(output);
    assertThat(finished).as("pytest finished within 600 s:\n" + output).isTrue();
    assertThat(p.exitValue()).as("pytest's exit code (0 = every test passed); its output:\n" + output).isEqualTo(0);
    assertThat(output).as(output).containsPattern("\\d+ passed").doesNotContainPattern("\\d+ (failed|errors?)\\b");
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
