package io.quiver.store.azure;

import com.azure.core.credential.AzureSasCredential;
import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.util.HttpClientOptions;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreProvider;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Opens Azure Blob Storage stores: {@code az://container/optional/prefix} (account from the options) and
 * {@code abfs[s]://container@account.dfs.core.windows.net/optional/prefix} (served through the Blob API
 * of the same account). See {@link AzureStoreOptions} and {@code docs/storage.md} (Azure) for the options.
 *
 * <p>Credentials, first match wins: {@code azure.connection-string}; {@code azure.account-key} (with the
 * account name); {@code azure.sas-token}; otherwise {@code DefaultAzureCredential} when
 * {@code com.azure:azure-identity} is on the classpath (it is not a dependency of this module); otherwise
 * opening fails and says which options to set.
 */
public final class AzureObjectStoreProvider implements ObjectStoreProvider {
  private static final String DEFAULT_CREDENTIAL_BUILDER = "com.azure.identity.DefaultAzureCredentialBuilder";

  /** One HTTP client (connection pool) per timeout setting, shared by every store of this provider. */
  private final Map<Timeouts, HttpClient> httpClients = new ConcurrentHashMap<>();

  private record Timeouts(Duration connect, Duration response, Duration read) {}

  @Override
  public Set<String> schemes() {
    return Set.of("az", "abfs", "abfss");
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    return open(uri, options, builder -> {});
  }

  /**
   * Opens a store like {@link #open(URI, Map)}, letting {@code customizer} adjust the SDK client after the
   * options are applied: add pipeline policies, a {@code TokenCredential} object, a proxy or another HTTP
   * client. Whatever it sets wins over the options.
   */
  public ObjectStore open(URI uri, Map<String, String> options, Consumer<BlobServiceClientBuilder> customizer) {
    AzureStoreOptions config = AzureStoreOptions.of(uri, options);
    BlobServiceClient service = serviceClient(config, config.maxRetries() + 1, customizer);
    // Conditional creates go out once per send: a resend decided by the SDK could answer "exists" to our own
    // blob. ConditionalPut resends instead, and settles doubt by the token in the blob's metadata.
    BlobServiceClient once = serviceClient(config, 1, customizer);
    return new AzureObjectStore(config, service.getBlobContainerClient(config.container()),
        once.getBlobContainerClient(config.container()));
  }

  private BlobServiceClient serviceClient(AzureStoreOptions config, int tries,
      Consumer<BlobServiceClientBuilder> customizer) {
    HttpClient http =
        httpClients.computeIfAbsent(
            new Timeouts(config.connectTimeout(), config.responseTimeout(), config.readTimeout()),
            t ->
                HttpClient.createDefault(
                    new HttpClientOptions()
                        .setConnectTimeout(t.connect())
                        .setResponseTimeout(t.response())
                        .setReadTimeout(t.read())
                        .setWriteTimeout(t.read())));
    BlobServiceClientBuilder builder =
        new BlobServiceClientBuilder()
            .httpClient(http)
            .addPolicy(new AzureObjectStore.SendCounter())
            .retryOptions(
                new RequestRetryOptions(
                    RetryPolicyType.EXPONENTIAL,
                    tries,
                    config.tryTimeout().orElse(null),
                    config.retryDelay(),
                    config.maxRetryDelay(),
                    null));
    try {
      if (config.connectionString().isPresent()) {
        builder.connectionString(config.connectionString().get());
      } else if (config.accountKey().isPresent()) {
        builder.credential(new StorageSharedKeyCredential(config.accountName().orElseThrow(), config.accountKey().get()));
      } else if (config.sasToken().isPresent()) {
        builder.credential(new AzureSasCredential(config.sasToken().get()));
      } else {
        builder.credential(defaultAzureCredential(config));
      }
      config.endpoint().ifPresent(builder::endpoint);
      customizer.accept(builder);
      return builder.buildClient();
    } catch (IllegalArgumentException | IllegalStateException e) {
      // The SDK's messages name the malformed part (never the secret); keep them, not the cause chain.
      throw new InvalidArgumentException(
          "cannot open " + config.location() + " with a " + config.credentialKind() + ": "
              + redact(e.getMessage(), config) + "; check the azure.* options");
    }
  }

  /** {@code DefaultAzureCredential}, loaded reflectively so that azure-identity stays optional. */
  private static TokenCredential defaultAzureCredential(AzureStoreOptions config) {
    try {
      Class<?> builderClass = Class.forName(DEFAULT_CREDENTIAL_BUILDER);
      Object builder = builderClass.getConstructor().newInstance();
      return (TokenCredential) builderClass.getMethod("build").invoke(builder);
    } catch (ClassNotFoundException e) {
      throw new InvalidArgumentException(
          "no credentials for " + config.location() + ": set " + AzureStoreOptions.CONNECTION_STRING + ", "
              + AzureStoreOptions.ACCOUNT_KEY + " (with " + AzureStoreOptions.ACCOUNT_NAME + ") or "
              + AzureStoreOptions.SAS_TOKEN + ", or add com.azure:azure-identity to the classpath to use"
              + " DefaultAzureCredential (managed identity, environment, Azure CLI)");
    } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
      throw new InvalidArgumentException(
          "could not create DefaultAzureCredential for " + config.location() + " (" + e + "); set "
              + AzureStoreOptions.ACCOUNT_KEY + " or " + AzureStoreOptions.SAS_TOKEN + " instead");
    }
  }

  private static String redact(String message, AzureStoreOptions config) {
    String m = String.valueOf(message);
    for (String secret : new String[] {
        config.accountKey().orElse(null), config.sasToken().orElse(null), config.connectionString().orElse(null)}) {
      if (secret != null && !secret.isEmpty()) {
        m = m.replace(secret, "***");
      }
    }
    return m;
  }
}
