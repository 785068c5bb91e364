package io.quiver.bench;

import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * S3Proxy 4.1.0 for the object-store benchmarks: a child process on 127.0.0.1 (jclouds {@code transient}
 * in-memory backend, no signature check) started from the Maven-resolved jar ({@code -Dquiver.s3proxy.jar}
 * to override), with one bucket. A benchmark harness helper, not Quiver API: a benchmark starts one per
 * trial, {@linkplain #upload uploads} a cached local table to it, and {@linkplain #close closes} it in its
 * tear-down.
 */
final class S3Proxy implements AutoCloseable {
  static final String BUCKET = "quiver-bench";

  private final Process process;
  private final int port;

  private S3Proxy(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts S3Proxy on a free port and creates the bucket. */
  static S3Proxy start() throws Exception {
    Path jar = Path.of(System.getProperty("quiver.s3proxy.jar", System.getProperty("user.home")
        + "/.m2/repository/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("S3Proxy jar not found at " + jar + "; resolve org.gaul:s3proxy:4.1.0"
          + ":jar-with-dependencies (conformance-tests does) or pass -Dquiver.s3proxy.jar=<path>");
    }
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path dir = Bench.scratch("s3proxy-" + port);
    Path config = dir.resolve("s3proxy.conf");
    Files.writeString(config, String.join("\n",
        "s3proxy.endpoint=http://127.0.0.1:" + port,
        "s3proxy.authorization=none",
        "jclouds.provider=transient",
        "jclouds.identity=bench",
        "jclouds.credential=bench-secret", ""));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process = new ProcessBuilder(java, "-Xmx2g", "-jar", jar.toString(), "--properties", config.toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("s3proxy.log").toFile()).start();
    S3Proxy proxy = new S3Proxy(process, port);
    try {
      proxy.createBucket(dir);
      return proxy;
    } catch (Exception | Error e) {
      proxy.close();
      throw e;
    }
  }

  private void createBucket(Path dir) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI bucket = URI.create("http://127.0.0.1:" + port + "/" + BUCKET);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(bucket).PUT(HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 == 2) {
          return;
        }
        throw new IllegalStateException("S3Proxy refused to create bucket " + BUCKET + ": " + r.statusCode() + " " + r.body());
      } catch (IOException e) {
        if (System.nanoTime() > deadline || !process.isAlive()) {
          throw new IllegalStateException("S3Proxy did not start; see " + dir.resolve("s3proxy.log"), e);
        }
        Thread.sleep(200); // harness start-up, not a measurement
      }
    }
  }

  /** The S3 adapter's options for this S3Proxy (endpoint, path-style access, its fixed credentials). */
  Map<String, String> storeOptions() {
    return Map.of("s3.endpoint", "http://127.0.0.1:" + port, "s3.region", "us-east-1",
        "s3.path-style-access", "true", "s3.access-key-id", "bench", "s3.secret-access-key", "bench-secret");
  }

  /** The URI of a table at {@code path} in the bucket. */
  String uri(String path) {
    return "s3://" + BUCKET + "/" + path;
  }

  /** Copies every file of the local table to the keys of the table at {@code uri}, byte for byte. */
  void upload(Path local, String uri) throws IOException {
    try (ObjectStore s3 = ObjectStores.defaultRegistry().open(uri, storeOptions());
        Stream<Path> files = Files.walk(local)) {
      files.filter(Files::isRegularFile).forEach(f -> {
        String key = local.relativize(f).toString().replace('\\', '/');
        if (key.startsWith(".") || key.contains("/.")) {
          return; // the benchmark cache's own markers
        }
        try {
          s3.write(key, Files.readAllBytes(f));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }

  /** Stops the process (its in-memory bucket goes with it). */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor(30, TimeUnit.SECONDS);
  }
}
