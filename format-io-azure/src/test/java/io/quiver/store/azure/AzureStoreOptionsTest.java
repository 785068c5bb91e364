package io.quiver.store.azure;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectStore;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/** URI and option parsing; no service is contacted. */
class AzureStoreOptionsTest {
  private static final String KEY = "c2VjcmV0LWtleS1ub3QtcmVhbGx5LWEta2V5LWJ1dC1iYXNlNjQ=";

  private static AzureStoreOptions config(String uri, Map<String, String> options) {
    return AzureStoreOptions.of(URI.create(uri), options);
  }

  @Test
  void azUriTakesTheAccountFromOptions() {
    AzureStoreOptions c = config("az://tables/a/b/", Map.of("azure.account-name", "acct", "azure.account-key", KEY));
    assertThat(c.container()).isEqualTo("tables");
    assertThat(c.rootPrefix()).isEqualTo("a/b/");
    assertThat(c.location()).isEqualTo("az://tables/a/b");
    assertThat(c.endpoint()).isEqualTo(Optional.of("https://acct.blob.core.windows.net"));
    assertThat(c.credentialKind()).isEqualTo("account key");
  }

  @Test
  void containerRootHasAnEmptyPrefix() {
    AzureStoreOptions c = config("az://tables", Map.of("azure.account-name", "acct"));
    assertThat(c.rootPrefix()).isEqualTo("");
    assertThat(c.location()).isEqualTo("az://tables");
    assertThat(config("az://tables/", Map.of("azure.account-name", "acct")).rootPrefix()).isEqualTo("");
  }

  @Test
  void abfssUriMapsToTheBlobEndpointOfItsAccount() {
    AzureStoreOptions c = config("abfss://data@myacct.dfs.core.windows.net/warehouse/t1", Map.of("azure.sas-token", "?sv=x&sig=y"));
    assertThat(c.container()).isEqualTo("data");
    assertThat(c.rootPrefix()).isEqualTo("warehouse/t1/");
    assertThat(c.accountName()).isEqualTo(Optional.of("myacct"));
    assertThat(c.endpoint()).isEqualTo(Optional.of("https://myacct.blob.core.windows.net"));
    assertThat(c.location()).isEqualTo("abfss://data@myacct.dfs.core.windows.net/warehouse/t1");
    assertThat(c.sasToken()).as("leading '?' dropped").isEqualTo(Optional.of("sv=x&sig=y"));
    assertThat(config("abfs://c@a.dfs.core.chinacloudapi.cn/p", Map.of()).endpoint()).isEqualTo(Optional.of("https://a.blob.core.chinacloudapi.cn"));
    assertThat(config("abfss://c@a/p", Map.of()).endpoint()).isEqualTo(Optional.of("https://a.blob.core.windows.net"));
  }

  @Test
  void endpointOptionWinsAndNamesTheEmulatorAccount() {
    AzureStoreOptions c = config("abfss://c@real.dfs.core.windows.net/p", Map.of("azure.endpoint", "http://127.0.0.1:10000/devstoreaccount1/"));
    assertThat(c.endpoint()).isEqualTo(Optional.of("http://127.0.0.1:10000/devstoreaccount1"));
    AzureStoreOptions emulator = config("az://c", Map.of("azure.endpoint", "http://127.0.0.1:10000/devstoreaccount1", "azure.account-key", KEY));
    assertThat(emulator.accountName()).isEqualTo(Optional.of("devstoreaccount1"));
  }

  @Test
  void connectionStringSuppliesTheEndpoint() {
    AzureStoreOptions c = config("az://c", Map.of("azure.connection-string", "AccountName=a;AccountKey=" + KEY));
    assertThat(c.endpoint()).isEqualTo(Optional.empty());
    assertThat(c.credentialKind()).isEqualTo("connection string");
  }

  @Test
  void transferAndRetryOptionsHaveDefaultsAndBounds() {
    AzureStoreOptions d = config("az://c", Map.of("azure.account-name", "a"));
    assertThat(d.blockSize()).isEqualTo(8 << 20);
    assertThat(d.maxSingleUpload()).isEqualTo(8 << 20);
    assertThat(d.maxConcurrency()).isEqualTo(4);
    assertThat(d.maxRetries()).isEqualTo(3);
    assertThat(d.tryTimeout()).isEqualTo(Optional.empty());
    AzureStoreOptions c = config("az://c", Map.of(
        "azure.account-name", "a", "azure.block-size-bytes", "1048576", "azure.max-single-upload-bytes", "0",
        "azure.max-concurrency", "16", "azure.max-retries", "0", "azure.try-timeout-ms", "5000",
        "azure.connect-timeout-ms", "100", "azure.unknown-option", "ignored", "s3.endpoint", "ignored"));
    assertThat(c.blockSize()).isEqualTo(1 << 20);
    assertThat(c.maxSingleUpload()).isEqualTo(0);
    assertThat(c.maxConcurrency()).isEqualTo(16);
    assertThat(c.maxRetries()).isEqualTo(0);
    assertThat(c.tryTimeout()).isEqualTo(Optional.of(Duration.ofSeconds(5)));
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofMillis(100));
    for (Map.Entry<String, String> bad : Map.of(
        "azure.block-size-bytes", "0", "azure.max-concurrency", "many", "azure.max-retries", "-1",
        "azure.max-single-upload-bytes", "99999999999").entrySet()) {
      InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> config("az://c", Map.of("azure.account-name", "a", bad.getKey(), bad.getValue()))).actual();
      assertThat(e.getMessage().contains(bad.getKey())).as(e.getMessage()).isTrue();
    }
  }

  @Test
  void badUrisSayWhatToWrite() {
    assertThatThrownBy(() -> config("az://c/p", Map.of())).isInstanceOf(InvalidArgumentException.class)
        .message().contains("azure.account-name");
    assertThatThrownBy(() -> config("abfss://c/p", Map.of())).isInstanceOf(InvalidArgumentException.class)
        .message().contains("container@account");
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> config("az://c/a/../b", Map.of("azure.account-name", "a")));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> config("az://c/a//b", Map.of("azure.account-name", "a")));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> config("az:///p", Map.of("azure.account-name", "a")));
    assertThatThrownBy(() -> config("az://c", Map.of("azure.account-key", KEY))).isInstanceOf(InvalidArgumentException.class)
        .message().contains("azure.account-name");
  }

  @Test
  void secretsNeverShowInToStringOrMessages() {
    String sas = "sv=2025-01-01&sig=SECRETSIGNATURE";
    String connection = "AccountName=a;AccountKey=" + KEY + ";BlobEndpoint=https://a.blob.core.windows.net";
    for (Map<String, String> options : java.util.List.of(
        Map.of("azure.account-name", "a", "azure.account-key", KEY),
        Map.of("azure.account-name", "a", "azure.sas-token", sas),
        Map.of("azure.connection-string", connection),
        Map.of("azure.endpoint", "https://a.blob.core.windows.net?" + sas))) {
      String text = config("az://c/p", options).toString();
      assertThat(text.contains(KEY) || text.contains("SECRETSIGNATURE")).as(text).isFalse();
      try (ObjectStore store = new AzureObjectStoreProvider().open(URI.create("az://c/p"), options)) {
        assertThat(store.toString().contains(KEY) || store.toString().contains("SECRETSIGNATURE")).as(store.toString()).isFalse();
        assertThat(store.location()).isEqualTo("az://c/p");
      }
    }
    InvalidArgumentException bad = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new AzureObjectStoreProvider().open(URI.create("az://c/p"), Map.of("azure.connection-string", "AccountKey=" + KEY + ";nonsense"))).actual();
    assertThat(bad.getMessage().contains(KEY)).as(bad.getMessage()).isFalse();
    assertThat(bad.getMessage().contains("az://c/p")).as(bad.getMessage()).isTrue();
  }

  @Test
  void withoutCredentialsOpeningFailsUnlessAzureIdentityIsPresent() {
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new AzureObjectStoreProvider().open(URI.create("az://c/p"), Map.of("azure.account-name", "a"))).actual();
    assertThat(e.getMessage().contains("azure-identity") && e.getMessage().contains("azure.sas-token")).as(e.getMessage()).isTrue();
  }
}
