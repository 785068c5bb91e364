package io.quiver.conformance;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class LocalUpdateTest extends UpdateStoreContract {
  @TempDir Path dir;
  private int tables;

  @Override
  protected String newTableUri() {
    return dir.resolve("table-" + tables++).toUri().toString();
  }
}
