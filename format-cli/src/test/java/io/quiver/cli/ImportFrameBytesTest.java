package io.quiver.cli;

import static io.quiver.cli.CliCommandsTest.ok;
import static io.quiver.cli.CliCommandsTest.userError;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table {@code quiver import} creates has {@code write.compression.frame-bytes = 4096} (from CSV, JSON
 * lines or Arrow IPC) unless {@code --config} sets the key; an import into an existing table leaves its
 * configuration as it is; a bad value is a one-line user error. Every import runs with {@code --progress
 * none}.
 */
class ImportFrameBytesTest {
  private static final String KEY = "write.compression.frame-bytes";

  @TempDir
  Path dir;

  Path people;

  @BeforeEach
  void input() throws IOException {
    people = dir.resolve("people.csv");
    Files.writeString(people, "id,name\n1,ann\n2,bob\n3,cy\n", StandardCharsets.UTF_8);
  }

  private String uri(String name) {
    return dir.resolve(name).toUri().toString();
  }

  private static Map<String, String> config(String uri) {
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(uri, DatasetOptions.builder().allocator(allocator).build())) {
      return ds.config();
    }
  }

  private static List<String> scan(String uri) {
    return ok("scan", uri, "-f", "csv").out().lines().toList();
  }

  @Test
  void aCreatedTableHasFourKibibyteFrames() throws IOException {
    String csv = uri("csv");
    ok("import", csv, people.toString(), "--progress", "none");
    assertThat(ok("info", csv).out()).contains("config:    {" + KEY + "=4096}");
    assertThat(config(csv)).isEqualTo(Map.of(KEY, "4096"));
    assertThat(scan(csv)).containsExactly("id,name", "1,ann", "2,bob", "3,cy");
    // other --config keys keep the import's frame size
    String plain = uri("plain");
    ok("import", plain, people.toString(), "--progress", "none", "--config", "write.compression.level=3");
    assertThat(config(plain)).isEqualTo(Map.of("write.compression.level", "3", KEY, "4096"));
    // from Arrow IPC and JSON lines as well
    Path arrow = dir.resolve("people.arrow");
    Path json = dir.resolve("people.jsonl");
    ok("export", csv, arrow.toString());
    ok("export", csv, json.toString());
    for (Path file : List.of(arrow, json)) {
      String created = uri("from-" + file.getFileName().toString().replace('.', '-'));
      ok("import", created, file.toString(), "--progress", "none");
      assertThat(config(created)).as(file.toString()).isEqualTo(Map.of(KEY, "4096"));
      assertThat(scan(created)).containsExactly("id,name", "1,ann", "2,bob", "3,cy");
    }
  }

  @Test
  void configGivingTheKeyWins() {
    String t = uri("t");
    ok("import", t, people.toString(), "--progress", "none", "--config", KEY + "=1024");
    assertThat(config(t)).isEqualTo(Map.of(KEY, "1024"));
    assertThat(ok("info", t).out()).contains(KEY + "=1024").doesNotContain("4096");
  }

  @Test
  void importingIntoAnExistingTableKeepsItsConfiguration() {
    String set = uri("set");
    ok("import", set, people.toString(), "--progress", "none", "--config", KEY + "=65536");
    ok("import", set, people.toString(), "--progress", "none");
    assertThat(config(set)).isEqualTo(Map.of(KEY, "65536"));
    // a table made without the key (the library's default, 1 KiB frames) does not get it from an import
    String unset = uri("unset");
    ok("import", unset, people.toString(), "--progress", "none", "--config", KEY + "=1024");
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(unset, DatasetOptions.builder().allocator(allocator).build())) {
      ds.updateConfig(Map.of(), Set.of(KEY));
    }
    assertThat(config(unset)).isEmpty();
    ok("import", unset, people.toString(), "--progress", "none");
    assertThat(config(unset)).isEmpty();
    assertThat(scan(unset)).hasSize(7);
  }

  @Test
  void aBadValueIsAOneLineUserErrorAndCreatesNoTable() {
    for (String value : List.of("1000", "2097152", "abc")) {
      String t = uri("bad-" + value);
      assertThat(userError("import", t, people.toString(), "--progress", "none", "--config", KEY + "=" + value))
          .startsWith("error: table configuration " + KEY + " is '" + value + "'; expected")
          .contains("power of two from 1024 to 1048576");
      assertThat(userError("info", t)).contains("no Quiver table");
    }
  }
}
