package io.quiver.conformance.emulator;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Azurite's blob service (installed by {@code emulators/azurite/install.sh} into
 * {@code emulators/azurite/node_modules}) on a free port of 127.0.0.1, in memory, without telemetry, for
 * the length of a test class. Serves the well-known development account {@value #ACCOUNT}.
 */
public final class AzuriteEmulator implements AutoCloseable {
  public static final String ACCOUNT = "devstoreaccount1";
  /** Azurite's published development key: not a secret. */
  public static final String KEY =
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

  private final EmulatorProcess process;
  private final BlobServiceClient service;

  private AzuriteEmulator(EmulatorProcess process) {
    this.process = process;
    this.service = new BlobServiceClientBuilder().connectionString(connectionString()).buildClient();
  }

  /** Starts Azurite, or fails with what to run when it is not installed. */
  public static AzuriteEmulator start() {
    Path dir = repoRoot().resolve("emulators").resolve("azurite");
    Path bin = dir.resolve("node_modules").resolve(".bin").resolve("azurite-blob");
    if (!Files.isExecutable(bin)) {
      throw new IllegalStateException(
          "Azurite is not installed (no " + bin + "); run emulators/azurite/install.sh, which `mvn verify` runs"
              + " before the integration tests (it needs node and npm)");
    }
    int port = EmulatorProcess.freePort();
    List<String> command = List.of(
        bin.toString(),
        "--blobHost", "127.0.0.1",
        "--blobPort", Integer.toString(port),
        "--inMemoryPersistence",
        "--disableTelemetry", // on by default, and it would try to reach the internet
        "--silent");
    EmulatorProcess process = EmulatorProcess.start(
        "azurite", command, Map.of(), port, EmulatorProcess.Readiness.http("/" + ACCOUNT + "?comp=list"),
        Duration.ofSeconds(60));
    return new AzuriteEmulator(process);
  }

  /** The repository root, from the {@code quiver.repo.root} system property Maven sets, else found upwards. */
  static Path repoRoot() {
    String property = System.getProperty("quiver.repo.root");
    if (property != null && !property.isBlank()) {
      return Path.of(property);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("emulators")) && Files.isRegularFile(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new IllegalStateException("cannot find the repository root; set -Dquiver.repo.root");
  }

  /** The blob endpoint, e.g. {@code http://127.0.0.1:PORT/devstoreaccount1}. */
  public String endpoint() {
    return process.endpoint() + "/" + ACCOUNT;
  }

  public String connectionString() {
    return "DefaultEndpointsProtocol=http;AccountName=" + ACCOUNT + ";AccountKey=" + KEY + ";BlobEndpoint=" + endpoint() + ";";
  }

  /** Store options for the Azure adapter: endpoint and shared key. */
  public Map<String, String> options() {
    return Map.of("azure.endpoint", endpoint(), "azure.account-name", ACCOUNT, "azure.account-key", KEY);
  }

  /** An SDK client of the emulator's account, for fixtures and for looking behind the adapter. */
  public BlobServiceClient service() {
    return service;
  }

  /** Creates a container (names: 3-63 lower-case letters, digits and dashes). */
  public BlobContainerClient createContainer(String name) {
    BlobContainerClient container = service.getBlobContainerClient(name);
    container.create();
    return container;
  }

  @Override
  public void close() {
    process.close();
  }

  @Override
  public String toString() {
    return "Azurite@" + endpoint();
  }
}
