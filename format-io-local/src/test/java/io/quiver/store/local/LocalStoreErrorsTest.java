package io.quiver.store.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Permission problems are typed, so callers (and the command line) can tell them from other I/O failures. */
class LocalStoreErrorsTest {
  @Test
  void permissionDeniedIsAccessDenied() {
    Path p = Path.of("/data/t/_versions/x.manifest");
    StoreException e = LocalObjectStore.failure("read", p, new AccessDeniedException(p.toString()));
    assertThat(e).isInstanceOf(StoreAccessDeniedException.class);
    assertThat(e.isTransient()).isFalse();
    assertThat(e.getMessage()).contains("could not read " + p).contains("permission denied")
        .contains("check the permissions");
  }

  @Test
  void otherFailuresStayPlainStoreExceptions() {
    Path p = Path.of("/data/t/x");
    StoreException e = LocalObjectStore.failure("write", p, new IOException("No space left on device"));
    assertThat(e).isExactlyInstanceOf(StoreException.class);
    assertThat(e.getMessage()).contains("could not write " + p).contains("No space left on device");
  }
}
