package io.quiver.store.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.StorageException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.StoreUnreachableException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How GCS failures map onto typed store exceptions (no server needed: the mapping is local). */
class GcsErrorsTest {
  private static GcsObjectStore store() {
    return new GcsObjectStore("my-bucket", "t",
        GcsOptions.parse(Map.of("gcs.endpoint", "http://127.0.0.1:9", "gcs.no-auth", "true", "gcs.project-id", "p")));
  }

  @Test
  void notFoundIsTheObjectOnReadsAndTheBucketOtherwise() {
    try (GcsObjectStore s = store()) {
      assertThat(s.failure("read", "k", new StorageException(404, "Not Found"), true, true))
          .isInstanceOf(ObjectNotFoundException.class);
      RuntimeException bucket = s.failure("list", "_versions/", new StorageException(404, "Not Found"), true, false);
      assertThat(bucket).isInstanceOf(StoreNotFoundException.class)
          .hasMessageContaining("check that bucket my-bucket exists");
    }
  }

  @Test
  void deniedAndUnreachableAreTyped() {
    try (GcsObjectStore s = store()) {
      assertThat(s.failure("list", "_versions/", new StorageException(403, "Forbidden"), true, false))
          .isInstanceOf(StoreAccessDeniedException.class);
      StorageException refused = new StorageException(new IOException("failed", new ConnectException("Connection refused")));
      RuntimeException e = s.failure("list", "_versions/", refused, true, false);
      assertThat(e).isInstanceOf(StoreUnreachableException.class).hasMessageContaining("could not connect")
          .hasMessageContaining("gcs.endpoint");
    }
  }
}
