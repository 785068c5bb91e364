package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.predicate.Predicate;
import io.quiver.store.MemoryObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Pruning is never wrong: on random tables (clustered values, nulls, NaN, signed zeros, long strings sharing
 * prefixes, max code points and bytes, deletions, overlays that move values outside the base bounds, an added
 * column with no file in old fragments, compaction) and random predicates of every operator, a filtered scan —
 * fragments pruned at planning, batches by zone statistics — returns exactly the rows the predicate evaluated on
 * a full scan accepts; so do the planned tasks. Deterministic seeds.
 */
class PruningPropertiesTest {
  private static final int TABLES = 12;
  private static final int PREDICATES = 60;

  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      Field.nullable("i", new ArrowType.Int(32, true)),
      Field.nullable("l", new ArrowType.Int(64, true)),
      Field.nullable("u", new ArrowType.Int(8, false)),
      Field.nullable("uu", new ArrowType.Int(64, false)),
      Field.nullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
      Field.nullable("g", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
      Field.nullable("s", ArrowType.Utf8.INSTANCE),
      Field.nullable("b", ArrowType.Binary.INSTANCE),
      Field.nullable("d", new ArrowType.Date(DateUnit.DAY)),
      Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
      Field.nullable("flag", ArrowType.Bool.INSTANCE),
      Field.nullable("dec", new ArrowType.Decimal(10, 2, 128)),
      new Field("st", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
          Field.nullable("x", new ArrowType.Int(32, true)),
          Field.nullable("y", ArrowType.Utf8.INSTANCE)))));

  static final String[] COLUMNS = {"id", "i", "l", "u", "uu", "f", "g", "s", "b", "d", "ts", "flag", "dec", "st.x",
      "st.y", "n"};

  private static final String MAX = new String(Character.toChars(Character.MAX_CODE_POINT));
  private static final String[] PIECES = {"a", "b", "é", "😀", MAX, "zz", "\uD7FF"};

  @Test
  void filteredScansReturnExactlyWhatTheFilterAccepts() throws IOException {
    long pruned = 0;
    long batchesPruned = 0;
    for (int t = 0; t < TABLES; t++) {
      try (BufferAllocator allocator = new RootAllocator()) {
        Random r = new Random(1000 + t);
        MemoryObjectStore store = new MemoryObjectStore(OverlayTestSupport.URI_);
        DatasetOptions options = DatasetOptions.builder()
            .allocator(allocator)
            .session(new Session(1 << 20))
            .registry(io.quiver.store.ObjectStores.empty().register(
                io.quiver.store.TestStores.provider("test", () -> store)))
            .rowsPerBatch(4 + r.nextInt(8))
            .maxRowsPerFragment(20 + r.nextInt(30))
            .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
            .build();
        try (Dataset ds = build(allocator, options, r)) {
          for (int p = 0; p < PREDICATES; p++) {
            Predicate predicate = predicate(r, 0);
            ScanMetrics metrics = new ScanMetrics();
            TreeSet<Long> expected = evaluated(ds, predicate);
            TreeSet<Long> scanned = addresses(ds.newScan().filter(predicate).withRowAddress(true).metrics(metrics)
                .batchSize(1 + r.nextInt(16)).open());
            assertThat(scanned).as("table %d, filter %s", t, predicate).isEqualTo(expected);
            TreeSet<Long> tasks = new TreeSet<>();
            for (ScanTask task : ds.newScan().filter(predicate).withRowAddress(true).planTasks()) {
              tasks.addAll(addresses(ScanTask.decode(task.encode()).open(ds)));
            }
            assertThat(tasks).as("tasks of table %d, filter %s", t, predicate).isEqualTo(expected);
            pruned += metrics.fragmentsPruned();
            batchesPruned += metrics.batchesPruned();
          }
        }
      }
    }
    assertThat(pruned).as("fragments pruned").isPositive();
    assertThat(batchesPruned).as("batches pruned").isPositive();
  }

  private static TreeSet<Long> evaluated(Dataset ds, Predicate p) throws IOException {
    TreeSet<Long> out = new TreeSet<>();
    try (ArrowReader reader = ds.newScan().withRowAddress(true).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BitSet hits = p.evaluate(root);
        UInt8Vector a = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        hits.stream().forEach(i -> out.add(a.get(i)));
      }
    }
    return out;
  }

  private static TreeSet<Long> addresses(ArrowReader reader) throws IOException {
    TreeSet<Long> out = new TreeSet<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        UInt8Vector a = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(a.get(i));
        }
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- the table

  private static Dataset build(BufferAllocator allocator, DatasetOptions options, Random r) {
    long[] next = {0};
    Dataset ds;
    try (VectorSchemaRoot b = batch(allocator, r, next, 20 + r.nextInt(60))) {
      ds = Dataset.create(OverlayTestSupport.URI_, SCHEMA, List.of(b), options);
    }
    for (int a = 0; a < 2 + r.nextInt(3); a++) {
      try (VectorSchemaRoot b = batch(allocator, r, next, 10 + r.nextInt(50))) {
        ds.append(List.of(b));
      }
    }
    ds.columns().add(List.of(Field.nullable("n", new ArrowType.Int(32, true))));
    try (VectorSchemaRoot b = batch(allocator, r, next, 10 + r.nextInt(30), true)) {
      ds.append(List.of(b));
    }
    for (int k = 0; k < 2 + r.nextInt(3); k++) {
      switch (r.nextInt(4)) {
        case 0 -> ds.delete(Predicate.lt("id", (long) r.nextInt((int) next[0] + 1)));
        case 1 -> ds.delete(Predicate.in("id", (long) r.nextInt((int) next[0]), (long) r.nextInt((int) next[0])));
        default -> {
          long from = r.nextInt((int) next[0]);
          Map<String, Object> values = new HashMap<>();
          values.put("i", r.nextBoolean() ? 1_000_000 + r.nextInt(10) : -1_000_000);
          values.put("s", r.nextBoolean() ? "~~~~" : MAX.repeat(20));
          values.put("f", r.nextBoolean() ? Double.NaN : 1e300);
          values.put("st.x", 77_777);
          values.put("n", r.nextInt(5));
          if (r.nextBoolean()) {
            values.put("flag", Boolean.TRUE);
          }
          ds.update(Predicate.and(Predicate.ge("id", from), Predicate.lt("id", from + 1 + r.nextInt(6))), values);
        }
      }
    }
    if (r.nextInt(3) == 0) {
      ds.compact(CompactionOptions.defaults());
    }
    return ds;
  }

  private static VectorSchemaRoot batch(BufferAllocator allocator, Random r, long[] next, int rows) {
    return batch(allocator, r, next, rows, false);
  }

  /** Rows clustered around a random centre per batch, so some fragments and batches can be pruned. */
  private static VectorSchemaRoot batch(BufferAllocator allocator, Random r, long[] next, int rows, boolean withN) {
    List<Field> fields = new ArrayList<>(SCHEMA.getFields());
    if (withN) {
      fields.add(Field.nullable("n", new ArrowType.Int(32, true)));
    }
    VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator);
    root.allocateNew();
    int centre = r.nextInt(1000);
    for (int i = 0; i < rows; i++) {
      long id = next[0]++;
      int v = centre + i / 4 + r.nextInt(3);
      ((BigIntVector) root.getVector("id")).setSafe(i, id);
      if (nul(r)) { ((IntVector) root.getVector("i")).setNull(i); } else { ((IntVector) root.getVector("i")).setSafe(i, v); }
      if (nul(r)) { ((BigIntVector) root.getVector("l")).setNull(i); } else {
        ((BigIntVector) root.getVector("l")).setSafe(i, r.nextInt(20) == 0 ? Long.MIN_VALUE : (long) v * 1_000_000_007L);
      }
      if (nul(r)) { ((UInt1Vector) root.getVector("u")).setNull(i); } else {
        ((UInt1Vector) root.getVector("u")).setSafe(i, (centre + i) % 256);
      }
      if (nul(r)) { ((UInt8Vector) root.getVector("uu")).setNull(i); } else {
        ((UInt8Vector) root.getVector("uu")).setSafe(i, r.nextInt(10) == 0 ? -1L - r.nextInt(5) : v);
      }
      Float8Vector f = (Float8Vector) root.getVector("f");
      if (nul(r)) { f.setNull(i); } else {
        int k = r.nextInt(12);
        f.setSafe(i, k == 0 ? Double.NaN : k == 1 ? -0.0 : k == 2 ? 0.0 : k == 3 ? Double.POSITIVE_INFINITY : v + 0.25);
      }
      Float4Vector g = (Float4Vector) root.getVector("g");
      if (nul(r)) { g.setNull(i); } else { g.setSafe(i, r.nextInt(10) == 0 ? Float.NaN : v / 4f); }
      VarCharVector s = (VarCharVector) root.getVector("s");
      if (nul(r)) { s.setNull(i); } else { s.setSafe(i, text(r, centre).getBytes(StandardCharsets.UTF_8)); }
      VarBinaryVector b = (VarBinaryVector) root.getVector("b");
      if (nul(r)) { b.setNull(i); } else { b.setSafe(i, bytes(r, centre)); }
      DateDayVector d = (DateDayVector) root.getVector("d");
      if (nul(r)) { d.setNull(i); } else { d.setSafe(i, 18_000 + v); }
      TimeStampMicroVector ts = (TimeStampMicroVector) root.getVector("ts");
      if (nul(r)) { ts.setNull(i); } else { ts.setSafe(i, (1_600_000_000L + v) * 1_000_000L + r.nextInt(3)); }
      BitVector flag = (BitVector) root.getVector("flag");
      if (nul(r)) { flag.setNull(i); } else { flag.setSafe(i, centre % 2 == 0 ? 0 : r.nextInt(2)); }
      DecimalVector dec = (DecimalVector) root.getVector("dec");
      if (nul(r)) { dec.setNull(i); } else { dec.setSafe(i, BigDecimal.valueOf(v * 100L - 50_000 + r.nextInt(100), 2)); }
      StructVector st = (StructVector) root.getVector("st");
      IntVector x = (IntVector) st.getChild("x");
      VarCharVector y = (VarCharVector) st.getChild("y");
      if (r.nextInt(6) == 0) {
        st.setNull(i);
        x.setSafe(i, -5); // under a null struct: never seen, but in the file
        y.setNull(i);
      } else {
        st.setIndexDefined(i);
        if (nul(r)) { x.setNull(i); } else { x.setSafe(i, v); }
        if (nul(r)) { y.setNull(i); } else { y.setSafe(i, text(r, centre).getBytes(StandardCharsets.UTF_8)); }
      }
      if (withN) {
        IntVector n = (IntVector) root.getVector("n");
        if (nul(r)) { n.setNull(i); } else { n.setSafe(i, 10 + r.nextInt(3)); }
      }
    }
    root.setRowCount(rows);
    return root;
  }

  private static boolean nul(Random r) {
    return r.nextInt(7) == 0;
  }

  private static String text(Random r, int centre) {
    StringBuilder sb = new StringBuilder(centre % 3 == 0 ? "prefix-shared-by-many-" : "");
    sb.append((char) ('a' + centre % 26));
    int n = r.nextInt(22);
    for (int k = 0; k < n; k++) {
      sb.append(PIECES[r.nextInt(PIECES.length)]);
    }
    return sb.toString();
  }

  private static byte[] bytes(Random r, int centre) {
    byte[] out = new byte[1 + r.nextInt(20)];
    out[0] = (byte) centre;
    for (int k = 1; k < out.length; k++) {
      out[k] = (byte) (r.nextBoolean() ? 0xFF : r.nextInt(256));
    }
    return out;
  }

  // ---------------------------------------------------------------- predicates

  private static Predicate predicate(Random r, int depth) {
    int k = r.nextInt(depth >= 3 ? 6 : 10);
    if (k >= 6) {
      return switch (k) {
        case 6 -> Predicate.not(predicate(r, depth + 1));
        case 7, 8 -> Predicate.and(predicate(r, depth + 1), predicate(r, depth + 1));
        default -> Predicate.or(predicate(r, depth + 1), predicate(r, depth + 1));
      };
    }
    String column = COLUMNS[r.nextInt(COLUMNS.length)];
    if (k == 0) {
      return r.nextBoolean() ? Predicate.isNull(column) : Predicate.isNotNull(column);
    }
    if (k == 1) {
      int n = r.nextInt(4);
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        values.add(literal(r, column));
      }
      return Predicate.in(column, values);
    }
    Predicate.Op op = Predicate.Op.values()[r.nextInt(Predicate.Op.values().length)];
    return Predicate.compare(column, op, literal(r, column));
  }

  private static Object literal(Random r, String column) {
    int v = r.nextInt(1100) - 20;
    return switch (column) {
      case "id" -> r.nextBoolean() ? (Object) (long) r.nextInt(300) : (Object) r.nextInt(300);
      case "i", "st.x", "n" -> switch (r.nextInt(5)) {
        case 0 -> (long) v;
        case 1 -> v + 0.5;
        case 2 -> BigDecimal.valueOf(v);
        case 3 -> r.nextBoolean() ? 1_000_000 : 77_777;
        default -> v;
      };
      case "l" -> r.nextBoolean() ? (Object) ((long) v * 1_000_000_007L) : (Object) Long.MIN_VALUE;
      case "u" -> r.nextBoolean() ? (Object) r.nextInt(300) : (Object) (long) (r.nextInt(300) - 20);
      case "uu" -> r.nextBoolean() ? (Object) (long) v : (Object) new java.math.BigInteger("18446744073709551614");
      case "f" -> switch (r.nextInt(6)) {
        case 0 -> Double.NaN;
        case 1 -> -0.0;
        case 2 -> 0;
        case 3 -> Double.POSITIVE_INFINITY;
        default -> v + 0.25;
      };
      case "g" -> r.nextBoolean() ? (Object) (v / 4.0) : (Object) Float.NaN;
      case "s", "st.y" -> text(r, r.nextInt(1000));
      case "b" -> bytes(r, r.nextInt(1000));
      case "d" -> LocalDate.ofEpochDay(18_000 + v);
      case "ts" -> r.nextBoolean() ? (Object) LocalDateTime.ofEpochSecond(1_600_000_000L + v, r.nextInt(3) * 1000,
          ZoneOffset.UTC) : (Object) Instant.ofEpochSecond(1_600_000_000L + v);
      case "flag" -> r.nextBoolean();
      case "dec" -> r.nextBoolean() ? (Object) BigDecimal.valueOf(v * 100L - 50_000, 2) : (Object) (v - 500);
      default -> throw new IllegalStateException(column);
    };
  }
}
