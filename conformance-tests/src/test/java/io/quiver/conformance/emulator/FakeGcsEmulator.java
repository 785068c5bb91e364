package io.quiver.conformance.emulator;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * fake-gcs-server (installed by {@code emulators/fake-gcs/install.sh} into {@code emulators/fake-gcs/bin/})
 * on 127.0.0.1, in-memory, plain HTTP, for one test class. A missing binary is a failure, never a skip.
 */
public final class FakeGcsEmulator implements AutoCloseable {
  /** The project id the tests pass; the emulator accepts any. */
  public static final String PROJECT = "quiver-test";

  private final EmulatorProcess process;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private FakeGcsEmulator(EmulatorProcess process) {
    this.process = process;
  }

  /** The repository root: system property {@code quiver.repo.root} (set by Maven), else found upwards. */
  static Path repoRoot() {
    String property = System.getProperty("quiver.repo.root");
    if (property != null && !property.isBlank()) {
      return Path.of(property);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("emulators"))) {
        return p;
      }
    }
    throw new IllegalStateException("cannot find the repository root; set system property quiver.repo.root");
  }

  /** The emulator binary, or a failure saying how to install it. */
  public static Path binary() {
    Path exe = repoRoot().resolve("emulators/fake-gcs/bin/fake-gcs-server");
    if (!Files.isExecutable(exe)) {
      throw new IllegalStateException(
          "fake-gcs-server is not installed at " + exe + "; run emulators/fake-gcs/install.sh (needs Go;"
              + " `mvn -B verify` runs it before the integration tests)");
    }
    return exe;
  }

  public static FakeGcsEmulator start() {
    Path exe = binary();
    int port = EmulatorProcess.freePort();
    String url = "http://127.0.0.1:" + port;
    List<String> command = List.of(
        exe.toString(),
        "-scheme", "http",
        "-host", "127.0.0.1",
        "-port", Integer.toString(port),
        "-backend", "memory",
        // Resumable uploads continue at the Location the server returns; make it point back here.
        "-external-url", url,
        "-log-level", "warn");
    EmulatorProcess process = EmulatorProcess.start(
        "fake-gcs", command, Map.of(), port, EmulatorProcess.Readiness.http("/storage/v1/b"), Duration.ofSeconds(60));
    return new FakeGcsEmulator(process);
  }

  /** {@code http://127.0.0.1:port}. */
  public String endpoint() {
    return process.endpoint();
  }

  /** Options that open a {@code gs://} store on this emulator. */
  public Map<String, String> storeOptions() {
    return Map.of(
        "gcs.endpoint", endpoint(),
        "gcs.project-id", PROJECT,
        "gcs.no-auth", "true");
  }

  /** Creates a bucket through the JSON API. */
  public void createBucket(String name) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint() + "/storage/v1/b?project=" + PROJECT))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"" + name + "\"}"))
        .timeout(Duration.ofSeconds(30))
        .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            "fake-gcs-server refused to create bucket " + name + ": " + response.statusCode() + " " + response.body());
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not create bucket " + name + " on " + this + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** The emulator's last output lines, for failure messages. */
  public String tail() {
    return process.tail();
  }

  @Override
  public void close() {
    process.close();
  }

  @Override
  public String toString() {
    return "fake-gcs-server@" + endpoint();
  }
}
