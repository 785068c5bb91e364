package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.exceptions.IncompatibleTransactionException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Every command, in-process, against a table in a temporary directory. */
class CliCommandsTest {
  @TempDir
  Path dir;

  String table;
  Path people;

  @BeforeAll
  static void plainProgress() {
    Progress.forceTerminal = false;
  }

  @AfterAll
  static void resetProgress() {
    Progress.forceTerminal = null;
  }

  @BeforeEach
  void createTable() throws IOException {
    table = dir.resolve("people").toUri().toString();
    people = write("people.csv", """
        id,name,age,score,joined
        1,ann,31,1.5,2024-01-31
        2,bob,,2.5,2024-02-01
        3,"smith, jr",45,,2024-03-15
        """);
    CliRunner.Result r = ok("import", table, people.toString());
    assertThat(r.out()).contains("imported 3 rows from 1 file(s)").contains("version 1 with 3 rows");
    assertThat(r.err()).contains("import: 100%").contains("3 rows");
  }

  Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p;
  }

  static CliRunner.Result ok(String... args) {
    CliRunner.Result r = CliRunner.run(args);
    assertThat(r.code()).as(r::toString).isEqualTo(0);
    return r;
  }

  /** A user error: exit 1, a single line naming the problem, no stack trace. */
  static String userError(String... args) {
    CliRunner.Result r = CliRunner.run(args);
    assertThat(r.code()).as(r::toString).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    List<String> lines = r.err().lines().toList();
    assertThat(lines.size()).as(r::toString).isEqualTo(1);
    assertThat(r.err()).doesNotContain("\tat ");
    return lines.get(0);
  }

  // ------------------------------------------------------------------ import and scan

  @Test
  void importInfersTypesAndInfoShowsThemWithFieldIds() {
    String out = ok("info", table).out();
    assertThat(out).contains("version:   1").contains("fragments: 1").contains("rows:      3").contains("bytes:")
        .contains("ledger:    0 idempotence keys, 0 application watermarks, complete from version 1");
    assertThat(out).containsPattern("id\\s+int64\\s+nullable\\s+field id 1")
        .containsPattern("name\\s+string\\s+nullable\\s+field id 2")
        .containsPattern("age\\s+int64").containsPattern("score\\s+float64").containsPattern("joined\\s+date");
  }

  @Test
  void importSetsTheNewTablesConfiguration() {
    String plain = dir.resolve("plain").toUri().toString();
    ok("import", plain, people.toString(), "--config", "write.compression=none", "--config",
        "write.compression.level=1");
    assertThat(ok("info", plain).out()).contains("write.compression").contains("none");
    assertThat(ok("scan", plain, "-f", "csv", "--columns", "id,name").out().lines().toList())
        .containsExactly("id,name", "1,ann", "2,bob", "3,\"smith, jr\"");
    assertThat(userError("import", plain, people.toString(), "--config", "write.compression=none"))
        .contains("exists (version 1)");
    assertThat(userError("import", dir.resolve("bad").toUri().toString(), people.toString(), "--progress", "none",
        "--config", "write.compression=lz4")).contains("write.compression is 'lz4'; expected zstd or none");
    assertThat(userError("info", dir.resolve("bad").toUri().toString())).contains("no Quiver table");
  }

  @Test
  void typeOverrideWins() {
    String other = dir.resolve("typed").toUri().toString();
    ok("import", other, people.toString(), "--type", "age=int32", "--type", "joined=string");
    assertThat(ok("info", other).out()).containsPattern("age\\s+int32").containsPattern("joined\\s+string");
    assertThat(userError("import", dir.resolve("x").toString(), people.toString(), "--type", "nope=int32"))
        .contains("unknown column 'nope'");
    assertThat(userError("import", dir.resolve("y").toString(), people.toString(), "--type", "age=int99"))
        .contains("unknown type 'int99'");
  }

  @Test
  void changesPrintsTheChangeFeedOfATableWithRowIds() {
    String tracked = dir.resolve("tracked").toUri().toString();
    ok("import", tracked, people.toString(), "--config", "row-ids=true"); // v1: row ids 0..2
    ok("update", tracked, "--set", "age=32", "--where", "id = 1"); // v2
    ok("delete", tracked, "--where", "name = 'bob'"); // v3
    List<String> lines = ok("changes", tracked, "--from", "1", "-f", "csv", "--columns", "id,age").out().lines()
        .map(l -> l.replaceAll(",\\d{4}-\\d\\d-\\d\\dT[^,]*,", ",<time>,")).toList();
    assertThat(lines).containsExactly("id,age,_change_type,_commit_version,_commit_timestamp,_rowid",
        "1,31,update_preimage,2,<time>,0", "1,32,update_postimage,2,<time>,0", "2,,delete,3,<time>,1");
    assertThat(ok("changes", tracked, "--from", "2", "--to", "3", "--columns", "id", "-f", "jsonl").out())
        .contains("\"_change_type\":\"delete\"").doesNotContain("update");
    assertThat(userError("changes", tracked, "--from", "1", "--columns", "nope")).contains("unknown column 'nope'");
    assertThat(userError("changes", table, "--from", "1", "--to", "1")).contains("got from 1 to 1");
    ok("update", table, "--set", "age=1", "--where", "id = 1");
    assertThat(userError("changes", table, "--from", "1")).contains("has no stable row ids");
  }

  @Test
  void scanPrintsAnAlignedTableByDefault() {
    String out = ok("scan", table).out();
    assertThat(out.lines().toList()).containsExactly(
        "id  name       age   score  joined",
        "--  ---------  ----  -----  ----------",
        "1   ann        31    1.5    2024-01-31",
        "2   bob        null  2.5    2024-02-01",
        "3   smith, jr  45    null   2024-03-15",
        "(3 rows)");
  }

  @Test
  void scanFiltersProjectsAndLimits() {
    assertThat(ok("scan", table, "--columns", "id,name", "--where", "age > 30 AND name != 'ann'").out())
        .contains("3   smith, jr").doesNotContain("ann").contains("(1 row)");
    assertThat(ok("scan", table, "--where", "age IS NULL OR joined >= '2024-03-01'", "--columns", "id").out()
        .lines().skip(2).toList()).containsExactly("2", "3", "(2 rows)");
    assertThat(ok("scan", table, "--limit", "1", "--columns", "id").out()).contains("(1 row)");
  }

  @Test
  void scanStatsPrintsWhatTheStatisticsPruned() {
    CliRunner.Result r = ok("scan", table, "--where", "id > 100", "--stats", "-f", "csv");
    assertThat(r.out().lines().toList()).as("no row has id > 100").hasSize(1);
    assertThat(r.err()).contains("scan statistics:")
        .contains("fragments: 1 considered, 1 pruned, 0 read")
        .contains("batches:   0 considered, 0 pruned, 0 read")
        .contains("rows returned:     0");
    CliRunner.Result all = ok("scan", table, "--where", "id >= 1", "--stats");
    assertThat(all.err()).contains("fragments: 1 considered, 0 pruned, 1 read").contains("data files opened: 1");
    assertThat(ok("scan", table).err()).doesNotContain("scan statistics");
  }

  @Test
  void scanOnThreadsPrintsTheSameRowsInTheSameOrder() {
    ok("import", table, people.toString());
    ok("import", table, people.toString()); // three fragments now
    String sequential = ok("scan", table, "-f", "csv", "--where", "age IS NOT NULL").out();
    assertThat(sequential.lines().count()).isEqualTo(1 + 6);
    assertThat(ok("scan", table, "-f", "csv", "--where", "age IS NOT NULL", "--threads", "3").out())
        .isEqualTo(sequential);
    assertThat(userError("scan", table, "--threads", "0")).contains("--threads must be between 1 and 256, got 0");
  }

  @Test
  void scanWritesCsvAndJsonLines() {
    assertThat(ok("scan", table, "--format", "csv", "--columns", "id,name").out().lines().toList())
        .containsExactly("id,name", "1,ann", "2,bob", "3,\"smith, jr\"");
    assertThat(ok("scan", table, "-f", "jsonl", "--columns", "id,name,age", "--where", "id = 2").out().trim())
        .isEqualTo("{\"id\":2,\"name\":\"bob\",\"age\":null}");
  }

  @Test
  void importAppendsJsonLinesAndArrowIpcFiles() throws Exception {
    Path json = write("more.jsonl", """
        {"id": 4, "name": "cy", "age": 20}
        {"id": 5, "name": null, "score": 7}
        """);
    Path arrow = dir.resolve("more.arrow");
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
            Field.nullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE))),
            allocator)) {
      ((BigIntVector) root.getVector("id")).setSafe(0, 6);
      ((VarCharVector) root.getVector("name")).setSafe(0, "dee".getBytes(StandardCharsets.UTF_8));
      root.setRowCount(1);
      try (FileChannel ch = FileChannel.open(arrow, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          ArrowFileWriter w = new ArrowFileWriter(root, null, ch)) {
        w.start();
        w.writeBatch();
        w.end();
      }
      String other = dir.resolve("arrow-table").toUri().toString();
      assertThat(ok("import", other, arrow.toString()).out()).contains("1 rows");
      assertThat(ok("scan", other, "-f", "csv").out()).contains("6,dee");
    }
    ok("import", table, json.toString());
    assertThat(ok("scan", table, "--where", "id >= 4", "-f", "csv", "--columns", "id,name,age,score").out()
        .lines().toList()).containsExactly("id,name,age,score", "4,cy,20,", "5,,,7.0");
    assertThat(ok("info", table).out()).contains("rows:      5").contains("version:   2");
  }

  @Test
  void badInputIsAOneLineErrorWithExitOne() throws Exception {
    assertThat(userError("import", table, dir.resolve("missing.csv").toString()))
        .contains("missing.csv does not exist");
    Path shortRow = write("short.csv", "id,name\n7,x\n8\n");
    assertThat(userError("import", table, shortRow.toString())).contains("short.csv line 3: expected 2 values");
    Path badValue = write("bad.csv", "id,name\nseven,x\n");
    assertThat(userError("import", table, badValue.toString()))
        .contains("bad.csv line 2 column 'id': 'seven' is not a int64 value");
    Path badQuote = write("quote.csv", "id,name\n7,\"open\n");
    assertThat(userError("import", table, badQuote.toString())).contains("quote.csv").contains("malformed CSV");
    Path extra = write("extra.csv", "id,nickname\n7,x\n");
    assertThat(userError("import", table, extra.toString())).contains("column 'nickname' that the table does not have");
    Path badJson = write("bad.jsonl", "{\"id\": 1}\n{oops\n");
    assertThat(userError("import", table, badJson.toString())).contains("bad.jsonl line 2: not valid JSON");
    assertThat(userError("scan", table, "--columns", "nope")).contains("unknown column 'nope'");
    assertThat(userError("scan", table, "--where", "nope = 1")).contains("unknown column 'nope'");
    assertThat(userError("scan", table, "--where", "age = 'old'")).contains("type mismatch").contains("'age' is int64");
    assertThat(userError("scan", table, "--where", "age = ")).contains("expected a value");
    assertThat(userError("scan", dir.resolve("nothing").toString())).contains("nothing");
    assertThat(userError("scan", table, "--version", "99")).contains("99");
    assertThat(userError("scan", table, "--format", "xml")).contains("xml");
    assertThat(userError("update", table, "--set", "age='x'", "--where", "id = 1")).contains("type mismatch");
    assertThat(userError("update", table, "--set", "nope=1")).contains("unknown column 'nope'");
    assertThat(userError("cleanup", table, "--older-than", "soon")).contains("duration");
    assertThat(userError("add-column", table, "x:int99")).contains("unknown type");
    assertThat(userError("info", table, "--options-file", dir.resolve("none.properties").toString()))
        .contains("does not exist");
    assertThat(userError("bogus")).contains("bogus").contains("see 'quiver --help'");
    assertThat(userError("scan")).contains("Missing required parameter").contains("see 'quiver scan --help'");
    // nothing was committed by any of it
    assertThat(ok("info", table).out()).contains("version:   1");
  }

  // ------------------------------------------------------------------ changes

  @Test
  void deleteUpdateAndSchemaChanges() {
    assertThat(ok("delete", table, "--where", "name = 'bob'").out()).contains("deleted 1 rows; version 2");
    assertThat(ok("update", table, "--set", "age=32", "--set", "name='Ann'", "--where", "id = 1").out())
        .contains("updated 1 rows; version 3");
    assertThat(ok("add-column", table, "note:string", "rank:int32").out()).contains("[note, rank]; version 4");
    assertThat(ok("rename-column", table, "score", "rating").out()).contains("renamed score to rating; version 5");
    assertThat(ok("drop-column", table, "joined").out()).contains("dropped [joined]; version 6");
    assertThat(ok("scan", table, "-f", "csv").out().lines().toList()).containsExactly(
        "id,name,age,rating,note,rank", "1,Ann,32,1.5,,", "3,\"smith, jr\",45,,,");
    String diff = ok("diff", table, "1", "6").out();
    assertThat(diff).contains("rows 3 -> 2").contains("~ fragment 0").contains("deleted rows 0 -> 1")
        .contains("+ field note").contains("+ field rank").contains("- field joined")
        .contains("~ field id 4: score float64 nullable -> rating float64 nullable");
    String log = ok("log", table).out();
    assertThat(log.lines().toList().get(0)).contains("version").contains("operation").contains("idempotence key");
    assertThat(log).contains("delete").contains("update").contains("add-columns").contains("project");
    assertThat(ok("log", table, "-n", "2").out().lines().count()).isEqualTo(4);
  }

  @Test
  void tagsRestoreAndTimeTravel() {
    ok("delete", table, "--where", "id = 1");
    assertThat(ok("tag", "create", table, "before", "1").out()).contains("tagged version 1 as before");
    assertThat(ok("tag", "list", table).out()).containsPattern("before\\s+1");
    assertThat(ok("scan", table, "--tag", "before", "--columns", "id").out()).contains("(3 rows)");
    assertThat(ok("scan", table, "--version", "2", "--columns", "id").out()).contains("(2 rows)");
    assertThat(ok("restore", table, "1").out()).contains("restored version 1 as version 3");
    assertThat(ok("scan", table, "--columns", "id").out()).contains("(3 rows)");
    assertThat(userError("tag", "create", table, "before", "2")).contains("before");
    assertThat(ok("tag", "delete", table, "before").out()).contains("deleted tag before");
    assertThat(ok("tag", "list", table).out()).contains("no tags");
    assertThat(userError("tag", "delete", table, "before")).contains("before");
  }

  @Test
  void indicesCreateListOptimizeAndDrop() throws Exception {
    assertThat(ok("index", "list", table).out()).contains("no indices");
    assertThat(ok("index", "create", table, "by_name", "bitmap", "name").out())
        .contains("created bitmap index by_name on name as version 2");
    ok("import", table, write("more.csv", "id,name\n9,zed\n").toString());
    assertThat(ok("index", "list", table).out()).containsPattern("by_name\\s+bitmap\\s+name\\s+1\\s+\\d+\\s+1/2\\s+1");
    CliRunner.Result scan = ok("scan", table, "--where", "name IN ('bob', 'zed')", "--stats", "-f", "csv");
    assertThat(scan.out()).contains("bob").contains("zed");
    assertThat(scan.err()).contains("1 fragments answered by an index, 1 scanned without one, 1 with part or all of"
        + " the filter decided by the index");
    assertThat(ok("index", "optimize", table, "by_name").out()).contains("optimized index by_name as version 4");
    assertThat(ok("index", "optimize", table, "by_name").out()).contains("already covers every fragment");
    assertThat(ok("scan", table, "--where", "name IN ('bob', 'zed')", "--stats").err()).contains("2 fragments answered by an index, 0 scanned without one, 2 with part or all of the filter decided");
    assertThat(userError("index", "create", table, "x", "hash", "name")).contains("btree or bitmap");
    assertThat(userError("index", "create", table, "x", "btree", "score")).contains("cannot be indexed");
    assertThat(userError("index", "create", table, "by_name", "btree", "id")).contains("already has an index named");
    assertThat(ok("index", "drop", table, "by_name").out()).contains("dropped index by_name as version 5");
    assertThat(userError("index", "drop", table, "by_name")).contains("no index named 'by_name'");
    assertThat(ok("validate", table).out()).contains("is valid");
  }

  @Test
  void compactCleanupAndValidate() throws Exception {
    for (int i = 0; i < 3; i++) {
      ok("import", table, write("p" + i + ".csv", "id,name\n" + (10 + i) + ",x\n").toString());
    }
    assertThat(ok("info", table).out()).contains("fragments: 4");
    CliRunner.Result c = ok("compact", table);
    assertThat(c.out()).contains("compacted 4 fragments into 1").contains("version 5");
    assertThat(c.err()).contains("compact: 1/1 done");
    assertThat(ok("validate", table).out()).contains("version 5 is valid");
    CliRunner.Result dry = ok("cleanup", table, "--older-than", "0s", "--safety-window", "0s", "--dry-run");
    assertThat(dry.out()).contains("would remove 4 versions");
    CliRunner.Result clean = ok("cleanup", table, "--older-than", "0s", "--safety-window", "PT0S");
    assertThat(clean.out()).contains("removed 4 versions");
    assertThat(clean.err()).contains("cleanup: 1/1 done");
    assertThat(ok("log", table).out().lines().count()).isEqualTo(3);
    assertThat(ok("scan", table, "--columns", "id").out()).contains("(6 rows)");
    assertThat(ok("validate", table).out()).contains("is valid");
  }

  @Test
  void storeOptionsComeFromFlagsAndAFile() throws Exception {
    Path props = write("store.properties", "unused.setting=1\n");
    assertThat(ok("info", table, "--option", "another=2", "--options-file", props.toString()).out())
        .contains("rows:      3");
    assertThat(userError("info", table, "--option", "novalue")).contains("novalue");
  }

  // ------------------------------------------------------------------ exit codes, help, progress

  @Test
  void conflictsExitTwoAndInternalErrorsExitThreeWithTraceOnlyWhenVerbose() {
    CommandLine cl = Main.commandLine(null, null);
    cl.addSubcommand("conflict", new Conflict());
    cl.addSubcommand("bug", new Bug());
    CliRunner.Result conflict = CliRunner.run(cl, "conflict");
    assertThat(conflict.code()).as(conflict::toString).isEqualTo(2);
    assertThat(conflict.err().trim()).isEqualTo("conflict: a concurrent delete removed the rows this update read");
    CliRunner.Result bug = CliRunner.run(cl, "bug");
    assertThat(bug.code()).as(bug::toString).isEqualTo(3);
    assertThat(bug.err()).contains("IllegalStateException: broken invariant").contains("--verbose")
        .doesNotContain("\tat ");
    CliRunner.Result verbose = CliRunner.run(cl, "--verbose", "bug");
    assertThat(verbose.code()).as(verbose::toString).isEqualTo(3);
    assertThat(verbose.err()).contains("\tat ");
  }

  @CommandLine.Command(name = "conflict")
  static final class Conflict implements Callable<Integer> {
    @Override
    public Integer call() {
      throw new IncompatibleTransactionException("a concurrent delete removed the rows this update read");
    }
  }

  @CommandLine.Command(name = "bug")
  static final class Bug implements Callable<Integer> {
    @Override
    public Integer call() {
      throw new IllegalStateException("broken invariant");
    }
  }

  @Test
  void everyCommandHasHelp() {
    CommandLine cl = Main.commandLine(null, null);
    for (var e : cl.getSubcommands().entrySet()) {
      if (e.getKey().equals("help")) {
        continue;
      }
      CliRunner.Result r = CliRunner.run(e.getKey(), "--help");
      assertThat(r.code()).as(() -> e.getKey() + ": " + r).isEqualTo(0);
      assertThat(r.out()).contains("Usage: quiver " + e.getKey());
      for (String sub : e.getValue().getSubcommands().keySet()) {
        CliRunner.Result s = CliRunner.run(e.getKey(), sub, "--help");
        assertThat(s.code()).as(s::toString).isEqualTo(0);
        assertThat(s.out()).contains("Usage: quiver " + e.getKey() + " " + sub);
      }
    }
    assertThat(ok("--help").out()).contains("import").contains("scan").contains("demo").doesNotContain("schemes");
    assertThat(ok("--version").out()).contains("store schemes:").contains("file").contains("memory");
  }

  @Test
  void progressIsABarOnATerminal() {
    java.io.StringWriter w = new java.io.StringWriter();
    Progress.forceTerminal = true;
    try (Progress p = new Progress(new java.io.PrintWriter(w), "import", 4)) {
      p.advance(2);
    } finally {
      Progress.forceTerminal = false;
    }
    assertThat(w.toString()).contains("\rimport [###############               ] 2/4");
  }

  @Test
  void memoryTablesWorkWithinOneProcess() {
    assertThat(ok("import", "memory://cli-test/t", people.toString()).out()).contains("imported 3 rows");
  }

  @Test
  void demoNarratesTheStaleWorkerAndTheRecompute() {
    CliRunner.Result r = ok("demo", dir.resolve("demo").toString());
    assertThat(r.out()).contains("1. Creating table").contains("writer 3 committed versions")
        .contains("rejected with StaleColumnWriteException").contains("input field 'celsius'")
        .contains("recompute committed fragments").contains("fragments still missing values: 0")
        .contains("1400 rows, 1400 with fahrenheit, 1400 of them equal to celsius × 9/5 + 32; table is valid");
    assertThat(r.err()).contains("backfill: 13/13 done");
  }
}
