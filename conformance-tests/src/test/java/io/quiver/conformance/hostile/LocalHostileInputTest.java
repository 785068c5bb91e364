package io.quiver.conformance.hostile;

import io.quiver.hostile.HostileInputContract;
import io.quiver.store.ObjectStore;
import io.quiver.store.local.LocalObjectStore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** D1–D5 (format-core's {@link HostileInputContract}) on the local file system. */
class LocalHostileInputTest extends HostileInputContract {
  @TempDir Path tempDir;

  @Override
  protected ObjectStore newStore(String name) {
    return new LocalObjectStore(tempDir.resolve(name));
  }
}
