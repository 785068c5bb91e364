package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged, shaded {@code quiver.jar} (and the {@code ./quiver} launcher) run as child processes after
 * the package phase: store adapters are found through merged {@code META-INF/services} files.
 */
class QuiverJarIT {
  static final Path JAR = Path.of(System.getProperty("quiver.jar", "target/quiver.jar")).toAbsolutePath();
  static final Path ROOT = Path.of(System.getProperty("quiver.root", "..")).toAbsolutePath().normalize();

  @TempDir
  Path dir;

  record Run(int code, String out) {}

  static Run run(Path cwd, List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true).start();
    byte[] bytes;
    try (InputStream in = p.getInputStream()) {
      bytes = in.readAllBytes();
    }
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + command);
    }
    return new Run(p.exitValue(), new String(bytes, StandardCharsets.UTF_8));
  }

  static Run quiver(Path cwd, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-jar", JAR.toString()));
    cmd.addAll(List.of(args));
    return run(cwd, cmd);
  }

  @Test
  void servicesFilesAreMergedSoEveryAdapterIsFound() throws Exception {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      String services = new String(jar.getInputStream(jar.getEntry(
          "META-INF/services/io.quiver.store.ObjectStoreProvider")).readAllBytes(), StandardCharsets.UTF_8);
      assertThat(services).contains("Memory").contains("Local").contains("S3").contains("Gcs").contains("Azure");
    }
    Run schemes = quiver(dir, "schemes");
    assertThat(schemes.code()).as(schemes.out()).isEqualTo(0);
    assertThat(schemes.out().lines().toList()).contains("memory", "file", "s3", "gs", "az");
    Run version = quiver(dir, "--version");
    assertThat(version.code()).as(version.out()).isEqualTo(0);
    assertThat(version.out()).contains("store schemes:").contains("s3").contains("gs").contains("az");
  }

  @Test
  void opensMemoryAndFileTables() throws Exception {
    Path csv = dir.resolve("points.csv");
    Files.writeString(csv, "id,label\n1,a\n2,b\n");
    Run memory = quiver(dir, "import", "memory://it/points", csv.toString());
    assertThat(memory.code()).as(memory.out()).isEqualTo(0);
    assertThat(memory.out()).contains("imported 2 rows");

    String uri = dir.resolve("points").toUri().toString();
    Run imported = quiver(dir, "import", uri, csv.toString());
    assertThat(imported.code()).as(imported.out()).isEqualTo(0);
    Run info = quiver(dir, "info", uri);
    assertThat(info.code()).as(info.out()).isEqualTo(0);
    assertThat(info.out()).contains("rows:      2").containsPattern("label\\s+string\\s+nullable\\s+field id 2");
    Run missing = quiver(dir, "info", "file://" + dir.resolve("nothing-here"));
    assertThat(missing.code()).as(missing.out()).isEqualTo(1);
    assertThat(missing.out()).doesNotContain("\tat ");
  }

  @Test
  void launcherRunsTheDemo() throws Exception {
    Run demo = run(ROOT, List.of("sh", ROOT.resolve("quiver").toString(), "demo", dir.resolve("demo").toString()));
    assertThat(demo.code()).as(demo.out()).isEqualTo(0);
    assertThat(demo.out()).contains("rejected with StaleColumnWriteException")
        .contains("recompute committed fragments").contains("table is valid");
  }
}
