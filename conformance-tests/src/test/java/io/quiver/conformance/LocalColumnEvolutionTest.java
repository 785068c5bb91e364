package io.quiver.conformance;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class LocalColumnEvolutionTest extends ColumnEvolutionContract {
  @TempDir Path dir;

  @Override
  protected String newTableUri() {
    return dir.resolve("table").toUri().toString();
  }
}
