package io.quiver.conformance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectStoresTest {
  @TempDir Path tempDir;

  private final ObjectStores registry = ObjectStores.defaultRegistry();

  @Test
  void serviceLoaderFindsMemoryAndFile() {
    assertThat(registry.schemes().containsAll(Set.of("memory", "file"))).as(registry.schemes().toString()).isTrue();
    assertThat(ObjectStores.defaultRegistry()).as("loaded once").isSameAs(registry);
  }

  @Test
  void plainAndFileUriPathsOpenTheLocalStore() {
    ObjectStore byPath = registry.open(tempDir.resolve("t").toString(), Map.of());
    assertThat(byPath).isInstanceOf(LocalObjectStore.class);
    LocalObjectStore local = (LocalObjectStore) byPath;
    assertThat(local.root()).isEqualTo(tempDir.resolve("t").toAbsolutePath());
    byPath.write("k", "v".getBytes(UTF_8));

    ObjectStore byUri = registry.open(tempDir.resolve("t").toUri().toString(), null);
    assertThat(byUri.read("k")).containsExactly("v".getBytes(UTF_8));

    ObjectStore relativeStore = registry.open("relative/dir", Map.of());
    assertThat(relativeStore).isInstanceOf(LocalObjectStore.class);
    LocalObjectStore relative = (LocalObjectStore) relativeStore;
    assertThat(relative.root()).isEqualTo(Path.of("relative/dir").toAbsolutePath().normalize());
    assertThat(relative.location().startsWith("file:/")).as(relative.location()).isTrue();
  }

  @Test
  void windowsDriveLetterIsAPathNotAScheme() {
    ObjectStore store = registry.open("C:\\tables\\t", Map.of());
    assertThat(store.location().startsWith("file:")).as(store.location()).isTrue();
  }

  @Test
  void memoryUrisShareDataAcrossOpens() {
    String uri = "memory://shared-" + UUID.randomUUID() + "/table";
    registry.open(uri, Map.of()).write("k", "v".getBytes(UTF_8));
    assertThat(registry.open(uri + "/", Map.of()).read("k")).containsExactly("v".getBytes(UTF_8));
    assertThat(registry.open(uri.replace("memory:", "MEMORY:"), Map.of()).read("k")).containsExactly("v".getBytes(UTF_8));
    assertThat(registry.open(uri + "-other", Map.of()).listAll("").isEmpty()).isTrue();
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> registry.open("memory:", Map.of()));
  }

  /** Memory and local only, as an application without the cloud modules sees it. */
  private static final ObjectStores LOCAL_ONLY =
      ObjectStores.empty()
          .register(new io.quiver.store.MemoryObjectStoreProvider())
          .register(new io.quiver.store.local.LocalObjectStoreProvider());

  @Test
  void everyAdapterOnTheClasspathIsFoundByScheme() {
    assertThat(registry.schemes().containsAll(java.util.Set.of("memory", "file", "s3", "gs", "az", "abfs", "abfss"))).as(registry.schemes().toString()).isTrue();
  }

  @Test
  void unknownSchemeNamesTheModuleToAdd() {
    InvalidArgumentException s3 =
        assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> LOCAL_ONLY.open("s3://bucket/table", Map.of())).actual();
    assertThat(s3.getMessage().contains("'s3'")).as(s3.getMessage()).isTrue();
    assertThat(s3.getMessage().contains("format-io-s3")).as(s3.getMessage()).isTrue();
    assertThat(s3.getMessage().contains("file") && s3.getMessage().contains("memory")).as(s3.getMessage()).isTrue();
    assertThat(message("gs://b/t").contains("format-io-gcs")).isTrue();
    assertThat(message("abfss://c@a.dfs.core.windows.net/t").contains("format-io-azure")).isTrue();
    assertThat(message("az://c/t").contains("format-io-azure")).isTrue();
    assertThat(message("hdfs://nn/t").contains("'hdfs'")).isTrue();
    assertThat(ObjectStores.empty().schemes().isEmpty()).isTrue();
    InvalidArgumentException file =
        assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ObjectStores.empty().open("/tmp/t", Map.of())).actual();
    assertThat(file.getMessage().contains("format-io-local")).as(file.getMessage()).isTrue();
  }

  private String message(String uri) {
    return assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> LOCAL_ONLY.open(uri, Map.of()))
        .actual().getMessage();
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
        assertThat(uri.getScheme()).isEqualTo("fake");
        assertThat(options).isEqualTo(Map.of("region", "x"));
        return fake;
      }
    };
    ObjectStores withFake = registry.register(s3);
    Assertions.assertThat(withFake).isNotSameAs(registry);
    assertThat(withFake.open("FAKE://bucket/t", Map.of("region", "x"))).isSameAs(fake);
    assertThat(withFake.schemes().contains("fake")).isTrue();
    assertThat(registry.schemes().contains("fake")).isFalse();
  }
}
