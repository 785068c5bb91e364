package io.quiver.conformance;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class LocalDeleteTest extends DeleteContract {
  @TempDir Path dir;
  private int tables;

  @Override
  protected String newTableUri() {
    return dir.resolve("table-" + tables++).toUri().toString();
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
      org.junit.jupiter.api.Assertions.assertTrue(Files.isRegularFile(table.resolve(path)), path);
    }
  }
}
