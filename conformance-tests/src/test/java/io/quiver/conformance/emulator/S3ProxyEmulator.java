package io.quiver.conformance.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3Proxy ({@code org.gaul:s3proxy}, jar-with-dependencies) as a child process on 127.0.0.1, with signature
 * checking on (so a wrong secret is refused) and jclouds' in-memory {@code transient} backend. It runs out
 * of process because its jar bundles an older AWS SDK. Maven puts the jar at {@code
 * conformance-tests/target/emulators/s3proxy.jar} in {@code pre-integration-test} (maven-dependency-plugin
 * execution {@code copy-s3proxy}); a missing jar fails the test with that hint.
 *
 * <p>Backend choice: S3Proxy's {@code If-None-Match: *} on PUT held (exactly one winner per round of the
 * 16-thread race) on both the {@code transient} and the {@code filesystem} backends. {@code transient} is
 * the default because S3Proxy lists by walking every object under the prefix on each request: about 20 ms
 * per ListObjectsV2 over 2,500 keys in memory against about 175 ms on the file system, and the contract
 * pages through 2,500 keys one at a time. See docs/storage/s3.md.
 */
public final class S3ProxyEmulator implements AutoCloseable {
  /** The S3Proxy version Maven fetches (keep in step with conformance-tests/pom.xml). */
  public static final String VERSION = "4.1.0";
  public static final String REGION = "us-east-1";
  /** jclouds backend: {@code transient} (in memory) by default; {@code -Dquiver.s3proxy.provider=filesystem} to compare. */
  public static final String PROVIDER = System.getProperty("quiver.s3proxy.provider", "transient");

  private final EmulatorProcess process;
  private final String accessKeyId;
  private final String secretAccessKey;

  private S3ProxyEmulator(EmulatorProcess process, String accessKeyId, String secretAccessKey) {
    this.process = process;
    this.accessKeyId = accessKeyId;
    this.secretAccessKey = secretAccessKey;
  }

  /** Starts S3Proxy on a free port; fails (never skips) when the jar is missing. */
  public static S3ProxyEmulator start() {
    Path jar = Path.of("target", "emulators", "s3proxy.jar").toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "S3Proxy " + VERSION + " is missing at " + jar + ". Maven copies it there in the pre-integration-test"
              + " phase of conformance-tests (maven-dependency-plugin execution copy-s3proxy): run"
              + " `mvn -B -pl format-core,format-io-local,format-io-s3,conformance-tests -am verify`.");
    }
    int port = EmulatorProcess.freePort();
    String accessKeyId = "quiver-it-" + UUID.randomUUID().toString().substring(0, 8);
    String secret = "quiver-it-secret-" + UUID.randomUUID();
    Path dir = Path.of("target", "emulators", "s3proxy-" + port).toAbsolutePath();
    Path config = dir.resolve("s3proxy.conf");
    try {
      Files.createDirectories(dir);
      Properties p = new Properties();
      p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
      p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
      p.setProperty("s3proxy.identity", accessKeyId);
      p.setProperty("s3proxy.credential", secret);
      p.setProperty("jclouds.provider", PROVIDER);
      p.setProperty("jclouds.identity", accessKeyId);
      p.setProperty("jclouds.credential", secret);
      if (PROVIDER.equals("filesystem")) {
        p.setProperty("jclouds.filesystem.basedir", dir.resolve("data").toString());
      }
      try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
        p.store(out, "S3Proxy for Quiver's S3 integration tests");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the S3Proxy configuration under " + dir, e);
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Map<String, String> env = new LinkedHashMap<>();
    env.put("LOG_LEVEL", "warn");
    EmulatorProcess process = EmulatorProcess.start(
        "s3proxy",
        List.of(java, "-Xmx1g", "-jar", jar.toString(), "--properties", config.toString()),
        env, port, EmulatorProcess.Readiness.http("/"), Duration.ofSeconds(90));
    return new S3ProxyEmulator(process, accessKeyId, secret);
  }

  public String endpoint() {
    return process.endpoint();
  }

  public String accessKeyId() {
    return accessKeyId;
  }

  /** The secret S3Proxy checks signatures with; tests assert it never leaks. */
  public String secretAccessKey() {
    return secretAccessKey;
  }

  /** Store options (the documented {@code s3.*} keys) that reach this emulator. */
  public Map<String, String> storeOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("s3.endpoint", endpoint());
    options.put("s3.region", REGION);
    options.put("s3.path-style-access", "true");
    options.put("s3.access-key-id", accessKeyId);
    options.put("s3.secret-access-key", secretAccessKey);
    return options;
  }

  /** A plain SDK client on the emulator, for test set-up and for looking behind the adapter's back. */
  public S3Client newClient() {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint()))
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey)))
        .httpClient(software.amazon.awssdk.http.apache5.Apache5HttpClient.create())
        .build();
  }

  /** Creates a bucket. */
  public void createBucket(String bucket) {
    try (S3Client s3 = newClient()) {
      s3.createBucket(b -> b.bucket(bucket));
    }
  }

  /** The last lines S3Proxy printed, for failure messages. */
  public String tail() {
    return process.tail();
  }

  @Override
  public void close() {
    process.close();
  }

  @Override
  public String toString() {
    return "S3Proxy " + VERSION + " (" + PROVIDER + ") at " + endpoint();
  }
}
