package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SampleTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * E1 and E3 with real processes on a store: a driver JVM commits a keyed append and exits
 * (it never reports back, as if it crashed); a second JVM — nothing shared but the table — retries the
 * same key and rows, and a third reuses the key for other rows. Then the same after 20 commits and a
 * cleanup down to the latest version (E2). The table must be reachable from another JVM: a store that
 * lacks {@link Capability#SHARED_ACROSS_PROCESSES} (the memory store) skips it.
 */
public abstract class KeyedAppendAcrossProcessesContract extends StoreSuite {
  @TempDir Path tempDir;

  private String child(String uri, long from, int rows, String key) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path err = tempDir.resolve("child-" + System.nanoTime() + ".err");
    List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        KeyedAppendChild.class.getName(), uri, Long.toString(from), Integer.toString(rows), key));
    fixture().storeOptions().forEach((k, v) -> command.add(k + "=" + v));
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8).trim();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child did not exit").isTrue();
    assertThat(p.exitValue()).as(() -> "child failed: " + read(err)).isEqualTo(0);
    return out.lines().reduce((a, b) -> b).orElse("");
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void e1_aKeyedAppendRetriedFromAnotherProcessCommitsOnceAlsoAfterACleanup() throws Exception {
    assumeCapable(Capability.SHARED_ACROSS_PROCESSES);
    String uri = fixture().newTableUri();
    try (RootAllocator allocator = new RootAllocator()) {
      DatasetOptions options = DatasetOptions.builder().allocator(allocator).storeOptions(fixture().storeOptions())
          .build();
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10)) {
        Dataset.create(uri, SampleTable.SCHEMA, List.of(b), options, io.quiver.model.ModelWorld.SMALL_SEGMENTS).close();
      }
      assertThat(child(uri, 10, 12, "job-x/1")).isEqualTo("VERSION 2");
      assertThat(child(uri, 10, 12, "job-x/1")).as("the retry from a new process is recognised").isEqualTo("VERSION 2");
      assertThat(child(uri, 50, 3, "job-x/1")).as("the key reused for other rows").isEqualTo("CONFLICT 2");
      try (Dataset ds = Dataset.open(uri, options)) {
        assertThat(ds.latestVersion()).isEqualTo(2);
        assertThat(ds.distributed().findCommit("job-x/1", 0).version()).isEqualTo(2);
        for (int i = 0; i < 20; i++) {
          try (VectorSchemaRoot b = SampleTable.batch(allocator, 100 + i, 1)) {
            ds.append(List.of(b));
          }
        }
        // Everything but the latest version goes (files younger than the window stay, versions do not).
        ds.cleanup(CleanupOptions.builder().olderThan(Duration.ZERO).build());
        assertThat(ds.versions().size()).isEqualTo(1);
      }
      assertThat(child(uri, 10, 12, "job-x/1")).as("recognised after 20 commits and a cleanup").isEqualTo("VERSION 2");
      try (Dataset ds = Dataset.open(uri, options)) {
        assertThat(ds.latestVersion()).isEqualTo(22);
        assertThat(ds.validate().isValid()).isTrue();
        List<Long> expected = new ArrayList<>(SampleTable.range(0, 22));
        expected.addAll(SampleTable.range(100, 120));
        assertThat(SampleTable.scanIds(ds.newScan().open())).containsExactlyInAnyOrderElementsOf(expected);
      }
    }
  }
}
