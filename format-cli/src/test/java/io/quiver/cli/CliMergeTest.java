package io.quiver.cli;

import static io.quiver.cli.CliCommandsTest.ok;
import static io.quiver.cli.CliCommandsTest.userError;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
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

/** {@code quiver merge}: upserts by key from CSV, JSON lines and Arrow IPC, its clauses and its errors. */
class CliMergeTest {
  @TempDir
  Path dir;

  String table;

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
    ok("import", table, write("people.csv", """
        id,name,age,score
        1,ann,31,1.5
        2,bob,,2.5
        3,cy,45,
        """).toString());
  }

  Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p;
  }

  List<String> rows() {
    return ok("scan", table, "--format", "csv").out().lines().toList();
  }

  long version() {
    try (Dataset ds = Dataset.open(table)) {
      return ds.version();
    }
  }

  @Test
  void csvUpsertUpdatesMatchedRowsInsertsTheRestAndKeepsColumnsTheFileLacks() throws IOException {
    Path changes = write("changes.csv", """
        id,name,age
        2,bobby,27
        4,dee,
        """);
    assertThat(ok("merge", table, changes.toString(), "--on", "id").out().trim())
        .isEqualTo("merged " + changes + " on id: 1 inserted, 1 updated, 0 deleted; version 2");
    // id 2 keeps its score (the file has no score column); id 4 has none.
    assertThat(rows()).containsExactly("id,name,age,score", "1,ann,31,1.5", "2,bobby,27,2.5", "3,cy,45,",
        "4,dee,,");
    assertThat(ok("log", table, "-n", "1").out()).contains("merge-insert");
  }

  @Test
  void jsonLinesWithDeleteBySourceLeavesExactlyTheFilesKeys() throws IOException {
    Path snapshot = write("snapshot.jsonl", """
        {"id": 3, "name": "cy", "age": 46, "score": 0.5}
        {"id": 5, "name": "eve", "age": 22, "score": null}
        """);
    assertThat(ok("merge", table, snapshot.toString(), "--on", "id", "--when-not-matched-by-source", "delete")
        .out()).contains("1 inserted, 1 updated, 2 deleted; version 2");
    assertThat(rows()).containsExactly("id,name,age,score", "3,cy,46,0.5", "5,eve,22,");
  }

  @Test
  void insertOnlyLeavesMatchedRowsAlone() throws IOException {
    Path changes = write("changes.csv", "id,name\n1,changed\n9,new\n");
    assertThat(ok("merge", table, changes.toString(), "--on", "id", "--when-matched", "nothing").out())
        .contains("1 inserted, 0 updated, 0 deleted");
    assertThat(rows()).containsExactly("id,name,age,score", "1,ann,31,1.5", "2,bob,,2.5", "3,cy,45,", "9,new,,");
  }

  @Test
  void arrowIpcFileMerges() throws Exception {
    Path f = dir.resolve("changes.arrow");
    Schema schema = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true)),
        Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    try (RootAllocator alloc = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
        FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ArrowFileWriter w = new ArrowFileWriter(root, null, ch)) {
      ((BigIntVector) root.getVector("id")).setSafe(0, 1);
      ((VarCharVector) root.getVector("name")).setSafe(0, "annie".getBytes(StandardCharsets.UTF_8));
      ((BigIntVector) root.getVector("id")).setSafe(1, 7);
      ((VarCharVector) root.getVector("name")).setSafe(1, "gus".getBytes(StandardCharsets.UTF_8));
      root.setRowCount(2);
      w.start();
      w.writeBatch();
      w.end();
    }
    assertThat(ok("merge", table, f.toString(), "--on", "id").out()).contains("1 inserted, 1 updated, 0 deleted");
    assertThat(rows()).containsExactly("id,name,age,score", "1,annie,31,1.5", "2,bob,,2.5", "3,cy,45,", "7,gus,,");
  }

  @Test
  void aKeyTwiceInTheFileIsRefusedNamingItAndNothingIsCommitted() throws IOException {
    Path changes = write("changes.csv", "id,name\n4,a\n2,b\n4,c\n");
    assertThat(userError("merge", table, changes.toString(), "--on", "id")).contains("4");
    assertThat(version()).isEqualTo(1);
    assertThat(rows()).hasSize(4);
  }

  @Test
  void whenMatchedFailNamesTheKeyAndCommitsNothing() throws IOException {
    Path changes = write("changes.csv", "id,name\n8,h\n3,c\n");
    assertThat(userError("merge", table, changes.toString(), "--on", "id", "--when-matched", "fail")).contains("3");
    assertThat(version()).isEqualTo(1);
  }

  @Test
  void aValueThatDoesNotFitTheTablesTypeNamesTheLineAndCommitsNothing() throws IOException {
    Path changes = write("changes.csv", "id,age\n2,30\n4,old\n");
    String error = userError("merge", table, changes.toString(), "--on", "id");
    assertThat(error).contains("line 3").contains("age").contains("old");
    assertThat(version()).isEqualTo(1);
  }

  @Test
  void unknownKeyColumnsAndColumnsAreUserErrors() throws IOException {
    Path changes = write("changes.csv", "id,name\n2,b\n");
    assertThat(userError("merge", table, changes.toString(), "--on", "nope")).contains("nope");
    Path extra = write("extra.csv", "id,zip\n2,123\n");
    assertThat(userError("merge", table, extra.toString(), "--on", "id")).contains("zip");
    assertThat(version()).isEqualTo(1);
  }
}
