package io.quiver.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuickstartTest {
  @Test
  void quickstartRunsOnTheLocalFilesystemAndEveryAppendLandsOnce(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    Quickstart.run(dir.resolve("readings"), new PrintStream(buffer, true, StandardCharsets.UTF_8));
    String out = buffer.toString(StandardCharsets.UTF_8);
    int appends = Quickstart.WRITERS * Quickstart.APPENDS_PER_WRITER;
    long rows = (long) (appends + 1) * Quickstart.ROWS_PER_APPEND;
    assertThat(out)
        .contains("Latest version " + (appends + 1) + " holds " + rows + " rows")
        .contains("read " + rows + " rows, " + rows + " distinct")
        .contains("version 1 still holds " + Quickstart.ROWS_PER_APPEND + " rows")
        .contains((appends + 1) + " versions in all");
  }
}
