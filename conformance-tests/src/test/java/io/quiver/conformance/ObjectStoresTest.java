package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import io.quiver.store.local.LocalObjectStore;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectStoresTest {
  @TempDir Path tempDir;

  private final ObjectStores registry = ObjectStores.defaultRegistry();

  @Test
  void serviceLoaderFindsMemoryAndFile() {
    assertTrue(registry.schemes().containsAll(Set.of("memory", "file")), registry.schemes().toString());
    assertSame(registry, ObjectStores.defaultRegistry(), "loaded once");
  }

  @Test
  void plainAndFileUriPathsOpenTheLocalStore() {
    ObjectStore byPath = registry.open(tempDir.resolve("t").toString(), Map.of());
    LocalObjectStore local = assertInstanceOf(LocalObjectStore.class, byPath);
    assertEquals(tempDir.resolve("t").toAbsolutePath(), local.root());
    byPath.write("k", "v".getBytes(UTF_8));

    ObjectStore byUri = registry.open(tempDir.resolve("t").toUri().toString(), null);
    assertArrayEquals("v".getBytes(UTF_8), byUri.read("k"));

    LocalObjectStore relative = assertInstanceOf(LocalObjectStore.class, registry.open("relative/dir", Map.of()));
    assertEquals(Path.of("relative/dir").toAbsolutePath().normalize(), relative.root());
    assertTrue(relative.location().startsWith("file:/"), relative.location());
  }

  @Test
  void windowsDriveLetterIsAPathNotAScheme() {
    ObjectStore store = registry.open("C:\\tables\\t", Map.of());
    assertTrue(store.location().startsWith("file:"), store.location());
  }

  @Test
  void memoryUrisShareDataAcrossOpens() {
    String uri = "memory://shared-" + UUID.randomUUID() + "/table";
    registry.open(uri, Map.of()).write("k", "v".getBytes(UTF_8));
    assertArrayEquals("v".getBytes(UTF_8), registry.open(uri + "/", Map.of()).read("k"));
    assertArrayEquals("v".getBytes(UTF_8), registry.open(uri.replace("memory:", "MEMORY:"), Map.of()).read("k"));
    assertTrue(registry.open(uri + "-other", Map.of()).listAll("").isEmpty());
    assertThrows(InvalidArgumentException.class, () -> registry.open("memory:", Map.of()));
  }

  /** Memory and local only, as an application without the cloud modules sees it. */
  private static final ObjectStores LOCAL_ONLY =
      ObjectStores.empty()
          .register(new io.quiver.store.MemoryObjectStoreProvider())
          .register(new io.quiver.store.local.LocalObjectStoreProvider());

  @Test
  void everyAdapterOnTheClasspathIsFoundByScheme() {
    assertTrue(registry.schemes().containsAll(java.util.Set.of("memory", "file", "s3", "gs", "az", "abfs", "abfss")),
        registry.schemes().toString());
  }

  @Test
  void unknownSchemeNamesTheModuleToAdd() {
    InvalidArgumentException s3 =
        assertThrows(InvalidArgumentException.class, () -> LOCAL_ONLY.open("s3://bucket/table", Map.of()));
    assertTrue(s3.getMessage().contains("'s3'"), s3.getMessage());
    assertTrue(s3.getMessage().contains("format-io-s3"), s3.getMessage());
    assertTrue(s3.getMessage().contains("file") && s3.getMessage().contains("memory"), s3.getMessage());
    assertTrue(message("gs://b/t").contains("format-io-gcs"));
    assertTrue(message("abfss://c@a.dfs.core.windows.net/t").contains("format-io-azure"));
    assertTrue(message("az://c/t").contains("format-io-azure"));
    assertTrue(message("hdfs://nn/t").contains("'hdfs'"));
    assertTrue(ObjectStores.empty().schemes().isEmpty());
    InvalidArgumentException file =
        assertThrows(InvalidArgumentException.class, () -> ObjectStores.empty().open("/tmp/t", Map.of()));
    assertTrue(file.getMessage().contains("format-io-local"), file.getMessage());
  }

  private String message(String uri) {
    return assertThrows(InvalidArgumentException.class, () -> LOCAL_ONLY.open(uri, Map.of())).getMessage();
  }

  @Test
  void registerReturnsANewRegistryAndLeavesTheDefaultAlone() {
    MemoryObjectStore fake = new MemoryObjectStore("s3://fake");
    ObjectStoreProvider s3 = new ObjectStoreProvider() {
      @Override
      public Set<String> schemes() {
        return Set.of("FAKE");
      }

      @Override
      public ObjectStore open(URI uri, Map<String, String> options) {
        assertEquals("fake", uri.getScheme());
        assertEquals(Map.of("region", "x"), options);
        return fake;
      }
    };
    ObjectStores withFake = registry.register(s3);
    assertNotSame(registry, withFake);
    assertSame(fake, withFake.open("FAKE://bucket/t", Map.of("region", "x")));
    assertTrue(withFake.schemes().contains("fake"));
    assertTrue(!registry.schemes().contains("fake"));
  }
}
