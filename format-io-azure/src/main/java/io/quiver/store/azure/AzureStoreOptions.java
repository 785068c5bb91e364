package io.quiver.store.azure;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.support.StoreOptions;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The settings of an {@link AzureObjectStore}: what {@link AzureObjectStoreProvider} reads from a URI and an
 * option map: where the container is, how
 * to authenticate, and the transfer and retry settings. Secrets are kept here only to hand them to the
 * SDK; {@link #toString()} never shows them.
 *
 * <p>Options (unknown keys are ignored):
 *
 * <ul>
 *   <li>{@value #CONNECTION_STRING}: a storage connection string (account key or SAS, and endpoints)
 *   <li>{@value #ACCOUNT_NAME}: the storage account, for {@code az://} URIs
 *   <li>{@value #ACCOUNT_KEY}: the account's shared key
 *   <li>{@value #SAS_TOKEN}: a shared access signature (with or without the leading {@code ?})
 *   <li>{@value #ENDPOINT}: the blob service endpoint, e.g. {@code http://127.0.0.1:10000/devstoreaccount1};
 *       a SAS in its query is used as {@value #SAS_TOKEN}
 *   <li>{@value #BLOCK_SIZE}: bytes per staged block (default 8 MiB)
 *   <li>{@value #MAX_SINGLE_UPLOAD}: largest object sent as one Put Blob (default 8 MiB)
 *   <li>{@value #MAX_CONCURRENCY}: blocks of one upload staged in parallel, and parallel batch deletes (4)
 *   <li>{@value #READ_PARALLELISM}: ranged downloads of one {@code readRanges} in flight at once, per store
 *       (a bounded pool shared by all callers; default 16)
 *   <li>{@value #MAX_RETRIES}, {@value #RETRY_DELAY_MS}, {@value #MAX_RETRY_DELAY_MS}, {@value
 *       #TRY_TIMEOUT_MS}: the SDK's exponential retry policy
 *   <li>{@value #CONNECT_TIMEOUT_MS}, {@value #RESPONSE_TIMEOUT_MS}, {@value #READ_TIMEOUT_MS}: HTTP
 * </ul>
 */
public final class AzureStoreOptions {
  public static final String CONNECTION_STRING = "azure.connection-string";
  public static final String ACCOUNT_NAME = "azure.account-name";
  public static final String ACCOUNT_KEY = "azure.account-key";
  public static final String SAS_TOKEN = "azure.sas-token";
  public static final String ENDPOINT = "azure.endpoint";
  public static final String BLOCK_SIZE = "azure.block-size-bytes";
  public static final String MAX_SINGLE_UPLOAD = "azure.max-single-upload-bytes";
  public static final String MAX_CONCURRENCY = "azure.max-concurrency";
  public static final String READ_PARALLELISM = "azure.read-parallelism";
  public static final String MAX_RETRIES = "azure.max-retries";
  public static final String RETRY_DELAY_MS = "azure.retry-delay-ms";
  public static final String MAX_RETRY_DELAY_MS = "azure.max-retry-delay-ms";
  public static final String TRY_TIMEOUT_MS = "azure.try-timeout-ms";
  public static final String CONNECT_TIMEOUT_MS = "azure.connect-timeout-ms";
  public static final String RESPONSE_TIMEOUT_MS = "azure.response-timeout-ms";
  public static final String READ_TIMEOUT_MS = "azure.read-timeout-ms";

  static final long MIB = 1024L * 1024L;
  /** Service limits: a staged block is at most 4000 MiB, a single Put Blob at most 5000 MiB. */
  static final long MAX_BLOCK_SIZE = 4000 * MIB;
  static final long MAX_PUT_BLOB_SIZE = 5000 * MIB;

  private final String scheme;
  /** How the store names itself in messages: the URI without credentials or trailing slash. */
  private final String location;
  private final String container;
  /** Blob-name prefix of the store's root: empty, or ending in '/'. */
  private final String rootPrefix;
  /** Endpoint derived from the URI or given, or empty when the connection string supplies it. */
  private final Optional<String> endpoint;
  private final Optional<String> accountName;
  private final Optional<String> accountKey;
  private final Optional<String> sasToken;
  private final Optional<String> connectionString;
  private final int blockSize;
  private final int maxSingleUpload;
  private final int maxConcurrency;
  private final int readParallelism;
  private final int maxRetries;
  private final Duration retryDelay;
  private final Duration maxRetryDelay;
  private final Optional<Duration> tryTimeout;
  private final Duration connectTimeout;
  private final Duration responseTimeout;
  private final Duration readTimeout;

  private AzureStoreOptions(URI uri, StoreOptions options) {
    scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    String authority = uri.getRawAuthority();
    if (uri.isOpaque() || authority == null || authority.isEmpty()) {
      throw new InvalidArgumentException(
          "Azure store URI '" + uri + "' names no container; use az://container/optional/prefix or"
              + " abfss://container@account.dfs.core.windows.net/optional/prefix");
    }
    String accountFromUri = null;
    String hostSuffix = null;
    int at = authority.indexOf('@');
    if (at >= 0) {
      container = authority.substring(0, at);
      String host = authority.substring(at + 1).toLowerCase(Locale.ROOT);
      int dot = host.indexOf('.');
      accountFromUri = dot < 0 ? host : host.substring(0, dot);
      hostSuffix = dot < 0 ? "blob.core.windows.net" : host.substring(dot + 1);
      if (hostSuffix.startsWith("dfs.")) {
        // ADLS Gen2's DFS endpoint; the same account serves the Blob API on blob.<suffix>.
        hostSuffix = "blob." + hostSuffix.substring("dfs.".length());
      }
    } else {
      container = authority;
      if (!scheme.equals("az")) {
        throw new InvalidArgumentException(
            "Azure store URI '" + uri + "' names no account; use " + scheme
                + "://container@account.dfs.core.windows.net/optional/prefix");
      }
    }
    if (container.isEmpty()) {
      throw new InvalidArgumentException("Azure store URI '" + uri + "' names no container");
    }
    String path = uri.getPath() == null ? "" : uri.getPath();
    String trimmed = path.replaceAll("^/+", "").replaceAll("/+$", "");
    if (!trimmed.isEmpty()) {
      for (String segment : trimmed.split("/", -1)) {
        if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
          throw new InvalidArgumentException(
              "Azure store URI '" + uri + "' has an empty, '.' or '..' path segment; give a plain prefix");
        }
      }
    }
    rootPrefix = trimmed.isEmpty() ? "" : trimmed + "/";
    location = scheme + "://" + authority + (trimmed.isEmpty() ? "" : "/" + trimmed);

    connectionString = options.string(CONNECTION_STRING);
    accountKey = options.string(ACCOUNT_KEY);
    Optional<String> rawEndpoint = options.string(ENDPOINT);
    // An endpoint URL may carry a SAS as its query: take it apart so the secret is kept with the others.
    Optional<String> endpointSas = rawEndpoint.filter(e -> e.indexOf('?') >= 0).map(e -> e.substring(e.indexOf('?') + 1)).filter(q -> !q.isEmpty());
    sasToken = options.string(SAS_TOKEN).map(s -> s.startsWith("?") ? s.substring(1) : s).or(() -> endpointSas);
    Optional<String> givenEndpoint = rawEndpoint.map(AzureStoreOptions::withoutQuery).map(e -> e.replaceAll("/+$", ""));
    Optional<String> account = options.string(ACCOUNT_NAME);
    if (account.isEmpty() && accountFromUri != null) {
      account = Optional.of(accountFromUri);
    }
    if (account.isEmpty() && givenEndpoint.isPresent()) {
      account = accountOfEmulatorEndpoint(givenEndpoint.get());
    }
    accountName = account;
    if (givenEndpoint.isPresent()) {
      endpoint = givenEndpoint;
    } else if (accountFromUri != null) {
      endpoint = Optional.of("https://" + accountFromUri + "." + hostSuffix);
    } else if (connectionString.isPresent()) {
      endpoint = Optional.empty();
    } else if (account.isPresent()) {
      endpoint = Optional.of("https://" + account.get() + ".blob.core.windows.net");
    } else {
      throw new InvalidArgumentException(
          "cannot tell which storage account " + location + " is in; set " + ACCOUNT_NAME + " (or "
              + ENDPOINT + ", or " + CONNECTION_STRING + "), or use an abfss://container@account.dfs.core.windows.net URI");
    }
    if (accountKey.isPresent() && accountName.isEmpty()) {
      throw new InvalidArgumentException(
          ACCOUNT_KEY + " is set but the account name is unknown for " + location + "; set " + ACCOUNT_NAME);
    }

    blockSize = options.integer(BLOCK_SIZE, (int) (8 * MIB), 1, (int) Math.min(MAX_BLOCK_SIZE, Integer.MAX_VALUE - 8));
    maxSingleUpload =
        options.integer(MAX_SINGLE_UPLOAD, (int) (8 * MIB), 0, (int) Math.min(MAX_PUT_BLOB_SIZE, Integer.MAX_VALUE - 8));
    maxConcurrency = options.integer(MAX_CONCURRENCY, 4, 1, 256);
    readParallelism = options.integer(READ_PARALLELISM, 16, 1, 256);
    maxRetries = options.integer(MAX_RETRIES, 3, 0, 100);
    retryDelay = options.millis(RETRY_DELAY_MS, 200, 1, Long.MAX_VALUE / 2);
    maxRetryDelay = options.millis(MAX_RETRY_DELAY_MS, 10_000, 1, Long.MAX_VALUE / 2);
    if (maxRetryDelay.compareTo(retryDelay) < 0) {
      throw StoreOptions.invalid(MAX_RETRY_DELAY_MS, "at least " + RETRY_DELAY_MS + " (" + retryDelay.toMillis() + ")",
          Long.toString(maxRetryDelay.toMillis()));
    }
    tryTimeout = options.optionalMillis(TRY_TIMEOUT_MS, 1, Long.MAX_VALUE / 2);
    connectTimeout = options.millis(CONNECT_TIMEOUT_MS, 10_000, 1, Long.MAX_VALUE / 2);
    responseTimeout = options.millis(RESPONSE_TIMEOUT_MS, 60_000, 1, Long.MAX_VALUE / 2);
    readTimeout = options.millis(READ_TIMEOUT_MS, 60_000, 1, Long.MAX_VALUE / 2);
  }

  /** Reads the container, root and account from {@code uri} and the {@code azure.*} keys of {@code options}. */
  public static AzureStoreOptions of(URI uri, Map<String, String> options) {
    return new AzureStoreOptions(uri, StoreOptions.of(options));
  }

  /** How the store names itself in messages: the URI without credentials or trailing slash. */
  public String location() {
    return location;
  }

  public String container() {
    return container;
  }

  /** Blob-name prefix of the store's root: empty, or ending in '/'. */
  public String rootPrefix() {
    return rootPrefix;
  }

  /** Endpoint derived from the URI or given, or empty when the connection string supplies it. */
  public Optional<String> endpoint() {
    return endpoint;
  }

  public Optional<String> accountName() {
    return accountName;
  }

  /** Bytes per staged block. */
  public int blockSize() {
    return blockSize;
  }

  /** The largest object sent as one Put Blob. */
  public int maxSingleUpload() {
    return maxSingleUpload;
  }

  /** Blocks of one upload staged at once; deletes in parallel when a batch is refused. */
  /** Ranged downloads of {@code readRanges} in flight at once per store. */
  public int readParallelism() {
    return readParallelism;
  }

  public int maxConcurrency() {
    return maxConcurrency;
  }

  /** The SDK's retries after the first try (and the conditional put's sends: at least 3, 1 + this). */
  public int maxRetries() {
    return maxRetries;
  }

  public Duration retryDelay() {
    return retryDelay;
  }

  public Duration maxRetryDelay() {
    return maxRetryDelay;
  }

  public Optional<Duration> tryTimeout() {
    return tryTimeout;
  }

  public Duration connectTimeout() {
    return connectTimeout;
  }

  public Duration responseTimeout() {
    return responseTimeout;
  }

  public Duration readTimeout() {
    return readTimeout;
  }

  /** The account of an IP-style (emulator) endpoint such as {@code http://127.0.0.1:10000/devstoreaccount1}. */
  private static Optional<String> accountOfEmulatorEndpoint(String endpoint) {
    try {
      String path = URI.create(endpoint).getPath();
      if (path != null) {
        String first = path.replaceAll("^/+", "").split("/", 2)[0];
        if (!first.isEmpty()) {
          return Optional.of(first);
        }
      }
    } catch (IllegalArgumentException e) {
      throw new InvalidArgumentException(ENDPOINT + " is not a URL (" + e.getMessage() + ")");
    }
    return Optional.empty();
  }

  Optional<String> connectionString() {
    return connectionString;
  }

  Optional<String> accountKey() {
    return accountKey;
  }

  Optional<String> sasToken() {
    return sasToken;
  }

  /** Which kind of credential is configured, for messages (never the secret itself). */
  String credentialKind() {
    if (connectionString.isPresent()) {
      return "connection string";
    }
    if (accountKey.isPresent()) {
      return "account key";
    }
    if (sasToken.isPresent()) {
      return "SAS token";
    }
    return "DefaultAzureCredential";
  }

  @Override
  public String toString() {
    return "AzureStoreOptions[" + location + ", endpoint=" + endpoint.map(AzureStoreOptions::withoutQuery).orElse("(from connection string)")
        + ", credential=" + credentialKind() + ", blockSize=" + blockSize + ", maxSingleUpload=" + maxSingleUpload
        + ", maxConcurrency=" + maxConcurrency + "]";
  }

  static String withoutQuery(String url) {
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }
}
