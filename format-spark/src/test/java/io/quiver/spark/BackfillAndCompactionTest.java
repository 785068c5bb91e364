package io.quiver.spark;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionResult;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.manifest.Fragment;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Distributed column backfill and compaction through Spark: values read back, one commit, and — raced by a
 * concurrent update of an input column and by a compaction — a recompute of exactly the stale fragments.
 */
class BackfillAndCompactionTest {
  static SparkTests spark;
  static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("celsius", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null)));

  BufferAllocator allocator;
  static int tables;

  @BeforeAll
  static void start() {
    spark = SparkTests.start();
  }

  @AfterAll
  static void stop() {
    spark.close();
  }

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    assertThat(allocator.getAllocatedMemory()).as("Arrow memory leaked").isZero();
    allocator.close();
  }

  /** A table with one fragment per entry of {@code sizes}: ids consecutive from 0, celsius = id / 10. */
  private String table(long... sizes) {
    String uri = spark.newPath("backfill-" + (tables++));
    DatasetOptions options = DatasetOptions.builder().allocator(allocator).build();
    long next = 0;
    try (Dataset ds = Dataset.create(uri, SCHEMA, List.of(), options)) {
      for (long n : sizes) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
          BigIntVector id = (BigIntVector) root.getVector("id");
          Float8Vector c = (Float8Vector) root.getVector("celsius");
          for (int i = 0; i < n; i++) {
            id.setSafe(i, next + i);
            c.setSafe(i, (next + i) / 10.0);
          }
          root.setRowCount((int) n);
          ds.append(List.of(root));
        }
        next += n;
      }
    }
    return uri;
  }

  /** id → the named double column, at the latest version. */
  private Map<Long, Double> read(String uri, String column) {
    Map<Long, Double> out = new TreeMap<>();
    try (Dataset ds = Dataset.open(uri, DatasetOptions.builder().allocator(allocator).build());
        ArrowReader r = ds.newScan().columns("id", column).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        FieldVector v = root.getVector(column);
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(id.get(i), v.isNull(i) ? null : ((Number) v.getObject(i)).doubleValue());
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out;
  }

  private static List<Long> fragmentIds(String uri) {
    try (Dataset ds = Dataset.open(uri)) {
      return ds.manifest().fragments().stream().map(Fragment::id).toList();
    }
  }

  private static long version(String uri) {
    try (Dataset ds = Dataset.open(uri)) {
      return ds.version();
    }
  }

  @Test
  void addsAColumnComputedBySparkInOneCommitKeepingDeletedRowsOut() {
    String uri = table(300, 300, 300);
    try (Dataset ds = Dataset.open(uri)) {
      ds.delete(Predicate.and(Predicate.ge("id", 300L), Predicate.lt("id", 310L)));  // gaps in fragment 2
    }
    long before = version(uri);
    BackfillResult r = QuiverSpark.backfill(spark.spark(), uri)
        .add("fahrenheit", col("celsius").multiply(9).divide(5).plus(32))
        .run();
    assertThat(r.version()).isEqualTo(before + 1);
    assertThat(r.attempts()).isEqualTo(1);
    assertThat(r.fragments()).isEqualTo(3);
    Map<Long, Double> c = read(uri, "celsius");
    Map<Long, Double> f = read(uri, "fahrenheit");
    assertThat(f).hasSize(890).containsOnlyKeys(c.keySet());
    c.forEach((id, v) -> assertThat(f.get(id)).as("fahrenheit of id %d", id).isCloseTo(v * 9 / 5 + 32,
        org.assertj.core.data.Offset.offset(1e-9)));
    // Through Spark too, by SQL on the path.
    assertThat(spark.spark().read().format("quiver").load(uri).where("fahrenheit > 50").count())
        .isEqualTo(c.values().stream().filter(v -> v * 9 / 5 + 32 > 50).count());
  }

  @Test
  void replacesAColumnAndDerivesItsInputsFromTheExpression() {
    String uri = table(200, 200);
    BackfillResult r = QuiverSpark.backfill(spark.spark(), uri)
        .replace("celsius", col("celsius").plus(col("id")))
        .run();
    assertThat(r.attempts()).isEqualTo(1);
    read(uri, "celsius").forEach((id, v) -> assertThat(v).isEqualTo(id / 10.0 + id));
  }

  @Test
  void racedByAnInputUpdateAndACompactionRecomputesExactlyTheStaleFragments() {
    // Fragments 0 and 1 are large, 2 and 3 small: a compaction rewrites just 2 and 3 into a new fragment.
    String uri = table(2000, 2000, 50, 50);
    List<Long> original = fragmentIds(uri);
    assertThat(original).hasSize(4);
    List<Set<Long>> staged = new ArrayList<>();
    BackfillResult r = QuiverSpark.backfill(spark.spark(), uri)
        .add("fahrenheit", col("celsius").multiply(9).divide(5).plus(32))
        .listener(new Backfill.Listener() {
          @Override
          public void staged(int attempt, long readVersion, Set<Long> fragments) {
            staged.add(new TreeSet<>(fragments));
            if (attempt == 1) {
              // Between staging and the commit: 2 and 3 are compacted, and an input changes in fragment 0.
              try (Dataset other = Dataset.open(uri)) {
                CompactionResult c = other.compact(CompactionOptions.defaults().withTargetRowsPerFragment(100_000)
                    .withSmallFragmentRows(1000));
                assertThat(c.fragmentsRemoved()).isEqualTo(2);
                other.update(Predicate.lt("id", 10L), Map.of("celsius", 100.0));
              }
            }
          }
        })
        .run();
    List<Long> now = fragmentIds(uri);
    Set<Long> compacted = new TreeSet<>(now);
    compacted.removeAll(original);
    assertThat(compacted).hasSize(1);
    assertThat(r.attempts()).isEqualTo(2);
    assertThat(r.computedPerAttempt().get(0)).containsExactlyElementsOf(new TreeSet<>(original));
    // Only fragment 0 (its input changed) and the compaction's new fragment; fragment 1's write is kept.
    Set<Long> expected = new TreeSet<>(compacted);
    expected.add(original.get(0));
    assertThat(r.computedPerAttempt().get(1)).containsExactlyElementsOf(expected);
    assertThat(staged).isEqualTo(r.computedPerAttempt());
    Map<Long, Double> c = read(uri, "celsius");
    Map<Long, Double> f = read(uri, "fahrenheit");
    assertThat(c.get(3L)).isEqualTo(100.0);
    assertThat(f).hasSize(4100);
    c.forEach((id, v) -> assertThat(f.get(id)).as("fahrenheit of id %d", id).isEqualTo(v * 9 / 5 + 32));
  }

  @Test
  void aBackfillOutOfAttemptsPublishesNothing() {
    String uri = table(100, 100);
    long[] concurrent = new long[1];
    assertThatThrownBy(() -> QuiverSpark.backfill(spark.spark(), uri)
        .add("fahrenheit", col("celsius").multiply(2))
        .maxAttempts(1)
        .listener(new Backfill.Listener() {
          @Override
          public void staged(int attempt, long readVersion, Set<Long> fragments) {
            try (Dataset other = Dataset.open(uri)) {
              concurrent[0] = other.update(Predicate.eq("id", 150L), Map.of("celsius", -1.0)).version();
            }
          }
        })
        .run())
        .isInstanceOf(StaleColumnWriteException.class)
        .hasMessageContaining("celsius")
        .hasMessageContaining("gave up after 1 commits");
    assertThat(version(uri)).isEqualTo(concurrent[0]);
    try (Dataset ds = Dataset.open(uri)) {
      assertThat(ds.schema().findField("fahrenheit")).isEmpty();
    }
  }

  @Test
  void compactsWithOneSparkTaskPerGroupAndOneCommit() {
    String uri = table(10, 10, 10, 10, 10, 10, 10, 10);
    try (Dataset ds = Dataset.open(uri)) {
      ds.delete(Predicate.eq("id", 5L));
    }
    Map<Long, Double> before = read(uri, "celsius");
    long version = version(uri);
    CompactionResult r = QuiverSpark.compact(spark.spark(), uri, CompactionOptions.defaults());
    assertThat(r.version()).isEqualTo(version + 1);
    assertThat(r.fragmentsRemoved()).isEqualTo(8);
    assertThat(r.rowsRewritten()).isEqualTo(79);
    assertThat(fragmentIds(uri)).hasSize(r.fragmentsAdded()).hasSizeLessThan(8);
    assertThat(read(uri, "celsius")).isEqualTo(before);
    // Nothing left to compact: no commit.
    assertThat(QuiverSpark.compact(spark.spark(), uri, CompactionOptions.defaults()).version())
        .isEqualTo(version + 1);
  }

  @Test
  void aCatalogTableIsNamedByItsCatalogName() {
    spark.spark().sql("CREATE TABLE quiver.bf.readings (id BIGINT NOT NULL, celsius DOUBLE)");
    spark.spark().sql("INSERT INTO quiver.bf.readings VALUES (1, 10.0), (2, 20.0)");
    QuiverSpark.backfill(spark.spark(), "quiver.bf.readings")
        .add("fahrenheit", col("celsius").multiply(9).divide(5).plus(32)).run();
    assertThat(spark.spark().sql("SELECT fahrenheit FROM quiver.bf.readings ORDER BY id").collectAsList())
        .extracting(row -> row.getDouble(0)).containsExactly(50.0, 68.0);
    assertThatThrownBy(() -> QuiverSpark.backfill(spark.spark(), "nocatalog.bf.readings"))
        .hasMessageContaining("not configured");
  }

  @Test
  void theOperationsAreStoredProceduresOfTheCatalog() {
    spark.spark().sql("CREATE TABLE quiver.proc.readings (id BIGINT NOT NULL, celsius DOUBLE)");
    for (int i = 0; i < 4; i++) {
      spark.spark().sql("INSERT INTO quiver.proc.readings VALUES (" + (2 * i) + ", " + (10.0 * i) + "), ("
          + (2 * i + 1) + ", " + (10.0 * i + 5) + ")");
    }
    String uri = spark.warehouse().resolve("proc").resolve("readings").toUri().toString();
    int fragments = fragmentIds(uri).size();
    assertThat(fragments).isGreaterThanOrEqualTo(4);
    org.apache.spark.sql.Row added = spark.spark().sql("CALL quiver.system.add_column(table => 'proc.readings',"
        + " column => 'fahrenheit', expression => 'celsius * 9 / 5 + 32')").first();
    assertThat(added.getInt(1)).as("fragments").isEqualTo(fragments);
    assertThat(added.getInt(2)).as("attempts").isEqualTo(1);
    spark.spark().sql("CALL quiver.system.replace_column(table => 'proc.readings', column => 'celsius',"
        + " expression => 'celsius + 1')");
    org.apache.spark.sql.Row compacted = spark.spark()
        .sql("CALL quiver.system.compact(table => 'proc.readings')").first();
    assertThat(compacted.getInt(1)).as("fragments removed").isEqualTo(fragments);
    assertThat(compacted.getLong(3)).as("rows rewritten").isEqualTo(8);
    assertThat(spark.spark().sql("SELECT id, celsius, fahrenheit FROM quiver.proc.readings ORDER BY id")
        .collectAsList()).extracting(Object::toString).startsWith("[0,1.0,32.0]", "[1,6.0,41.0]");
    try (Dataset ds = Dataset.open(uri)) {
      assertThat(ds.version()).isEqualTo(compacted.getLong(0));
      assertThat(ds.manifest().fragments()).hasSize(1);
    }
    assertThatThrownBy(() -> spark.spark().sql("CALL quiver.system.vacuum(table => 'proc.readings')"))
        .hasStackTraceContaining("system.compact");
  }
}
