package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.quiver.store.local.LocalObjectStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalObjectStore#putIfAbsent} must be atomic across processes, not only threads: table
 * writers are often separate JVMs. Child JVMs race round by round; the parent opens each round by
 * creating a gate file once every child has reported the previous one, so the races overlap.
 */
class LocalPutIfAbsentProcessRaceTest {
  private static final int CHILDREN = 4;
  private static final int ROUNDS = 20;

  @TempDir Path tempDir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void exactlyOneProcessWinsEachKey() throws Exception {
    Path root = tempDir.resolve("table");
    Path gates = Files.createDirectories(tempDir.resolve("gates"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<Process> children = new ArrayList<>();
    List<BufferedReader> outputs = new ArrayList<>();
    try {
      for (int id = 0; id < CHILDREN; id++) {
        Process p = new ProcessBuilder(
                java, "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                PutIfAbsentRaceChild.class.getName(), root.toString(), gates.toString(),
                Integer.toString(id), Integer.toString(ROUNDS))
            .redirectError(tempDir.resolve("child-" + id + ".err").toFile())
            .start();
        children.add(p);
        outputs.add(new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8)));
      }
      for (int id = 0; id < CHILDREN; id++) {
        expectLine(id, outputs.get(id), "READY");
      }

      int[] winners = new int[ROUNDS];
      for (int round = 0; round < ROUNDS; round++) {
        Files.createFile(gates.resolve("go-" + round));
        List<Integer> created = new ArrayList<>();
        for (int id = 0; id < CHILDREN; id++) {
          String line = expectLine(id, outputs.get(id), "ROUND " + round + " ");
          if (line.endsWith(" CREATED")) {
            created.add(id);
          } else if (!line.endsWith(" ALREADY_EXISTS")) {
            fail("child " + id + " reported " + line);
          }
        }
        assertThat(created.size()).as("round " + round + ": children that reported CREATED " + created).isEqualTo(1);
        winners[round] = created.get(0);
      }
      for (int id = 0; id < CHILDREN; id++) {
        Process p = children.get(id);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
          fail("child " + id + " did not exit cleanly: " + stderr(id));
        }
      }

      try (LocalObjectStore store = new LocalObjectStore(root)) {
        for (int round = 0; round < ROUNDS; round++) {
          assertThat(store.read("race/key-" + round)).as("round " + round + " must hold the bytes of its winner, child " + winners[round]).containsExactly(PutIfAbsentRaceChild.payload(winners[round], round));
        }
        assertThat(store.listAll("race/").size()).isEqualTo(ROUNDS);
      }
    } finally {
      children.forEach(Process::destroyForcibly);
    }
  }

  /** Reads lines until one starts with {@code start}; the end of output means the child died. */
  private String expectLine(int id, BufferedReader out, String start) throws IOException {
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith(start)) {
        return line;
      }
    }
    throw new AssertionError("child " + id + " ended before printing '" + start + "': " + stderr(id));
  }

  private String stderr(int id) {
    try {
      return Files.readString(tempDir.resolve("child-" + id + ".err"));
    } catch (IOException e) {
      return "(no stderr: " + e + ")";
    }
  }
}
