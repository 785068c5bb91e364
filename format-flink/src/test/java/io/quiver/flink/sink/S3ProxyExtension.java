package io.quiver.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.conformance.emulator.EmulatorProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy (a child process; Maven copies its jar in pre-integration-test, execution copy-s3proxy) with one
 * bucket, started once for all the integration tests of the JVM that register this extension (kept in
 * JUnit's root store, stopped when the run ends).
 */
final class S3ProxyExtension implements BeforeAllCallback {
  static final String BUCKET = "quiver-flink";

  private volatile Running running;

  @Override
  public void beforeAll(ExtensionContext context) {
    running = context.getRoot().getStore(ExtensionContext.Namespace.create(S3ProxyExtension.class))
        .getOrComputeIfAbsent(Running.class, k -> start(), Running.class);
  }

  /** Tables at {@code s3://quiver-flink/tables/<random>} on the running S3Proxy. */
  SinkStore store() {
    Running r = running;
    return new SinkStore() {
      @Override
      public Map<String, String> options() {
        return r.storeOptions();
      }

      @Override
      public String newTableUri() {
        return "s3://" + BUCKET + "/tables/" + UUID.randomUUID();
      }
    };
  }

  private record Running(EmulatorProcess process, Map<String, String> storeOptions) implements AutoCloseable {
    @Override
    public void close() {
      process.close();
    }
  }

  private static Running start() {
    Path jar = Path.of("target", "emulators", "s3proxy.jar").toAbsolutePath();
    assertThat(jar).as("S3Proxy jar (maven-dependency-plugin copy-s3proxy, pre-integration-test)").exists();
    int port = EmulatorProcess.freePort();
    String key = "flink-it-" + UUID.randomUUID().toString().substring(0, 8);
    String secret = "flink-it-secret-" + UUID.randomUUID();
    Path conf;
    try {
      conf = Files.createDirectories(Path.of("target", "emulators", "flink-s3proxy-" + port)).resolve("s3proxy.conf");
      Properties p = new Properties();
      p.putAll(Map.of("s3proxy.endpoint", "http://127.0.0.1:" + port, "s3proxy.authorization", "aws-v2-or-v4",
          "s3proxy.identity", key, "s3proxy.credential", secret, "jclouds.provider", "transient",
          "jclouds.identity", key, "jclouds.credential", secret));
      try (Writer out = Files.newBufferedWriter(conf, StandardCharsets.UTF_8)) {
        p.store(out, "S3Proxy for the Flink connector's integration tests");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    EmulatorProcess s3proxy = EmulatorProcess.start("s3proxy", List.of(java, "-Xmx512m", "-jar", jar.toString(),
            "--properties", conf.toAbsolutePath().toString()), Map.of("LOG_LEVEL", "warn"), port,
        EmulatorProcess.Readiness.http("/"), Duration.ofSeconds(90));
    try (S3Client client = S3Client.builder().endpointOverride(URI.create(s3proxy.endpoint())).region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
        .httpClient(software.amazon.awssdk.http.apache5.Apache5HttpClient.create()).build()) {
      client.createBucket(b -> b.bucket(BUCKET));
    } catch (RuntimeException e) {
      s3proxy.close();
      throw e;
    }
    return new Running(s3proxy, Map.of("s3.endpoint", s3proxy.endpoint(), "s3.region", "us-east-1",
        "s3.path-style-access", "true", "s3.access-key-id", key, "s3.secret-access-key", secret));
  }
}
