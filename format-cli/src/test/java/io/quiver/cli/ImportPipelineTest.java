package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Import parses on a thread of its own ahead of the fragment writer: a failure on
 * either side publishes nothing, names the same file, line and column as before, and leaves no import
 * thread running.
 */
class ImportPipelineTest {
  @TempDir
  Path dir;

  @BeforeAll
  static void noProgress() {
    Progress.forceTerminal = false;
  }

  @AfterAll
  static void resetProgress() {
    Progress.forceTerminal = null;
  }

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p;
  }

  private static String rows(int n, boolean json, String badAt) {
    StringBuilder b = new StringBuilder(json ? "" : "id,name\n");
    for (int i = 1; i <= n; i++) {
      String id = i == n ? badAt : Integer.toString(i);
      b.append(json ? "{\"id\": " + id + ", \"name\": \"n" + i + "\"}\n" : id + ",n" + i + "\n");
    }
    return b.toString();
  }

  private static void noImportThreadLeft() {
    assertThat(Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
        .filter(n -> n.startsWith("quiver-import-")).toList()).isEmpty();
  }

  @Test
  void aBadValueManyBatchesInPublishesNothing() throws IOException {
    for (boolean json : new boolean[] {false, true}) {
      Path f = write(json ? "late.jsonl" : "late.csv", rows(5000, json, json ? "\"x\"" : "x"));
      String uri = dir.resolve("t-" + json).toUri().toString();
      CliRunner.Result r = CliRunner.run("import", uri, f.toString(), "--sample-rows", "100", "--batch-rows", "7",
          "--fragment-rows", "50");
      assertThat(r.code()).as(r::toString).isEqualTo(1);
      assertThat(r.err()).contains(f + " line " + (json ? 5000 : 5001) + " column 'id': 'x' is not a int64 value");
      assertThat(CliRunner.run("info", uri).code()).isEqualTo(1);
      noImportThreadLeft();
    }
  }

  @Test
  void commitEveryKeepsWholeChunksBeforeALateFailure() throws IOException {
    Path f = write("chunks.csv", rows(1000, false, "x"));
    String uri = dir.resolve("chunks").toUri().toString();
    CliRunner.Result r = CliRunner.run("import", uri, f.toString(), "--sample-rows", "100", "--batch-rows", "30",
        "--fragment-rows", "100", "--commit-every", "2");
    assertThat(r.code()).as(r::toString).isEqualTo(1);
    assertThat(r.err()).contains("line 1001 column 'id'").contains("the 800 rows before it are committed");
    assertThat(CliRunner.run("info", uri).out()).contains("800");
    noImportThreadLeft();
  }

  @Test
  void aWriterFailureStopsTheParser() throws IOException {
    for (boolean json : new boolean[] {false, true}) {
      Path f = write(json ? "many.jsonl" : "many.csv", rows(20_000, json, "20000"));
      String name = "pipeline-" + UUID.randomUUID();
      FaultInjectingObjectStore store = FaultyStores.store(name);
      AtomicInteger dataFiles = new AtomicInteger();
      // the second fragment's file cannot be opened: the writer fails while the parser is ahead of it
      store.arm(Op.OPEN_WRITER, k -> k.startsWith("data/") && dataFiles.incrementAndGet() == 2,
          Fault.FAIL_BEFORE, 1);
      CliRunner.Result r = CliRunner.run("import", "faulty://" + name, f.toString(), "--batch-rows", "100",
          "--fragment-rows", "1000");
      assertThat(r.code()).as(r::toString).isEqualTo(1);
      assertThat(r.err()).contains("injected FAIL_BEFORE on OPEN_WRITER");
      assertThat(CliRunner.run("info", "faulty://" + name).code()).isEqualTo(1);
      noImportThreadLeft();
      store.disarmAll();
    }
  }
}
