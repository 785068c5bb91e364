package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Import's progress counts bytes read: on a terminal a redrawn line with the percentage, MB, rows and MB/s;
 * on a pipe one plain line per tenth of the input. The terminal is faked ({@code --progress terminal}, or
 * {@link Progress#forceTerminal} for auto) and so is the clock, so the output is exact, without sleeps.
 */
class ImportProgressTest {
  @TempDir
  Path dir;

  @AfterEach
  void reset() {
    Progress.forceTerminal = null;
    Progress.clock = System::nanoTime;
  }

  /** A clock that moves one second each time it is read. */
  static void steppingClock() {
    AtomicLong t = new AtomicLong();
    Progress.clock = () -> t.getAndAdd(1_000_000_000L);
  }

  Path csv(int rows) throws IOException {
    StringBuilder b = new StringBuilder("id,name\n");
    for (int i = 0; i < rows; i++) {
      b.append(i).append(",name-").append(i % 10).append('\n');
    }
    Path p = dir.resolve("in.csv");
    Files.writeString(p, b);
    return p;
  }

  @Test
  void aPipeGetsOneLinePerTenthWithoutTimings() throws IOException {
    Path in = csv(10_000);
    long size = Files.size(in);
    CliRunner.Result r = CliRunner.run("import", dir.resolve("t").toString(), in.toString(), "--progress", "plain",
        "--batch-rows", "1000");
    assertThat(r.code()).as(r::toString).isEqualTo(0);
    assertThat(r.err()).doesNotContain("\r").doesNotContain("MB/s");
    var lines = r.err().lines().toList();
    // a line at each tenth the reader passes; the bytes read run ahead of the rows parsed by the read buffer
    assertThat(lines).last().isEqualTo("imported 10000 rows from " + in + " -> version 1");
    assertThat(lines.get(lines.size() - 2)).isEqualTo("import: 100% (" + Progress.mb(size) + " of "
        + Progress.mb(size) + " MB), 10,000 rows");
    assertThat(lines.stream().filter(l -> l.matches("import: \\d+% \\(\\d+\\.\\d of \\d+\\.\\d MB\\), [\\d,]+ rows")))
        .hasSizeGreaterThanOrEqualTo(2).hasSize(lines.size() - 1);
    // the same again: deterministic
    CliRunner.Result again = CliRunner.run("import", dir.resolve("t2").toString(), in.toString(), "--progress",
        "plain", "--batch-rows", "1000");
    assertThat(again.err().replace("t2", "t")).isEqualTo(r.err());
  }

  @Test
  void aTerminalGetsARedrawnLineWithRowsAndMegabytesPerSecond() throws IOException {
    steppingClock();
    Path in = csv(20_000);
    String size = Progress.mb(Files.size(in));
    CliRunner.Result r = CliRunner.run("import", dir.resolve("t").toString(), in.toString(), "--progress",
        "terminal", "--batch-rows", "5000");
    assertThat(r.code()).as(r::toString).isEqualTo(0);
    String err = r.err();
    assertThat(err).startsWith("\rimport ").contains(" rows  ").contains(" MB/s");
    // every redraw returns to the start of the line; the last shows everything read
    assertThat(err).contains("import 100% " + size + "/" + size + " MB  20,000 rows");
    assertThat(err.split("\r", -1).length).isGreaterThan(3);
    assertThat(err).containsPattern("\\d+\\.\\d MB/s");
    // the per-file line replaces the redrawn one and ends with a line break
    assertThat(err).contains("\rimported 20000 rows from " + in + " -> version 1");
    assertThat(err).endsWith("\n");
  }

  @Test
  void autoAsksWhetherStderrIsATerminal() throws IOException {
    steppingClock();
    Path in = csv(100);
    Progress.forceTerminal = true;
    assertThat(CliRunner.run("import", dir.resolve("a").toString(), in.toString()).err()).startsWith("\rimport ");
    Progress.forceTerminal = false;
    assertThat(CliRunner.run("import", dir.resolve("b").toString(), in.toString()).err()).startsWith("import: ");
    assertThat(CliRunner.run("import", dir.resolve("c").toString(), in.toString(), "--progress", "none").err())
        .startsWith("imported 100 rows");
  }

  @Test
  void redrawsAtMostTenTimesASecond() {
    AtomicLong t = new AtomicLong();
    Progress.clock = t::get;
    StringWriter out = new StringWriter();
    try (Progress p = new Progress(new PrintWriter(out), "import", 1000, Progress.Mode.terminal)) {
      for (int i = 1; i <= 99; i++) {
        t.addAndGet(10_000_000L); // 10 ms
        p.bytes(i * 10, i);
      }
      p.bytes(1000, 100);
    }
    // at 10 ms, 110 ms, ... 910 ms, then the final 100%: eleven draws for a hundred updates
    assertThat(out.toString().chars().filter(c -> c == '\r').count()).isEqualTo(11);
    assertThat(out.toString()).contains("import 100% 0.0/0.0 MB  100 rows");
  }
}
