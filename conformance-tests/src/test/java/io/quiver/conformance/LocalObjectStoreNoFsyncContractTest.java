package io.quiver.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.local.LocalObjectStore;
import io.quiver.store.local.LocalObjectStoreProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole store contract on the local store with {@code local.fsync=false}: turning durability off
 * must not change what a reader sees or the atomicity of putIfAbsent, only what survives a power loss.
 */
class LocalObjectStoreNoFsyncContractTest extends ObjectStoreContractTest {
  @TempDir Path tempDir;

  @Override
  protected ObjectStore newStore(String name) {
    return ObjectStores.defaultRegistry()
        .open(tempDir.resolve(name).toString(), Map.of(LocalObjectStoreProvider.FSYNC, "false"));
  }

  @Test
  void theOptionIsABooleanAndItsValueIsNamedWhenWrong() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> ObjectStores.defaultRegistry()
        .open(tempDir.resolve("x").toString(), Map.of(LocalObjectStoreProvider.FSYNC, "sometimes")));
    assertTrue(e.getMessage().contains("local.fsync") && e.getMessage().contains("sometimes"), e.getMessage());
    try (ObjectStore durable = ObjectStores.defaultRegistry()
        .open(tempDir.resolve("y").toString(), Map.of(LocalObjectStoreProvider.FSYNC, "TRUE"))) {
      durable.write("k", "v".getBytes(StandardCharsets.UTF_8));
      assertArrayEquals("v".getBytes(StandardCharsets.UTF_8), durable.read("k"));
      assertTrue(durable instanceof LocalObjectStore);
    }
  }
}
