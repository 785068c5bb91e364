package io.quiver.cli;

import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.RowAddress;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.dataset.VersionInfo;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.manifest.Fragment;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code quiver demo [dir]}: what Quiver is for, in one run on the local filesystem. Concurrent appends,
 * then a staged backfill of {@code fahrenheit} from {@code celsius} (its declared input) from worker
 * threads while another writer appends rows and corrects celsius readings under the slow worker: that
 * worker's commit is rejected with {@link StaleColumnWriteException} naming the changed input, it
 * recomputes against the latest version and succeeds. Each step is narrated in a sentence.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Runs a narrated tour: concurrent writers, a distributed column backfill with a stale worker,"
        + " history and a scan.", footer = "%nExample: quiver demo /tmp/quiver-demo")
final class DemoCommand implements Callable<Integer> {
  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("sensor", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("celsius", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));
  static final int WRITERS = 4;
  static final int APPENDS_PER_WRITER = 3;
  static final int ROWS = 100;
  static final int WORKERS = 3;
  static final double RECALIBRATED = 21.5;

  @Parameters(index = "0", arity = "0..1", paramLabel = "<dir>",
      description = "Directory for the demo table (default: a new temporary directory).")
  Path dir;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  private PrintWriter out;
  private int step;

  @Override
  public Integer call() throws Exception {
    out = spec.commandLine().getOut();
    Path base = dir != null ? dir : Files.createTempDirectory("quiver-demo");
    Files.createDirectories(base);
    Path table = base.resolve("readings");
    if (Files.exists(table)) {
      throw new UserException(table + " already exists; give the demo an empty directory (quiver demo <dir>)");
    }
    String uri = table.toUri().toString();
    try (BufferAllocator allocator = new RootAllocator()) {
      DatasetOptions options = DatasetOptions.builder()
          .allocator(allocator)
          .commitOptions(CommitOptions.defaults().withMaxAttempts(1000).withTimeout(Duration.ofMinutes(2)))
          .build();
      ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
      try {
        run(uri, options, allocator, pool);
      } finally {
        pool.shutdownNow();
        pool.awaitTermination(1, TimeUnit.MINUTES);
      }
    }
    out.flush();
    return Main.OK;
  }

  private void say(String sentence) {
    out.println((++step) + ". " + sentence);
    out.flush();
  }

  private void detail(String line) {
    out.println("   " + line);
    out.flush();
  }

  private void run(String uri, DatasetOptions options, BufferAllocator allocator, ExecutorService pool)
      throws Exception {
    say("Creating table " + uri + " with columns id, sensor, celsius and " + ROWS + " rows: no server, no catalog,"
        + " just files.");
    try (VectorSchemaRoot first = batch(allocator, 0);
        Dataset t = Dataset.create(uri, SCHEMA, List.of(first), options)) {
      detail("version " + t.version() + ": " + t.countRows() + " rows");
    }

    say(WRITERS + " writers append " + APPENDS_PER_WRITER + " batches each at the same time, each through its own"
        + " handle; every commit claims the next version with an atomic create-if-absent and rebases on conflict.");
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<Long>>> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      writers.add(pool.submit(() -> {
        List<Long> versions = new ArrayList<>();
        try (Dataset handle = Dataset.open(uri, options)) {
          go.await();
          for (int i = 0; i < APPENDS_PER_WRITER; i++) {
            try (VectorSchemaRoot rows = batch(allocator, (1 + (long) writer * APPENDS_PER_WRITER + i) * ROWS)) {
              versions.add(handle.append(List.of(rows)));
            }
          }
        }
        return versions;
      }));
    }
    go.countDown();
    for (int w = 0; w < WRITERS; w++) {
      detail("writer " + w + " committed versions " + get(writers.get(w)));
    }
    try (Dataset t = Dataset.open(uri, options)) {
      detail("version " + t.version() + ": " + t.countRows() + " rows in " + t.manifest().fragments().size()
          + " fragments, every append exactly once");

      say("Adding a nullable column fahrenheit: a metadata-only commit, every row reads null until it is backfilled.");
      long added = t.columns().add(List.of(Field.nullable("fahrenheit",
          new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE))));
      detail("version " + added);
    }

    long readVersion;
    List<Long> fragmentIds;
    try (Dataset t = Dataset.open(uri, options)) {
      readVersion = t.version();
      fragmentIds = t.manifest().fragments().stream().map(Fragment::id).toList();
    }
    say("Backfilling fahrenheit with " + WORKERS + " worker threads: each opens version " + readVersion
        + ", derives the same column schema (columns().newSchema: target fahrenheit, input celsius), computes"
        + " its share of the " + fragmentIds.size() + " fragments from the celsius values it reads, stages them"
        + " (columns().writeFragment) and commits its own share (columns().commit).");
    CountDownLatch othersCommitted = new CountDownLatch(WORKERS - 1);
    CountDownLatch tableChanged = new CountDownLatch(1);
    List<Future<String>> workers = new ArrayList<>();
    List<Long> slowShare = new ArrayList<>();
    try (Progress progress = new Progress(spec.commandLine().getErr(), "backfill", fragmentIds.size())) {
      for (int w = 0; w < WORKERS; w++) {
        int worker = w;
        List<Long> share = new ArrayList<>();
        for (int i = worker; i < fragmentIds.size(); i += WORKERS) {
          share.add(fragmentIds.get(i));
        }
        boolean last = worker == WORKERS - 1;
        if (last) {
          slowShare.addAll(share);
        }
        workers.add(pool.submit(() -> {
          try (Dataset latest = Dataset.open(uri, options); Dataset ds = latest.checkout(readVersion)) {
            List<StagedColumnWrite> staged = stage(ds, share, allocator, progress);
            if (last) {
              tableChanged.await(); // deterministic: this worker is the slow one
            }
            try {
              long v = ds.columns().commit(staged);
              if (!last) {
                othersCommitted.countDown();
              }
              return "worker " + worker + " committed fragments " + share + " as version " + v;
            } catch (RuntimeException e) {
              if (!last) {
                othersCommitted.countDown();
              }
              throw e;
            }
          }
        }));
      }
      othersCommitted.await();
      for (int w = 0; w < WORKERS - 1; w++) {
        detail(get(workers.get(w)));
      }
    }

    long corrected = slowShare.get(0);
    say("Meanwhile another writer changes the table under the slow worker " + (WORKERS - 1) + ": it appends "
        + ROWS + " more rows, and recalibrates sensor-3's celsius readings in fragment " + corrected
        + " (one of the fragments the slow worker computed fahrenheit for) with an update.");
    try (Dataset other = Dataset.open(uri, options);
        VectorSchemaRoot rows = withNullFahrenheit(batch(allocator, 10_000), allocator)) {
      long appended = other.append(List.of(rows));
      long[] sensor3 = rowsOfSensor(other, corrected, "sensor-3");
      long updated = other.update(sensor3, Map.of("celsius", RECALIBRATED)).version();
      detail("appended as version " + appended + "; " + sensor3.length + " celsius cells of fragment " + corrected
          + " set to " + RECALIBRATED + " as version " + updated);
    }
    tableChanged.countDown();

    say("The slow worker now commits the fragments it staged at version " + readVersion + ": Quiver checks every"
        + " staged write against the latest table, the fahrenheit cells it replaces and the celsius cells it"
        + " was computed from, and rejects it, so no value computed from old readings is ever published.");
    try {
      detail(get(workers.get(WORKERS - 1)));
      throw new IllegalStateException("the stale worker's commit was expected to be rejected");
    } catch (StaleColumnWriteException e) {
      detail("rejected with StaleColumnWriteException: " + e.getMessage());
    }

    say("The worker recomputes against the latest version: it stages the fragments whose fahrenheit is still"
        + " missing, from the corrected celsius values, and commits again.");
    try (Dataset latest = Dataset.open(uri, options)) {
      List<Long> missing = missingFragments(latest);
      List<StagedColumnWrite> staged;
      try (Progress progress = new Progress(spec.commandLine().getErr(), "recompute", missing.size())) {
        staged = stage(latest, missing, allocator, progress);
      }
      long v = latest.columns().commit(staged);
      detail("recompute committed fragments " + missing + " as version " + v + "; fragments still missing values: "
          + missingFragments(latest).size());
    }

    try (Dataset t = Dataset.open(uri, options)) {
      say("History, newest first (quiver log " + uri + "):");
      List<String[]> rows = new ArrayList<>();
      List<VersionInfo> versions = t.versions();
      for (VersionInfo v : versions.subList(0, Math.min(8, versions.size()))) {
        rows.add(new String[] {"version " + v.version(), v.operation(), "read at " + v.readVersion(),
            v.rows() + " rows", v.fragments() + (v.fragments() == 1 ? " fragment" : " fragments")});
      }
      Table.aligned(out, "   ", null, rows);
      detail("... " + versions.size() + " versions in all.");
      say("A scan of the first rows (quiver scan " + uri + " --limit 5); every row has its fahrenheit value:");
      List<String[]> scanned = new ArrayList<>();
      long total = 0;
      long filled = 0;
      long consistent = 0;
      try (ArrowReader r = t.newScan().columns("id", "sensor", "celsius", "fahrenheit").open()) {
        while (r.loadNextBatch()) {
          VectorSchemaRoot root = r.getVectorSchemaRoot();
          for (int i = 0; i < root.getRowCount(); i++) {
            total++;
            Float8Vector f = (Float8Vector) root.getVector("fahrenheit");
            Float8Vector c = (Float8Vector) root.getVector("celsius");
            if (!f.isNull(i)) {
              filled++;
              if (!c.isNull(i) && f.get(i) == c.get(i) * 9 / 5 + 32) {
                consistent++;
              }
            }
            if (scanned.size() < 5) {
              scanned.add(new String[] {Table.text(root.getVector("id"), i), Table.text(root.getVector("sensor"), i),
                  Table.text(root.getVector("celsius"), i), Table.text(root.getVector("fahrenheit"), i)});
            }
          }
        }
      }
      Table.aligned(out, "   ", new String[] {"id", "sensor", "celsius", "fahrenheit"}, scanned);
      detail(total + " rows, " + filled + " with fahrenheit, " + consistent + " of them equal to celsius × 9/5 + 32;"
          + " table is " + (t.validate().isValid() ? "valid" : "INVALID")
          + " at version " + t.version() + ".");
      say("Try it yourself: ./quiver info " + uri + "   ./quiver log " + uri + "   ./quiver scan " + uri
          + " --where \"sensor = 'sensor-3' AND celsius > 24\"");
    }
  }

  /**
   * Stages fahrenheit for the given fragments of {@code ds}'s version, from their celsius values read
   * through {@code ds}: celsius is the declared input, so a change to it before the commit is caught.
   */
  private static List<StagedColumnWrite> stage(Dataset ds, List<Long> fragments, BufferAllocator allocator,
      Progress progress) {
    ColumnSchema schema = ds.columns().newSchema(List.of(), List.of("fahrenheit"), List.of("celsius"));
    Map<Long, TreeMap<Long, Double>> celsius = new TreeMap<>();
    fragments.forEach(f -> celsius.put(f, new TreeMap<>()));
    try (ArrowReader r = ds.newScan().columns("celsius").withRowAddress(true).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        UInt8Vector addr = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        Float8Vector c = (Float8Vector) root.getVector("celsius");
        for (int i = 0; i < root.getRowCount(); i++) {
          TreeMap<Long, Double> values = celsius.get(RowAddress.fragmentId(addr.get(i)));
          if (values != null) {
            values.put(RowAddress.offset(addr.get(i)), c.isNull(i) ? null : c.get(i));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<StagedColumnWrite> staged = new ArrayList<>();
    for (Map.Entry<Long, TreeMap<Long, Double>> e : celsius.entrySet()) {
      try (ArrowReader batches = fahrenheit(allocator, schema.arrowSchema(), e.getValue())) {
        staged.add(ds.columns().writeFragment(e.getKey(), batches, schema));
      } catch (IOException ex) {
        throw new UncheckedIOException(ex);
      }
      progress.advance(1);
    }
    return staged;
  }

  private static ArrowReader fahrenheit(BufferAllocator allocator, Schema schema, TreeMap<Long, Double> celsius)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator)) {
      Float8Vector f = (Float8Vector) root.getVector("fahrenheit");
      f.allocateNew(celsius.size());
      int i = 0;
      for (Double c : celsius.values()) {
        if (c == null) {
          f.setNull(i++);
        } else {
          f.set(i++, c * 9 / 5 + 32);
        }
      }
      f.setValueCount(i);
      root.setRowCount(i);
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  /** Row addresses of the live rows of one fragment whose sensor is {@code sensor}. */
  private static long[] rowsOfSensor(Dataset ds, long fragmentId, String sensor) throws IOException {
    List<Long> out = new ArrayList<>();
    try (ArrowReader r = ds.newScan().columns("sensor").withRowAddress(true).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        UInt8Vector addr = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        VarCharVector s = (VarCharVector) root.getVector("sensor");
        for (int i = 0; i < root.getRowCount(); i++) {
          if (RowAddress.fragmentId(addr.get(i)) == fragmentId && !s.isNull(i)
              && sensor.equals(new String(s.get(i), StandardCharsets.UTF_8))) {
            out.add(addr.get(i));
          }
        }
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  /** Fragments of {@code ds}'s version holding a row with celsius but no fahrenheit. */
  private static List<Long> missingFragments(Dataset ds) throws IOException {
    java.util.TreeSet<Long> missing = new java.util.TreeSet<>();
    try (ArrowReader r = ds.newScan().columns("celsius", "fahrenheit").withRowAddress(true).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        UInt8Vector addr = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        for (int i = 0; i < root.getRowCount(); i++) {
          if (root.getVector("fahrenheit").isNull(i) && !root.getVector("celsius").isNull(i)) {
            missing.add(RowAddress.fragmentId(addr.get(i)));
          }
        }
      }
    }
    return List.copyOf(missing);
  }

  private static <T> T get(Future<T> future) throws Exception {
    try {
      return future.get(2, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** {@code rows} plus an all-null fahrenheit column (the appender leaves it to the backfill). */
  private static VectorSchemaRoot withNullFahrenheit(VectorSchemaRoot rows, BufferAllocator allocator) {
    Float8Vector f = new Float8Vector(Field.nullable("fahrenheit",
        new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), allocator);
    f.allocateNew(rows.getRowCount());
    for (int i = 0; i < rows.getRowCount(); i++) {
      f.setNull(i);
    }
    f.setValueCount(rows.getRowCount());
    List<org.apache.arrow.vector.FieldVector> vectors = new ArrayList<>(rows.getFieldVectors());
    vectors.add(f);
    List<Field> fields = new ArrayList<>(rows.getSchema().getFields());
    fields.add(f.getField());
    return new VectorSchemaRoot(fields, vectors, rows.getRowCount());
  }

  static VectorSchemaRoot batch(BufferAllocator allocator, long firstId) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector sensor = (VarCharVector) root.getVector("sensor");
    Float8Vector celsius = (Float8Vector) root.getVector("celsius");
    for (int i = 0; i < ROWS; i++) {
      long v = firstId + i;
      id.setSafe(i, v);
      sensor.setSafe(i, ("sensor-" + (v % 8)).getBytes(StandardCharsets.UTF_8));
      celsius.setSafe(i, 20.0 + (v % 50) / 10.0);
    }
    root.setRowCount(ROWS);
    return root;
  }
}
