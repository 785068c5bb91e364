package io.quiver.conformance.local;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a table on the local file system is made of: plain directories and files any Arrow reader opens;
 * the dataset journeys themselves run on the local fixture in the matrix.
 */
class LocalTableFilesTest {
  @TempDir Path dir;
  private RootAllocator allocator;

  @BeforeEach
  void openAllocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void closeAllocator() {
    allocator.close(); // fails the test if an Arrow buffer leaked
  }

  private DatasetOptions options() {
    return DatasetOptions.builder().allocator(allocator).session(new Session(8 << 20)).build();
  }

  @Test
  void plainPathsAndFileUrisNameTheSameTable() {
    Path table = dir.resolve("plain");
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 4);
        Dataset ds = Dataset.create(table.toString(), SampleTable.SCHEMA, List.of(first), options())) {
      assertThat(ds.version()).isEqualTo(1);
    }
    try (Dataset ds = Dataset.open(table.toUri().toString(), options())) {
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 4));
    }
    assertThat(Files.isDirectory(table.resolve("_versions"))).isTrue();
    assertThat(Files.isDirectory(table.resolve("_transactions"))).isTrue();
    assertThat(Files.isDirectory(table.resolve("data"))).isTrue();
  }

  @Test
  void dataFilesAreArrowIpcFilesAnyArrowReaderOpens() throws Exception {
    Path table = dir.resolve("ipc");
    String dataFile;
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 50);
        Dataset ds = Dataset.create(table.toString(), SampleTable.SCHEMA, List.of(first), options())) {
      dataFile = ds.manifest().fragments().get(0).files().get(0).path();
    }
    try (var channel = Files.newByteChannel(table.resolve(dataFile));
        ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
      List<Long> ids = new java.util.ArrayList<>();
      while (reader.loadNextBatch()) {
        ids.addAll(SampleTable.checkRows(reader.getVectorSchemaRoot()));
      }
      assertThat(ids).isEqualTo(range(0, 50));
    }
  }

  /** Deletion files are plain files under the table's _deletions directory. */
  @org.junit.jupiter.api.Test
  void deletionFilesLiveUnderTheTableRoot() {
    Path table = dir.resolve("files");
    try (org.apache.arrow.vector.VectorSchemaRoot b = io.quiver.dataset.SampleTable.batch(allocator, 0, 10);
        io.quiver.dataset.Dataset ds = io.quiver.dataset.Dataset.create(
            table.toString(), io.quiver.dataset.SampleTable.SCHEMA, java.util.List.of(b), options())) {
      ds.delete(io.quiver.predicate.Predicate.lt("id", 3));
      String path = ds.manifest().fragments().get(0).deletionFile().orElseThrow().path();
      assertThat(Files.isRegularFile(table.resolve(path))).as(path).isTrue();
    }
  }
}
