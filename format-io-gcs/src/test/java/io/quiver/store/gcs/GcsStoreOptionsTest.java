package io.quiver.store.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
    assertThat(o.writeThreshold()).isEqualTo(8 << 20);
    assertThat(o.resumableChunk()).isEqualTo(8 << 20);
    assertThat(o.maxAttempts()).isEqualTo(6);
  }

  @Test
  void chunkSizeRoundsUpTo256KiB() {
    assertThat(GcsStoreOptions.parse(Map.of("gcs.resumable-chunk-bytes", "1")).resumableChunk()).isEqualTo(256 * 1024);
    assertThat(GcsStoreOptions.parse(Map.of("gcs.resumable-chunk-bytes", "300000")).resumableChunk()).isEqualTo(512 * 1024);
    assertThat(GcsStoreOptions.parse(Map.of("gcs.resumable-chunk-bytes", "1048576")).resumableChunk()).isEqualTo(1 << 20);
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
      InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> GcsStoreOptions.parse(bad)).actual();
      assertThat(bad.keySet().stream().anyMatch(e.getMessage()::contains)).as(e.getMessage()).isTrue();
    }
  }

  @Test
  void unknownKeysAreIgnored() {
    assertThat(GcsStoreOptions.parse(Map.of("s3.endpoint", "x", "gcs.nonsense", "y")).maxAttempts()).isEqualTo(6);
  }

  @Test
  void tokenNeverAppearsInToString() {
    String secret = "ya29.SECRET";
    GcsStoreOptions o = GcsStoreOptions.parse(Map.of("gcs.oauth2-token", secret));
    assertThat(o.toString().contains(secret)).as(o.toString()).isFalse();
    assertThat(GcsStoreOptions.parse(Map.of("gcs.oauth2.token", secret)).toString().contains(secret)).isFalse();
    assertThat(new GcsStoreOptions.StaticTokenCredentials(secret).toString().contains(secret)).isFalse();
  }

  @Test
  void uriRootsTheStore() {
    GcsObjectStoreProvider provider = new GcsObjectStoreProvider();
    try (ObjectStore s = provider.open(URI.create("gs://my-bucket/a/b/"), EMULATOR)) {
      assertThat(s.location()).isEqualTo("gs://my-bucket/a/b");
      assertThat(s.locationOf("k")).isEqualTo("gs://my-bucket/a/b/k");
      assertThat(s.toString()).isEqualTo("GcsObjectStore[gs://my-bucket/a/b]");
    }
    try (ObjectStore s = provider.open(URI.create("gs://my-bucket"), EMULATOR)) {
      assertThat(s.location()).isEqualTo("gs://my-bucket");
    }
    for (String bad : List.of("gs:///x", "gs://B/x", "gs://ab/x", "gs://b-1/x//y", "gs://b-1/./y", "gs://b-1/x#f")) {
      assertThatExceptionOfType(InvalidArgumentException.class).as(bad).isThrownBy(() -> provider.open(URI.create(bad), EMULATOR));
    }
  }

  @Test
  void registeredForTheGsScheme() {
    assertThat(ObjectStores.defaultRegistry().schemes().contains("gs")).isTrue();
    try (ObjectStore s = ObjectStores.defaultRegistry().open("GS://my-bucket/t", EMULATOR)) {
      assertThat(s).isInstanceOf(GcsObjectStore.class);
    }
  }

  @Test
  void startOffsetOfABoundWithANulStopsBeforeIt() {
    assertThat(GcsObjectStore.startOffsetAfter("a/b")).isEqualTo("a/b");
    assertThat(GcsObjectStore.startOffsetAfter("a/b\u0000\u0000x")).isEqualTo("a/b\u0001");
  }
}
