package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar imports files far larger than its heap in a child JVM with {@code -Xmx64m} (Arrow's
 * direct memory is bounded by the same figure): materialised as rows, the CSV would need several times the
 * heap. Then exports it back, streaming, and the bytes match.
 */
class QuiverJarLargeFileIT {
  @TempDir
  Path dir;

  record Run(int code, String out) {}

  static Run quiver(Path cwd, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx64m", "-XX:MaxDirectMemorySize=64m", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-jar",
        QuiverJarIT.JAR.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
    byte[] bytes;
    try (InputStream in = p.getInputStream()) {
      bytes = in.readAllBytes();
    }
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + cmd);
    }
    return new Run(p.exitValue(), new String(bytes, StandardCharsets.UTF_8));
  }

  @Test
  void aCsvMuchLargerThanTheHeapImportsAndExportsBack() throws Exception {
    Path csv = dir.resolve("big.csv");
    long rows = 1_500_000;
    try (BufferedWriter w = Files.newBufferedWriter(csv)) {
      w.write("id,name,amount,day,note\n");
      for (long i = 0; i < rows; i++) {
        w.write(i + ",name number " + i + "," + (i % 1000) / 4.0 + ",2024-01-" + (10 + i % 20) + ",\"a, quoted "
            + "note with \"\"quotes\"\"\"\n");
      }
    }
    assertThat(Files.size(csv)).isGreaterThan(100_000_000L);
    String uri = dir.resolve("t").toUri().toString();
    Run imported = quiver(dir, "import", uri, csv.toString(), "--progress", "plain");
    assertThat(imported.code()).as(imported.out()).isEqualTo(0);
    assertThat(imported.out()).contains("imported " + rows + " rows from 1 file(s)").contains("import: 50% (");
    Path back = dir.resolve("back.csv");
    Run exported = quiver(dir, "export", uri, back.toString());
    assertThat(exported.code()).as(exported.out()).isEqualTo(0);
    assertThat(Files.mismatch(csv, back)).isEqualTo(-1L);
  }
}
