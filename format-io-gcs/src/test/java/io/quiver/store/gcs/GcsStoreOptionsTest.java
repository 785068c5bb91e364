package io.quiver.store.gcs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Option parsing, URI parsing and registration; no server needed (no call reaches the network). */
class GcsStoreOptionsTest {
  private static final Map<String, String> EMULATOR =
      Map.of("gcs.endpoint", "http://127.0.0.1:9", "gcs.no-auth", "true", "gcs.project-id", "p");

  @Test
  void defaults() {
    GcsStoreOptions o = GcsStoreOptions.parse(Map.of());
    assertEquals(8 << 20, o.writeThreshold());
    assertEquals(8 << 20, o.resumableChunk());
    assertEquals(6, o.maxAttempts());
  }

  @Test
  void chunkSizeRoundsUpTo256KiB() {
    assertEquals(256 * 1024, GcsStoreOptions.parse(Map.of("gcs.resumable-chunk-bytes", "1")).resumableChunk());
    assertEquals(512 * 1024, GcsStoreOptions.parse(Map.of("gcs.resumable-chunk-bytes", "300000")).resumableChunk());
    assertEquals(1 << 20, GcsStoreOptions.parse(Map.of("gcs.resumable-chunk-bytes", "1048576")).resumableChunk());
  }

  @Test
  void badValuesAreRefusedWithTheKeyInTheMessage() {
    for (Map<String, String> bad : List.of(
        Map.of("gcs.write-threshold-bytes", "-1"),
        Map.of("gcs.resumable-chunk-bytes", "0"),
        Map.of("gcs.max-attempts", "many"),
        Map.of("gcs.no-auth", "yes"),
        Map.of("gcs.endpoint", "127.0.0.1:4443"),
        Map.of("gcs.no-auth", "true", "gcs.oauth2-token", "t"))) {
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> GcsStoreOptions.parse(bad));
      assertTrue(bad.keySet().stream().anyMatch(e.getMessage()::contains), e.getMessage());
    }
  }

  @Test
  void unknownKeysAreIgnored() {
    assertEquals(6, GcsStoreOptions.parse(Map.of("s3.endpoint", "x", "gcs.nonsense", "y")).maxAttempts());
  }

  @Test
  void tokenNeverAppearsInToString() {
    String secret = "ya29.SECRET";
    GcsStoreOptions o = GcsStoreOptions.parse(Map.of("gcs.oauth2-token", secret));
    assertFalse(o.toString().contains(secret), o.toString());
    assertFalse(GcsStoreOptions.parse(Map.of("gcs.oauth2.token", secret)).toString().contains(secret));
    assertFalse(new GcsStoreOptions.StaticTokenCredentials(secret).toString().contains(secret));
  }

  @Test
  void uriRootsTheStore() {
    GcsObjectStoreProvider provider = new GcsObjectStoreProvider();
    try (ObjectStore s = provider.open(URI.create("gs://my-bucket/a/b/"), EMULATOR)) {
      assertEquals("gs://my-bucket/a/b", s.location());
      assertEquals("gs://my-bucket/a/b/k", s.locationOf("k"));
      assertEquals("GcsObjectStore[gs://my-bucket/a/b]", s.toString());
    }
    try (ObjectStore s = provider.open(URI.create("gs://my-bucket"), EMULATOR)) {
      assertEquals("gs://my-bucket", s.location());
    }
    for (String bad : List.of("gs:///x", "gs://B/x", "gs://ab/x", "gs://b-1/x//y", "gs://b-1/./y", "gs://b-1/x#f")) {
      assertThrows(InvalidArgumentException.class, () -> provider.open(URI.create(bad), EMULATOR), bad);
    }
  }

  @Test
  void registeredForTheGsScheme() {
    assertTrue(ObjectStores.defaultRegistry().schemes().contains("gs"));
    try (ObjectStore s = ObjectStores.defaultRegistry().open("GS://my-bucket/t", EMULATOR)) {
      assertTrue(s instanceof GcsObjectStore);
    }
  }

  @Test
  void startOffsetOfABoundWithANulStopsBeforeIt() {
    assertEquals("a/b", GcsObjectStore.startOffsetAfter("a/b"));
    assertEquals("a/b\u0001", GcsObjectStore.startOffsetAfter("a/b\u0000\u0000x"));
  }
}
