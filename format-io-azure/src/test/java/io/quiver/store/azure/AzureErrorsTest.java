package io.quiver.store.azure;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.StoreUnreachableException;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class AzureErrorsTest {
  @Test
  void aConnectionNeverOpenedIsUnreachableAndTransient() {
    RuntimeException sdk = new RuntimeException("request failed", new ConnectException("Connection refused"));
    StoreException e = AzureErrors.failure(Call.READ, "list", "az://a/c/t", "_versions/", sdk);
    assertThat(e).isInstanceOf(StoreUnreachableException.class);
    assertThat(e.isTransient()).as("nothing was sent").isTrue();
    assertThat(e.getMessage()).contains("could not list az://a/c/t/_versions/")
        .contains("could not connect (ConnectException: Connection refused)").contains("azure.endpoint");
  }

  @Test
  void aTimeoutAfterConnectingIsNotUnreachable() {
    RuntimeException sdk = new UncheckedIOException(new SocketTimeoutException("Read timed out"));
    assertThat(AzureErrors.classify(sdk)).isEqualTo(Failure.TRANSIENT);
    StoreException write = AzureErrors.failure(Call.WRITE, "write", "az://a/c/t", "k", sdk);
    assertThat(write).isNotInstanceOf(StoreUnreachableException.class);
    assertThat(write.isTransient()).as("repeating an unconditional write is harmless").isTrue();
    StoreException create = AzureErrors.failure(Call.CREATE, "create", "az://a/c/t", "k", sdk);
    assertThat(create).as("a conditional create may have taken effect").isInstanceOf(CommitStateUnknownException.class);
    assertThat(create.isTransient()).isFalse();
  }
}
