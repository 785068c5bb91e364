package io.quiver.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangingATableTest {
  @Test
  void theReadmeSnippetsRunOnTheLocalFilesystem(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    ChangingATable.run(dir.resolve("people"), new PrintStream(buffer, true, StandardCharsets.UTF_8));
    String out = buffer.toString(StandardCharsets.UTF_8);
    // Versions 1-3 created; delete, update, two adds, rename, drop, compact, restore: versions 4-11.
    assertThat(out)
        .contains("created version 3 with 300 rows")
        .contains("changed: version 11, 300 rows, columns [id, name]")
        .contains("backfilled name_length in 3 fragments: version 12")
        .contains("distributed append: version 13, retry 13, lookup COMMITTED at 13");
  }
}
