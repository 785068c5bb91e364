package io.quiver.store.azure;

import io.quiver.exceptions.InvalidArgumentException;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What {@link AzureObjectStoreProvider} reads from a URI and an option map: where the container is, how
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
 *   <li>{@value #MAX_RETRIES}, {@value #RETRY_DELAY_MS}, {@value #MAX_RETRY_DELAY_MS}, {@value
 *       #TRY_TIMEOUT_MS}: the SDK's exponential retry policy
 *   <li>{@value #CONNECT_TIMEOUT_MS}, {@value #RESPONSE_TIMEOUT_MS}, {@value #READ_TIMEOUT_MS}: HTTP
 * </ul>
 */
final class AzureStoreConfig {
  static final String CONNECTION_STRING = "azure.connection-string";
  static final String ACCOUNT_NAME = "azure.account-name";
  static final String ACCOUNT_KEY = "azure.account-key";
  static final String SAS_TOKEN = "azure.sas-token";
  static final String ENDPOINT = "azure.endpoint";
  static final String BLOCK_SIZE = "azure.block-size-bytes";
  static final String MAX_SINGLE_UPLOAD = "azure.max-single-upload-bytes";
  static final String MAX_CONCURRENCY = "azure.max-concurrency";
  static final String MAX_RETRIES = "azure.max-retries";
  static final String RETRY_DELAY_MS = "azure.retry-delay-ms";
  static final String MAX_RETRY_DELAY_MS = "azure.max-retry-delay-ms";
  static final String TRY_TIMEOUT_MS = "azure.try-timeout-ms";
  static final String CONNECT_TIMEOUT_MS = "azure.connect-timeout-ms";
  static final String RESPONSE_TIMEOUT_MS = "azure.response-timeout-ms";
  static final String READ_TIMEOUT_MS = "azure.read-timeout-ms";

  static final long MIB = 1024L * 1024L;
  /** Service limits: a staged block is at most 4000 MiB, a single Put Blob at most 5000 MiB. */
  static final long MAX_BLOCK_SIZE = 4000 * MIB;
  static final long MAX_PUT_BLOB_SIZE = 5000 * MIB;

  final String scheme;
  /** How the store names itself in messages: the URI without credentials or trailing slash. */
  final String location;
  final String container;
  /** Blob-name prefix of the store's root: empty, or ending in '/'. */
  final String rootPrefix;
  /** Endpoint derived from the URI or given, or empty when the connection string supplies it. */
  final Optional<String> endpoint;
  final Optional<String> accountName;
  private final Optional<String> accountKey;
  private final Optional<String> sasToken;
  private final Optional<String> connectionString;
  final int blockSize;
  final int maxSingleUpload;
  final int maxConcurrency;
  final int maxRetries;
  final Duration retryDelay;
  final Duration maxRetryDelay;
  final Optional<Duration> tryTimeout;
  final Duration connectTimeout;
  final Duration responseTimeout;
  final Duration readTimeout;

  private AzureStoreConfig(URI uri, Map<String, String> options) {
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

    connectionString = nonBlank(options, CONNECTION_STRING);
    accountKey = nonBlank(options, ACCOUNT_KEY);
    Optional<String> rawEndpoint = nonBlank(options, ENDPOINT);
    // An endpoint URL may carry a SAS as its query: take it apart so the secret is kept with the others.
    Optional<String> endpointSas = rawEndpoint.filter(e -> e.indexOf('?') >= 0).map(e -> e.substring(e.indexOf('?') + 1)).filter(q -> !q.isEmpty());
    sasToken = nonBlank(options, SAS_TOKEN).map(s -> s.startsWith("?") ? s.substring(1) : s).or(() -> endpointSas);
    Optional<String> givenEndpoint = rawEndpoint.map(AzureStoreConfig::withoutQuery).map(e -> e.replaceAll("/+$", ""));
    Optional<String> account = nonBlank(options, ACCOUNT_NAME);
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

    blockSize = (int) bytes(options, BLOCK_SIZE, 8 * MIB, 1, Math.min(MAX_BLOCK_SIZE, Integer.MAX_VALUE - 8));
    maxSingleUpload = (int) bytes(options, MAX_SINGLE_UPLOAD, 8 * MIB, 0, Math.min(MAX_PUT_BLOB_SIZE, Integer.MAX_VALUE - 8));
    maxConcurrency = (int) number(options, MAX_CONCURRENCY, 4, 1, 256);
    maxRetries = (int) number(options, MAX_RETRIES, 3, 0, 100);
    retryDelay = Duration.ofMillis(number(options, RETRY_DELAY_MS, 200, 1, Long.MAX_VALUE / 2));
    maxRetryDelay = Duration.ofMillis(number(options, MAX_RETRY_DELAY_MS, 10_000, 1, Long.MAX_VALUE / 2));
    if (maxRetryDelay.compareTo(retryDelay) < 0) {
      throw new InvalidArgumentException(MAX_RETRY_DELAY_MS + " must be at least " + RETRY_DELAY_MS);
    }
    tryTimeout = options.containsKey(TRY_TIMEOUT_MS)
        ? Optional.of(Duration.ofMillis(number(options, TRY_TIMEOUT_MS, 0, 1, Long.MAX_VALUE / 2)))
        : Optional.empty();
    connectTimeout = Duration.ofMillis(number(options, CONNECT_TIMEOUT_MS, 10_000, 1, Long.MAX_VALUE / 2));
    responseTimeout = Duration.ofMillis(number(options, RESPONSE_TIMEOUT_MS, 60_000, 1, Long.MAX_VALUE / 2));
    readTimeout = Duration.ofMillis(number(options, READ_TIMEOUT_MS, 60_000, 1, Long.MAX_VALUE / 2));
  }

  static AzureStoreConfig of(URI uri, Map<String, String> options) {
    return new AzureStoreConfig(uri, options == null ? Map.of() : options);
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

  private static Optional<String> nonBlank(Map<String, String> options, String key) {
    String value = options.get(key);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  private static long number(Map<String, String> options, String key, long dflt, long min, long max) {
    String value = options.get(key);
    if (value == null || value.isBlank()) {
      return dflt;
    }
    long n;
    try {
      n = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new InvalidArgumentException("option " + key + " must be a whole number, got '" + value + "'");
    }
    if (n < min || n > max) {
      throw new InvalidArgumentException("option " + key + " must be between " + min + " and " + max + ", got " + n);
    }
    return n;
  }

  private static long bytes(Map<String, String> options, String key, long dflt, long min, long max) {
    return number(options, key, dflt, min, max);
  }

  @Override
  public String toString() {
    return "AzureStoreConfig[" + location + ", endpoint=" + endpoint.map(AzureStoreConfig::withoutQuery).orElse("(from connection string)")
        + ", credential=" + credentialKind() + ", blockSize=" + blockSize + ", maxSingleUpload=" + maxSingleUpload
        + ", maxConcurrency=" + maxConcurrency + "]";
  }

  static String withoutQuery(String url) {
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }
}
