package io.quiver.spark.s3;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.conformance.emulator.EmulatorProcess;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.spark.BackfillResult;
import io.quiver.spark.QuiverCatalog;
import io.quiver.spark.QuiverSpark;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The Spark journey on S3 (S3Proxy on 127.0.0.1, signatures checked): a catalog whose warehouse is an
 * {@code s3://} URI and whose store options reach every executor through {@code spark.sql.catalog.quiver.*}
 * — DDL, inserts, a pushed-down filter, DELETE, a distributed backfill and compaction, a path write.
 */
class SparkS3IT {
  static EmulatorProcess s3proxy;
  static Map<String, String> storeOptions;
  static SparkSession spark;
  static final String BUCKET = "quiver-spark";

  @BeforeAll
  static void start() throws IOException {
    Path jar = Path.of("target", "emulators", "s3proxy.jar").toAbsolutePath();
    assertThat(jar).as("S3Proxy jar (maven-dependency-plugin copies it in pre-integration-test)").exists();
    int port = EmulatorProcess.freePort();
    String key = "quiver-it-" + UUID.randomUUID().toString().substring(0, 8);
    String secret = "quiver-it-secret-" + UUID.randomUUID();
    Path dir = Files.createDirectories(Path.of("target", "emulators", "s3proxy-" + port).toAbsolutePath());
    Path config = dir.resolve("s3proxy.conf");
    Properties p = new Properties();
    p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
    p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    p.setProperty("s3proxy.identity", key);
    p.setProperty("s3proxy.credential", secret);
    p.setProperty("jclouds.provider", "transient");
    p.setProperty("jclouds.identity", key);
    p.setProperty("jclouds.credential", secret);
    try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
      p.store(out, "S3Proxy for the Spark connector's integration test");
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    s3proxy = EmulatorProcess.start("s3proxy", List.of(java, "-Xmx512m", "-jar", jar.toString(), "--properties",
        config.toString()), Map.of("LOG_LEVEL", "warn"), port, EmulatorProcess.Readiness.http("/"),
        Duration.ofSeconds(90));
    try (S3Client client = S3Client.builder().endpointOverride(URI.create(s3proxy.endpoint()))
        .region(Region.US_EAST_1).forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
        .httpClient(software.amazon.awssdk.http.apache5.Apache5HttpClient.create()).build()) {
      client.createBucket(b -> b.bucket(BUCKET));
    }
    storeOptions = new LinkedHashMap<>();
    storeOptions.put("s3.endpoint", s3proxy.endpoint());
    storeOptions.put("s3.region", "us-east-1");
    storeOptions.put("s3.path-style-access", "true");
    storeOptions.put("s3.access-key-id", key);
    storeOptions.put("s3.secret-access-key", secret);
    SparkSession.Builder b = SparkSession.builder().master("local[2]").appName("quiver-spark-s3")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.catalog.quiver", QuiverCatalog.class.getName())
        .config("spark.sql.catalog.quiver.warehouse", "s3://" + BUCKET + "/warehouse");
    storeOptions.forEach((k, v) -> b.config("spark.sql.catalog.quiver." + k, v));
    spark = b.getOrCreate();
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (s3proxy != null) {
      s3proxy.close();
    }
  }

  private static Dataset open(String uri) {
    return Dataset.open(uri, DatasetOptions.builder().storeOptions(storeOptions).build());
  }

  @Test
  void theSqlAndDataFrameJourneyRunsOnS3() throws Exception {
    String uri = "s3://" + BUCKET + "/warehouse/db/readings";
    spark.sql("CREATE TABLE quiver.db.readings (id BIGINT NOT NULL, sensor STRING, celsius DOUBLE)");
    spark.sql("INSERT INTO quiver.db.readings VALUES (1, 'a', 20.0), (2, 'b', 25.0), (3, 'a', 30.0)");
    spark.range(4, 1004).selectExpr("id", "concat('s', cast(id % 7 as string)) AS sensor",
        "cast(id % 40 as double) AS celsius").writeTo("quiver.db.readings").append();
    assertThat(spark.sql("SELECT count(*) FROM quiver.db.readings").first().getLong(0)).isEqualTo(1003);
    List<Row> hot = spark.sql("SELECT id FROM quiver.db.readings WHERE sensor = 'a' AND celsius > 25 ORDER BY id")
        .collectAsList();
    assertThat(hot).extracting(r -> r.getLong(0)).containsExactly(3L);

    spark.sql("DELETE FROM quiver.db.readings WHERE id > 1000");
    BackfillResult r = QuiverSpark.backfill(spark, "quiver.db.readings")
        .add("fahrenheit", col("celsius").multiply(9).divide(5).plus(32)).run();
    assertThat(r.attempts()).isEqualTo(1);
    assertThat(QuiverSpark.compact(spark, "quiver.db.readings", CompactionOptions.defaults()).fragmentsRemoved())
        .isGreaterThan(1);
    List<Row> rows = spark.sql("SELECT id, fahrenheit FROM quiver.db.readings WHERE id <= 3 ORDER BY id")
        .collectAsList();
    assertThat(rows).extracting(row -> row.getLong(0) + "=" + row.getDouble(1))
        .containsExactly("1=68.0", "2=77.0", "3=86.0");
    try (Dataset ds = open(uri)) {
      assertThat(ds.countRows()).isEqualTo(1000);
      assertThat(ds.manifest().fragments()).hasSize(1);
      ds.validate().orThrow();
    }

    String path = "s3://" + BUCKET + "/paths/squares";
    spark.range(100).selectExpr("id", "id * id AS square").write().format("quiver").mode("append").options(storeOptions)
        .save(path);
    assertThat(spark.read().format("quiver").options(storeOptions).load(path).where("square >= 9801").count())
        .isEqualTo(1);
  }
}
