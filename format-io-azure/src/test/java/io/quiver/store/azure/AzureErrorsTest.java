package io.quiver.store.azure;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.StoreUnreachableException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class AzureErrorsTest {
  @Test
  void aConnectionNeverOpenedIsUnreachableAndTransient() {
    RuntimeException sdk = new RuntimeException("request failed", new ConnectException("Connection refused"));
    StoreException e = AzureErrors.failure("list", "az://a/c/t/_versions/", sdk, true);
    assertThat(e).isInstanceOf(StoreUnreachableException.class);
    assertThat(e.isTransient()).as("nothing was sent").isTrue();
    assertThat(e.getMessage()).contains("could not list az://a/c/t/_versions/")
        .contains("could not connect (ConnectException: Connection refused)").contains("azure.endpoint");
  }

  @Test
  void aTimeoutAfterConnectingIsNotUnreachable() {
    RuntimeException sdk = new UncheckedIOException(new SocketTimeoutException("Read timed out"));
    StoreException e = AzureErrors.failure("write", "az://a/c/t/k", sdk, true);
    assertThat(e).isNotInstanceOf(StoreUnreachableException.class);
    assertThat(e.isTransient()).as("a mutating call may have taken effect").isFalse();
  }
}
