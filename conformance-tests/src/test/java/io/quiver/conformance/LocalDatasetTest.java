package io.quiver.conformance;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.SampleTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalDatasetTest extends DatasetStoreContract {
  @TempDir Path dir;
  private int tables;

  @Override
  protected String newTableUri() {
    return dir.resolve("table-" + tables++).toUri().toString();
  }

  @Test
  void plainPathsAndFileUrisNameTheSameTable() {
    Path table = dir.resolve("plain");
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 4);
        Dataset ds = Dataset.create(table.toString(), SampleTable.SCHEMA, List.of(first), options())) {
      assertEquals(1, ds.version());
    }
    try (Dataset ds = Dataset.open(table.toUri().toString(), options())) {
      assertEquals(range(0, 4), scanIds(ds.newScan().open()));
    }
    assertTrue(Files.isDirectory(table.resolve("_versions")));
    assertTrue(Files.isDirectory(table.resolve("_transactions")));
    assertTrue(Files.isDirectory(table.resolve("data")));
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
      assertEquals(range(0, 50), ids);
    }
  }
}
