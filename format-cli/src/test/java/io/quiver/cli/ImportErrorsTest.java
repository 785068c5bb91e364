package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed input stops the import with one line naming the file and line (and, for a value, the column,
 * the value, the type and the --type to pass), exit code 1, and the table is unchanged: a new table is not
 * created, an existing one stays at its version.
 */
class ImportErrorsTest {
  @TempDir
  Path dir;

  String table;

  @BeforeAll
  static void noProgress() {
    Progress.forceTerminal = false;
  }

  @AfterAll
  static void resetProgress() {
    Progress.forceTerminal = null;
  }

  @BeforeEach
  void createTable() throws IOException {
    table = dir.resolve("t").toUri().toString();
    CliRunner.Result r = CliRunner.run("import", table, write("seed.csv", "id,name\n1,a\n").toString());
    assertThat(r.code()).as(r::toString).isEqualTo(0);
  }

  Path write(String name, String text) throws IOException {
    return write(name, text.getBytes(StandardCharsets.UTF_8));
  }

  Path write(String name, byte[] bytes) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, bytes);
    return p;
  }

  /** Exit 1 and one error line (progress lines aside); the existing table unchanged, no new one created. */
  String fails(Path file, String... extra) {
    String fresh = dir.resolve("fresh-" + file.getFileName()).toUri().toString();
    String line = null;
    for (String target : List.of(table, fresh)) {
      String[] args = new String[3 + extra.length];
      args[0] = "import";
      args[1] = target;
      args[2] = file.toString();
      System.arraycopy(extra, 0, args, 3, extra.length);
      CliRunner.Result r = CliRunner.run(args);
      assertThat(r.code()).as(r::toString).isEqualTo(1);
      assertThat(r.out()).isEmpty();
      List<String> errors = r.err().lines().filter(l -> !l.matches("import: \\d+% .*")).toList();
      assertThat(errors).as(r::toString).hasSize(1);
      assertThat(r.err()).doesNotContain("\tat ");
      if (target.equals(table)) {
        line = errors.get(0);
      }
    }
    CliRunner.Result info = CliRunner.run("info", table);
    assertThat(info.out()).contains("version:   1").contains("rows:      1");
    CliRunner.Result none = CliRunner.run("info", fresh);
    assertThat(none.code()).isEqualTo(1);
    assertThat(none.err()).contains("no Quiver table");
    return line;
  }

  @Test
  void raggedRows() throws IOException {
    assertThat(fails(write("short.csv", "id,name\n2,b\n3\n")))
        .isEqualTo("error: " + dir.resolve("short.csv") + " line 3: expected 2 values ([id, name]), found 1");
    assertThat(fails(write("long.csv", "id,name\n2,b\n3,c,extra\n4,d\n")))
        .contains("long.csv line 3: expected 2 values ([id, name]), found 3");
  }

  @Test
  void badQuoting() throws IOException {
    assertThat(fails(write("open.csv", "id,name\n2,\"never closed\n3,c\n")))
        .contains("open.csv line 2: malformed CSV: a quoted field is not closed before the end of the file");
    assertThat(fails(write("after.csv", "id,name\n2,b\n3,\"c\"d\n")))
        .contains("after.csv line 3: malformed CSV").contains("after closing quote");
  }

  @Test
  void aTypeChangeOnLineOneMillionAndOne() throws IOException {
    Path big = dir.resolve("big.csv");
    try (BufferedWriter w = Files.newBufferedWriter(big)) {
      w.write("id,name\n");
      for (int i = 2; i <= 1_000_000; i++) {
        w.write(Integer.toString(i));
        w.write(",n\n");
      }
      w.write("1000001.5,n\n");
      for (int i = 0; i < 10; i++) {
        w.write("7,n\n");
      }
    }
    String fresh = dir.resolve("fresh-typed").toUri().toString();
    CliRunner.Result r = CliRunner.run("import", fresh, big.toString());
    assertThat(r.code()).as(r::toString).isEqualTo(1);
    assertThat(r.err().lines().filter(l -> l.startsWith("error:")).toList()).containsExactly("error: " + big
        + " line 1000001 column 'id': '1000001.5' is not a int64 value (int64 was inferred from the first 10000"
        + " rows; pass --type id=float64 or a larger --sample-rows)");
    assertThat(CliRunner.run("info", fresh).code()).isEqualTo(1);
    // appending to the existing table: its type, and the table stays as it was
    assertThat(fails(big)).contains("big.csv line 1000001 column 'id': '1000001.5' is not a int64 value"
        + " (the table's column is int64)");
    // the --type it suggests takes the file
    CliRunner.Result fixed = CliRunner.run("import", fresh, big.toString(), "--type", "id=float64");
    assertThat(fixed.code()).as(fixed::toString).isEqualTo(0);
    assertThat(fixed.out()).contains("imported 1000010 rows");
  }

  @Test
  void invalidUtf8() throws IOException {
    byte[] csv = "id,name\n2,b\n3,caf\u00e9\n4,x".getBytes(StandardCharsets.UTF_8);
    byte[] bad = new byte[csv.length + 4];
    System.arraycopy(csv, 0, bad, 0, csv.length);
    bad[csv.length] = (byte) 0xC3; // a lead byte followed by an ASCII one
    bad[csv.length + 1] = 'y';
    bad[csv.length + 2] = '\n';
    bad[csv.length + 3] = '5';
    String line = fails(write("latin.csv", withTail(bad, ",z\n")));
    assertThat(line).contains("latin.csv line 4: invalid UTF-8 (byte 0xC3 at offset " + csv.length + ")");
    byte[] json = "{\"id\": 2, \"name\": \"b\"}\n{\"id\": 3, \"name\": \"".getBytes(StandardCharsets.UTF_8);
    assertThat(fails(write("latin.jsonl", withTail(withTail(json, new byte[] {(byte) 0xE9}), "\"}\n"))))
        .contains("latin.jsonl line 2: invalid UTF-8");
  }

  private static byte[] withTail(byte[] head, String tail) {
    return withTail(head, tail.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] withTail(byte[] head, byte[] tail) {
    byte[] out = new byte[head.length + tail.length];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(tail, 0, out, head.length, tail.length);
    return out;
  }

  @Test
  void jsonErrors() throws IOException {
    assertThat(fails(write("late.jsonl", "{\"id\": 2}\n{\"id\": 3}\n{\"id\": \"x\"}\n"), "--sample-rows", "1"))
        .contains("late.jsonl line 3 column 'id': 'x' is not a int64 value");
    assertThat(fails(write("bad.jsonl", "{\"id\": 2}\n{\"id\": ]}\n")))
        .contains("bad.jsonl line 2: not valid JSON");
    assertThat(fails(write("array.jsonl", "{\"id\": 2}\n[1]\n"))).contains("array.jsonl line 2: expected a JSON"
        + " object, found an array");
    Path extra = write("extra.jsonl", "{\"id\": 2}\n{\"id\": 3, \"nick\": \"x\"}\n");
    CliRunner.Result toTable = CliRunner.run("import", table, extra.toString());
    assertThat(toTable.code()).isEqualTo(1);
    assertThat(toTable.err()).contains("extra.jsonl line 2: field 'nick' is not a column of the table");
    assertThat(CliRunner.run("info", table).out()).contains("version:   1");
    String fresh = dir.resolve("fresh-sampled").toUri().toString();
    CliRunner.Result r = CliRunner.run("import", fresh, extra.toString(), "--sample-rows", "1");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("extra.jsonl line 2: field 'nick' is not in the schema inferred from the first"
        + " rows; pass --type nick=<type> or a larger --sample-rows");
    CliRunner.Result typed = CliRunner.run("import", fresh, extra.toString(), "--sample-rows", "1", "--type",
        "nick=string");
    assertThat(typed.code()).as(typed::toString).isEqualTo(0);
    Path mixed = write("mixed.jsonl", "{\"v\": 1}\n{\"v\": \"one\"}\n");
    CliRunner.Result m = CliRunner.run("import", dir.resolve("mixed").toUri().toString(), mixed.toString());
    assertThat(m.code()).isEqualTo(1);
    assertThat(m.err()).contains("mixed.jsonl line 2 field 'v': string value where earlier lines had int64;"
        + " use --type v=<type>");
  }

  @Test
  void emptyAndHeaderless() throws IOException {
    assertThat(fails(write("empty.csv", ""))).contains("empty.csv is empty");
    assertThat(fails(write("dup.csv", "id,id\n1,2\n"))).contains("dup.csv line 1: column 'id' appears twice");
  }
}
