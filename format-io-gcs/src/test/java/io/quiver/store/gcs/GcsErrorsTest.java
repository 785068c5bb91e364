package io.quiver.store.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.StorageException;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.StoreUnreachableException;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

/** How GCS failures map onto typed store exceptions (no server needed: the mapping is local). */
class GcsErrorsTest {
  private static QuiverException map(Call call, String action, String key, Throwable e, boolean notFoundIsObject) {
    return GcsErrors.map(call, action, "gs://my-bucket/t", "my-bucket", key, e, notFoundIsObject);
  }

  @Test
  void notFoundIsTheObjectOnReadsAndTheBucketOtherwise() {
    assertThat(map(Call.READ, "read", "k", new StorageException(404, "Not Found"), true))
        .isInstanceOf(ObjectNotFoundException.class);
    QuiverException bucket = map(Call.READ, "list", "_versions/", new StorageException(404, "Not Found"), false);
    assertThat(bucket).isInstanceOf(StoreNotFoundException.class)
        .hasMessageContaining("check that bucket my-bucket exists");
  }

  @Test
  void deniedAndUnreachableAreTyped() {
    assertThat(map(Call.READ, "list", "_versions/", new StorageException(403, "Forbidden"), false))
        .isInstanceOf(StoreAccessDeniedException.class).hasMessageContaining("gcs.credentials-file");
    StorageException refused = new StorageException(new IOException("failed", new ConnectException("Connection refused")));
    QuiverException e = map(Call.CREATE, "create (if absent)", "_versions/x", refused, false);
    assertThat(e).isInstanceOf(StoreUnreachableException.class).hasMessageContaining("could not connect")
        .hasMessageContaining("gcs.endpoint");
    assertThat(((StoreException) e).isTransient()).as("nothing was sent").isTrue();
  }

  @Test
  void transienceFollowsTheCall() {
    StorageException timeout = new StorageException(new IOException("x", new SocketTimeoutException("Read timed out")));
    assertThat(GcsErrors.classify(timeout, false)).isEqualTo(Failure.TRANSIENT);
    assertThat(((StoreException) map(Call.READ, "read", "k", timeout, true)).isTransient()).isTrue();
    assertThat(((StoreException) map(Call.WRITE, "write", "k", timeout, true)).isTransient()).isTrue();
    assertThat(map(Call.CREATE, "create (if absent)", "k", timeout, false))
        .isInstanceOf(CommitStateUnknownException.class).hasMessageContaining("timed out");
    StorageException throttled = new StorageException(429, "rate limit");
    assertThat(((StoreException) map(Call.CREATE, "create (if absent)", "k", throttled, false)).isTransient())
        .as("429: GCS did not act").isTrue();
    assertThat(((StoreException) map(Call.READ, "read", "k", new StorageException(400, "bad"), true)).isTransient())
        .isFalse();
    assertThat(GcsErrors.status(new RuntimeException("no status"))).isEqualTo(-1);
  }
}
