package io.quiver.store.azure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectStore;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
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
    assertEquals("tables", c.container());
    assertEquals("a/b/", c.rootPrefix());
    assertEquals("az://tables/a/b", c.location());
    assertEquals(Optional.of("https://acct.blob.core.windows.net"), c.endpoint());
    assertEquals("account key", c.credentialKind());
  }

  @Test
  void containerRootHasAnEmptyPrefix() {
    AzureStoreOptions c = config("az://tables", Map.of("azure.account-name", "acct"));
    assertEquals("", c.rootPrefix());
    assertEquals("az://tables", c.location());
    assertEquals("", config("az://tables/", Map.of("azure.account-name", "acct")).rootPrefix());
  }

  @Test
  void abfssUriMapsToTheBlobEndpointOfItsAccount() {
    AzureStoreOptions c = config("abfss://data@myacct.dfs.core.windows.net/warehouse/t1", Map.of("azure.sas-token", "?sv=x&sig=y"));
    assertEquals("data", c.container());
    assertEquals("warehouse/t1/", c.rootPrefix());
    assertEquals(Optional.of("myacct"), c.accountName());
    assertEquals(Optional.of("https://myacct.blob.core.windows.net"), c.endpoint());
    assertEquals("abfss://data@myacct.dfs.core.windows.net/warehouse/t1", c.location());
    assertEquals(Optional.of("sv=x&sig=y"), c.sasToken(), "leading '?' dropped");
    assertEquals(
        Optional.of("https://a.blob.core.chinacloudapi.cn"),
        config("abfs://c@a.dfs.core.chinacloudapi.cn/p", Map.of()).endpoint());
    assertEquals(Optional.of("https://a.blob.core.windows.net"), config("abfss://c@a/p", Map.of()).endpoint());
  }

  @Test
  void endpointOptionWinsAndNamesTheEmulatorAccount() {
    AzureStoreOptions c = config("abfss://c@real.dfs.core.windows.net/p", Map.of("azure.endpoint", "http://127.0.0.1:10000/devstoreaccount1/"));
    assertEquals(Optional.of("http://127.0.0.1:10000/devstoreaccount1"), c.endpoint());
    AzureStoreOptions emulator = config("az://c", Map.of("azure.endpoint", "http://127.0.0.1:10000/devstoreaccount1", "azure.account-key", KEY));
    assertEquals(Optional.of("devstoreaccount1"), emulator.accountName());
  }

  @Test
  void connectionStringSuppliesTheEndpoint() {
    AzureStoreOptions c = config("az://c", Map.of("azure.connection-string", "AccountName=a;AccountKey=" + KEY));
    assertEquals(Optional.empty(), c.endpoint());
    assertEquals("connection string", c.credentialKind());
  }

  @Test
  void transferAndRetryOptionsHaveDefaultsAndBounds() {
    AzureStoreOptions d = config("az://c", Map.of("azure.account-name", "a"));
    assertEquals(8 << 20, d.blockSize());
    assertEquals(8 << 20, d.maxSingleUpload());
    assertEquals(4, d.maxConcurrency());
    assertEquals(3, d.maxRetries());
    assertEquals(Optional.empty(), d.tryTimeout());
    AzureStoreOptions c = config("az://c", Map.of(
        "azure.account-name", "a", "azure.block-size-bytes", "1048576", "azure.max-single-upload-bytes", "0",
        "azure.max-concurrency", "16", "azure.max-retries", "0", "azure.try-timeout-ms", "5000",
        "azure.connect-timeout-ms", "100", "azure.unknown-option", "ignored", "s3.endpoint", "ignored"));
    assertEquals(1 << 20, c.blockSize());
    assertEquals(0, c.maxSingleUpload());
    assertEquals(16, c.maxConcurrency());
    assertEquals(0, c.maxRetries());
    assertEquals(Optional.of(Duration.ofSeconds(5)), c.tryTimeout());
    assertEquals(Duration.ofMillis(100), c.connectTimeout());
    for (Map.Entry<String, String> bad : Map.of(
        "azure.block-size-bytes", "0", "azure.max-concurrency", "many", "azure.max-retries", "-1",
        "azure.max-single-upload-bytes", "99999999999").entrySet()) {
      InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
          () -> config("az://c", Map.of("azure.account-name", "a", bad.getKey(), bad.getValue())));
      assertTrue(e.getMessage().contains(bad.getKey()), e.getMessage());
    }
  }

  @Test
  void badUrisSayWhatToWrite() {
    assertTrue(assertThrows(InvalidArgumentException.class, () -> config("az://c/p", Map.of()))
        .getMessage().contains("azure.account-name"));
    assertTrue(assertThrows(InvalidArgumentException.class, () -> config("abfss://c/p", Map.of()))
        .getMessage().contains("container@account"));
    assertThrows(InvalidArgumentException.class, () -> config("az://c/a/../b", Map.of("azure.account-name", "a")));
    assertThrows(InvalidArgumentException.class, () -> config("az://c/a//b", Map.of("azure.account-name", "a")));
    assertThrows(InvalidArgumentException.class, () -> config("az:///p", Map.of("azure.account-name", "a")));
    assertTrue(assertThrows(InvalidArgumentException.class, () -> config("az://c", Map.of("azure.account-key", KEY)))
        .getMessage().contains("azure.account-name"));
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
      assertFalse(text.contains(KEY) || text.contains("SECRETSIGNATURE"), text);
      try (ObjectStore store = new AzureObjectStoreProvider().open(URI.create("az://c/p"), options)) {
        assertFalse(store.toString().contains(KEY) || store.toString().contains("SECRETSIGNATURE"), store.toString());
        assertEquals("az://c/p", store.location());
      }
    }
    InvalidArgumentException bad = assertThrows(InvalidArgumentException.class,
        () -> new AzureObjectStoreProvider().open(URI.create("az://c/p"), Map.of("azure.connection-string", "AccountKey=" + KEY + ";nonsense")));
    assertFalse(bad.getMessage().contains(KEY), bad.getMessage());
    assertTrue(bad.getMessage().contains("az://c/p"), bad.getMessage());
  }

  @Test
  void withoutCredentialsOpeningFailsUnlessAzureIdentityIsPresent() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
        () -> new AzureObjectStoreProvider().open(URI.create("az://c/p"), Map.of("azure.account-name", "a")));
    assertTrue(e.getMessage().contains("azure-identity") && e.getMessage().contains("azure.sas-token"), e.getMessage());
  }
}
