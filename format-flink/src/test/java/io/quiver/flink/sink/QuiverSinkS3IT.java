package io.quiver.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.conformance.emulator.EmulatorProcess;
import java.io.IOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import io.quiver.flink.source.QuiverSource;
import java.util.ArrayList;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The sink's exactly-once journey on S3 (S3Proxy, a child process; Maven copies its jar in
 * pre-integration-test, execution copy-s3proxy): a job whose map fails once after two checkpoints restarts
 * from its checkpoint, and every record is in the table once; a bounded {@link QuiverSource} job then reads
 * every one of them back from S3, once.
 */
class QuiverSinkS3IT {
  static final String BUCKET = "quiver-flink";

  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SinkFixtures.cluster();

  static EmulatorProcess s3proxy;
  static Map<String, String> storeOptions;

  @BeforeAll
  static void startS3Proxy() throws IOException {
    Path jar = Path.of("target", "emulators", "s3proxy.jar").toAbsolutePath();
    assertThat(jar).as("S3Proxy jar (maven-dependency-plugin copy-s3proxy, pre-integration-test)").exists();
    int port = EmulatorProcess.freePort();
    String key = "flink-it-" + UUID.randomUUID().toString().substring(0, 8);
    String secret = "flink-it-secret-" + UUID.randomUUID();
    Path conf = Files.createDirectories(Path.of("target", "emulators", "flink-s3proxy-" + port)).resolve("s3proxy.conf");
    Properties p = new Properties();
    p.putAll(Map.of("s3proxy.endpoint", "http://127.0.0.1:" + port, "s3proxy.authorization", "aws-v2-or-v4",
        "s3proxy.identity", key, "s3proxy.credential", secret, "jclouds.provider", "transient",
        "jclouds.identity", key, "jclouds.credential", secret));
    try (Writer out = Files.newBufferedWriter(conf, StandardCharsets.UTF_8)) {
      p.store(out, "S3Proxy for the Flink sink's integration test");
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    s3proxy = EmulatorProcess.start("s3proxy", List.of(java, "-Xmx512m", "-jar", jar.toString(), "--properties",
        conf.toAbsolutePath().toString()), Map.of("LOG_LEVEL", "warn"), port, EmulatorProcess.Readiness.http("/"),
        Duration.ofSeconds(90));
    try (S3Client client = S3Client.builder().endpointOverride(URI.create(s3proxy.endpoint())).region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
        .httpClient(software.amazon.awssdk.http.apache5.Apache5HttpClient.create()).build()) {
      client.createBucket(b -> b.bucket(BUCKET));
    }
    storeOptions = Map.of("s3.endpoint", s3proxy.endpoint(), "s3.region", "us-east-1", "s3.path-style-access", "true",
        "s3.access-key-id", key, "s3.secret-access-key", secret);
  }

  @AfterAll
  static void stopS3Proxy() {
    if (s3proxy != null) {
      s3proxy.close();
    }
  }

  @BeforeEach
  void reset() {
    Probe.reset();
  }

  @Test
  void aTaskFailureAfterTwoCheckpointsOnS3LeavesEveryRecordInTheTableOnceAndTheSourceReadsThemBack() throws Exception {
    String uri = "s3://" + BUCKET + "/tables/" + UUID.randomUUID();
    SinkFixtures.createTable(uri, storeOptions);
    Probe.failAfter = 2;
    StreamExecutionEnvironment env = QuiverSinkTest.env(3, new Configuration());
    QuiverSinkTest.job(env, QuiverSinkTest.Input.ROW_DATA, uri, 400, 1, 40, storeOptions);
    env.execute("exactly once on S3");
    assertThat(Probe.FAILURES.get()).isEqualTo(1);
    assertThat(SinkFixtures.ids(uri, storeOptions)).isEqualTo(SinkFixtures.range(400));

    // The source's journey: a bounded QuiverSource job reads the table back from S3.
    QuiverSource source = QuiverSource.forRowData(uri).storeOptions(storeOptions).batchSize(64).build();
    Configuration noRestart = new Configuration();
    noRestart.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment read = StreamExecutionEnvironment.getExecutionEnvironment(noRestart);
    read.setParallelism(2);
    List<Long> ids = new ArrayList<>();
    List<String> tags = new ArrayList<>();
    try (CloseableIterator<RowData> rows =
        read.fromSource(source, WatermarkStrategy.noWatermarks(), "quiver-source").executeAndCollect("read S3")) {
      rows.forEachRemaining(r -> {
        ids.add(r.getLong(0));
        tags.add(r.getString(1).toString());
      });
    }
    assertThat(ids.stream().sorted().toList()).as("every row the sink wrote, once").isEqualTo(SinkFixtures.range(400));
    assertThat(tags).as("the rows' tags").containsExactlyInAnyOrderElementsOf(
        SinkFixtures.range(400).stream().map(i -> "t" + i).toList());
  }
}
