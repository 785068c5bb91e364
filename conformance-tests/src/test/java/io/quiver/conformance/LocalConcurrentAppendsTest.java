package io.quiver.conformance;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class LocalConcurrentAppendsTest extends ConcurrentAppendsContract {
  @TempDir Path dir;

  @Override
  protected String newTableUri() {
    return dir.resolve("table").toUri().toString();
  }
}
