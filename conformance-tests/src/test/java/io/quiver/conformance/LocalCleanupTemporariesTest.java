package io.quiver.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SampleTable;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.local.LocalObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer process killed mid-write leaves a {@code .quiver-tmp-*} file in the table; cleanup removes it
 * through the store's temporaries hook once it is older than the safety window, and keeps a fresh one (a
 * writer that may still be running).
 */
class LocalCleanupTemporariesTest {
  @TempDir Path dir;

  private static Path tempOf(Path parent) throws IOException {
    try (Stream<Path> files = Files.list(parent)) {
      return files.filter(p -> p.getFileName().toString().startsWith(LocalObjectStore.TEMP_PREFIX))
          .findFirst().orElseThrow();
    }
  }

  @Test
  void cleanupRemovesAKilledWritersTempFileOnlyAfterTheSafetyWindow() throws Exception {
    Path table = dir.resolve("t");
    String uri = table.toUri().toString();
    try (RootAllocator allocator = new RootAllocator();
        VectorSchemaRoot batch = SampleTable.batch(allocator, 0, 10);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(batch),
            DatasetOptions.builder().allocator(allocator).build())) {
      // Two writers of another process: one killed two hours ago, one still writing.
      LocalObjectStore other = new LocalObjectStore(table);
      ObjectWriter killed = other.openWriter("data/killed.arrow");
      killed.write(new byte[200_000]); // past its buffer: on disk, as a killed writer leaves it
      Path killedTemp = tempOf(table.resolve("data"));
      Files.setLastModifiedTime(killedTemp, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
      ObjectWriter running = other.openWriter("_transactions/running.txn");
      running.write(new byte[16]);
      Path runningTemp = tempOf(table.resolve("_transactions"));

      long killedBytes = Files.size(killedTemp);
      assertThat(killedBytes).isPositive();
      CleanupOptions window = CleanupOptions.builder().safetyWindow(Duration.ofHours(1)).build();
      CleanupReport dryRun = ds.cleanup(CleanupOptions.builder().safetyWindow(Duration.ofHours(1)).dryRun(true).build());
      assertThat(dryRun.temporaryFilesRemoved()).isEqualTo(1);
      assertThat(killedTemp).exists();

      CleanupReport report = ds.cleanup(window);
      assertThat(report.temporaryFilesRemoved()).isEqualTo(1);
      assertThat(report.bytesFreed()).isEqualTo(killedBytes);
      assertThat(killedTemp).doesNotExist();
      assertThat(runningTemp).exists();
      assertThat(ds.cleanup(window).temporaryFilesRemoved()).as("the running writer's file is young").isEqualTo(0);

      running.close();
      assertThat(runningTemp).doesNotExist();
      assertThat(table.resolve("_transactions/running.txn")).exists();
      assertThat(ds.countRows()).isEqualTo(10);
      killed.abort();
    }
  }
}
