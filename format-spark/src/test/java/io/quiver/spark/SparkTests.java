package io.quiver.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * The shared Spark session of a test class: {@code local[2]}, two shuffle partitions, no UI, and a catalog
 * {@code quiver} over a fresh warehouse directory. Start it in {@code @BeforeAll}, stop it in
 * {@code @AfterAll}.
 */
public final class SparkTests implements AutoCloseable {
  private final Path warehouse;
  private final SparkSession spark;

  private SparkTests(Path warehouse, SparkSession spark) {
    this.warehouse = warehouse;
    this.spark = spark;
  }

  public static SparkTests start() {
    return start(b -> b);
  }

  /** A session with extra configuration ({@code builder -> builder.config(...)}). */
  public static SparkTests start(java.util.function.UnaryOperator<SparkSession.Builder> extra) {
    try {
      Path warehouse = Files.createTempDirectory("quiver-spark-");
      SparkSession.Builder b = SparkSession.builder()
          .master("local[2]")
          .appName("quiver-spark-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.sql.shuffle.partitions", "2")
          .config("spark.default.parallelism", "2")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.sql.catalog.quiver", QuiverCatalog.class.getName())
          .config("spark.sql.catalog.quiver.warehouse", warehouse.toUri().toString());
      return new SparkTests(warehouse, extra.apply(b).getOrCreate());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public SparkSession spark() {
    return spark;
  }

  /** The warehouse directory of catalog {@code quiver}. */
  public Path warehouse() {
    return warehouse;
  }

  /** A fresh directory under the warehouse for a path-based table. */
  public String newPath(String name) {
    return warehouse.resolve("paths").resolve(name).toUri().toString();
  }

  @Override
  public void close() {
    spark.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
    try (Stream<Path> files = Files.walk(warehouse)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
