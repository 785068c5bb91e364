package io.quiver.store.s3;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.support.StoreOptions;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The settings of an {@link S3ObjectStore}, read from the option map given to {@link
 * S3ObjectStoreProvider#open}. Names follow Apache Iceberg's {@code s3.*} properties where one exists;
 * keys this adapter does not know are ignored. {@link #toString()} never shows the secret or the
 * session token.
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #ENDPOINT}</td><td>AWS</td><td>endpoint of an S3-compatible service</td></tr>
 *   <tr><td>{@value #REGION}</td><td>SDK chain, else us-east-1</td><td>signing region</td></tr>
 *   <tr><td>{@value #PATH_STYLE_ACCESS}</td><td>false</td><td>path-style instead of virtual-host URLs</td></tr>
 *   <tr><td>{@value #ACCESS_KEY_ID}, {@value #SECRET_ACCESS_KEY}, {@value #SESSION_TOKEN}</td>
 *       <td>SDK default chain</td><td>static credentials</td></tr>
 *   <tr><td>{@value #MULTIPART_THRESHOLD}</td><td>32 MiB</td><td>writer switches to multipart above this</td></tr>
 *   <tr><td>{@value #MULTIPART_PART_SIZE}</td><td>16 MiB</td><td>part size, at least 5 MiB</td></tr>
 *   <tr><td>{@value #MULTIPART_PARALLELISM}</td><td>4</td><td>parts uploaded at once per store and per writer</td></tr>
 *   <tr><td>{@value #READ_PARALLELISM}</td><td>16</td><td>ranged GETs of one {@code readRanges} in flight at once,
 *       per store (a bounded pool shared by all callers)</td></tr>
 *   <tr><td>{@value #CONNECTION_TIMEOUT_MS}</td><td>10000</td><td>TCP connect timeout</td></tr>
 *   <tr><td>{@value #SOCKET_TIMEOUT_MS}</td><td>30000</td><td>read/write inactivity timeout</td></tr>
 *   <tr><td>{@value #MAX_RETRIES}</td><td>2</td><td>SDK retries after the first attempt</td></tr>
 *   <tr><td>{@value #MAX_CONNECTIONS}</td><td>64</td><td>HTTP connection pool size</td></tr>
 *   <tr><td>{@value #CHECKSUM_CALCULATION}</td><td>when_supported</td><td>SDK request checksums</td></tr>
 * </table>
 */
public final class S3StoreOptions {
  public static final String ENDPOINT = "s3.endpoint";
  public static final String REGION = "s3.region";
  public static final String PATH_STYLE_ACCESS = "s3.path-style-access";
  public static final String ACCESS_KEY_ID = "s3.access-key-id";
  public static final String SECRET_ACCESS_KEY = "s3.secret-access-key";
  public static final String SESSION_TOKEN = "s3.session-token";
  public static final String MULTIPART_THRESHOLD = "s3.multipart.threshold-bytes";
  public static final String MULTIPART_PART_SIZE = "s3.multipart.part-size-bytes";
  public static final String MULTIPART_PARALLELISM = "s3.multipart.parallelism";
  public static final String READ_PARALLELISM = "s3.read-parallelism";
  public static final String CONNECTION_TIMEOUT_MS = "s3.connection-timeout-ms";
  public static final String SOCKET_TIMEOUT_MS = "s3.socket-timeout-ms";
  public static final String MAX_RETRIES = "s3.max-retries";
  public static final String MAX_CONNECTIONS = "s3.max-connections";
  public static final String CHECKSUM_CALCULATION = "s3.checksum-calculation";

  /** S3's smallest part (every part but the last must be at least this big). */
  public static final long MIN_PART_SIZE = 5L << 20;
  /** S3's largest part. */
  public static final long MAX_PART_SIZE = 5L << 30;
  /** Parts are buffered in arrays, so a part must fit in one. */
  static final long MAX_BUFFERED_PART_SIZE = Integer.MAX_VALUE - 8;

  static final long DEFAULT_MULTIPART_THRESHOLD = 32L << 20;
  static final long DEFAULT_PART_SIZE = 16L << 20;
  static final int DEFAULT_PARALLELISM = 4;
  static final int DEFAULT_READ_PARALLELISM = 16;
  static final long DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;
  static final long DEFAULT_SOCKET_TIMEOUT_MS = 30_000;
  static final int DEFAULT_MAX_CONNECTIONS = 64;
  /** Region used with a custom endpoint, or when the SDK's region chain finds none. */
  static final String FALLBACK_REGION = "us-east-1";

  private final Optional<URI> endpoint;
  private final Optional<String> region;
  private final boolean pathStyleAccess;
  private final Optional<String> accessKeyId;
  private final Optional<String> secretAccessKey;
  private final Optional<String> sessionToken;
  private final long multipartThreshold;
  private final int partSize;
  private final int parallelism;
  private final int readParallelism;
  private final Duration connectionTimeout;
  private final Duration socketTimeout;
  private final Optional<Integer> maxRetries;
  private final int maxConnections;
  private final boolean checksumWhenRequiredOnly;

  private S3StoreOptions(StoreOptions options) {
    endpoint = options.string(ENDPOINT).map(S3StoreOptions::endpointUri);
    region = options.string(REGION);
    pathStyleAccess = options.bool(PATH_STYLE_ACCESS, false);
    accessKeyId = options.secret(ACCESS_KEY_ID);
    secretAccessKey = options.secret(SECRET_ACCESS_KEY);
    sessionToken = options.secret(SESSION_TOKEN);
    if (accessKeyId.isPresent() != secretAccessKey.isPresent()) {
      throw new InvalidArgumentException(
          "S3 store options set only one of " + ACCESS_KEY_ID + " and " + SECRET_ACCESS_KEY
              + "; set both, or neither to use the AWS SDK's default credentials chain");
    }
    if (sessionToken.isPresent() && accessKeyId.isEmpty()) {
      throw new InvalidArgumentException(
          "S3 store option " + SESSION_TOKEN + " needs " + ACCESS_KEY_ID + " and " + SECRET_ACCESS_KEY + " too");
    }
    partSize = (int) options.number(MULTIPART_PART_SIZE, DEFAULT_PART_SIZE, MIN_PART_SIZE,
        Math.min(MAX_PART_SIZE, MAX_BUFFERED_PART_SIZE));
    multipartThreshold = options.number(MULTIPART_THRESHOLD, DEFAULT_MULTIPART_THRESHOLD, 0, Long.MAX_VALUE);
    parallelism = options.integer(MULTIPART_PARALLELISM, DEFAULT_PARALLELISM, 1, 256);
    readParallelism = options.integer(READ_PARALLELISM, DEFAULT_READ_PARALLELISM, 1, 256);
    connectionTimeout = options.millis(CONNECTION_TIMEOUT_MS, DEFAULT_CONNECTION_TIMEOUT_MS, 1, Integer.MAX_VALUE);
    socketTimeout = options.millis(SOCKET_TIMEOUT_MS, DEFAULT_SOCKET_TIMEOUT_MS, 1, Integer.MAX_VALUE);
    maxRetries = options.optionalNumber(MAX_RETRIES, 0, 100).map(Long::intValue);
    maxConnections = options.integer(MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS, 1, 10_000);
    checksumWhenRequiredOnly = options.choice(CHECKSUM_CALCULATION, false,
        Map.of("when_supported", false, "when-supported", false, "when_required", true, "when-required", true),
        List.of("when_supported", "when_required"));
  }

  /** Reads the {@code s3.*} keys of {@code options}; other keys are ignored. */
  public static S3StoreOptions from(Map<String, String> options) {
    return new S3StoreOptions(StoreOptions.of(options));
  }

  /** The endpoint URI; the value is never echoed, as it could carry user info. */
  private static URI endpointUri(String value) {
    String mustBe = "an http or https URL with a host, e.g. https://s3.example.com or http://127.0.0.1:9000";
    URI uri;
    try {
      uri = new URI(value);
    } catch (URISyntaxException e) {
      throw StoreOptions.invalid(ENDPOINT, mustBe);
    }
    if (uri.getScheme() == null || uri.getHost() == null
        || !(uri.getScheme().equalsIgnoreCase("http") || uri.getScheme().equalsIgnoreCase("https"))) {
      throw StoreOptions.invalid(ENDPOINT, mustBe);
    }
    if (uri.getUserInfo() != null) {
      throw StoreOptions.invalid(ENDPOINT, "a URL without user info; pass credentials as " + ACCESS_KEY_ID + " and "
          + SECRET_ACCESS_KEY);
    }
    return uri;
  }

  public Optional<URI> endpoint() {
    return endpoint;
  }

  public Optional<String> region() {
    return region;
  }

  public boolean pathStyleAccess() {
    return pathStyleAccess;
  }

  Optional<String> accessKeyId() {
    return accessKeyId;
  }

  Optional<String> secretAccessKey() {
    return secretAccessKey;
  }

  Optional<String> sessionToken() {
    return sessionToken;
  }

  /** Whether static credentials were given (otherwise the SDK's default chain is used). */
  public boolean hasStaticCredentials() {
    return accessKeyId.isPresent();
  }

  public long multipartThreshold() {
    return multipartThreshold;
  }

  public int partSize() {
    return partSize;
  }

  public int parallelism() {
    return parallelism;
  }

  /** Ranged GETs of {@code readRanges} in flight at once per store. */
  public int readParallelism() {
    return readParallelism;
  }

  public Duration connectionTimeout() {
    return connectionTimeout;
  }

  public Duration socketTimeout() {
    return socketTimeout;
  }

  /** Retries after the first attempt; empty means the SDK's standard default (2). */
  public Optional<Integer> maxRetries() {
    return maxRetries;
  }

  public int maxConnections() {
    return maxConnections;
  }

  /** True when the SDK adds request checksums only where S3 requires them. */
  public boolean checksumWhenRequiredOnly() {
    return checksumWhenRequiredOnly;
  }

  /** The settings without any credential: only whether static credentials were given. */
  @Override
  public String toString() {
    return "S3StoreOptions[endpoint=" + endpoint.map(URI::toString).orElse("(AWS)")
        + ", region=" + region.orElse("(default)")
        + ", pathStyleAccess=" + pathStyleAccess
        + ", credentials=" + (hasStaticCredentials() ? "(static)" : "(default chain)")
        + ", multipartThreshold=" + multipartThreshold
        + ", partSize=" + partSize
        + ", parallelism=" + parallelism
        + ", readParallelism=" + readParallelism
        + ", connectionTimeout=" + connectionTimeout
        + ", socketTimeout=" + socketTimeout
        + ", maxRetries=" + maxRetries.map(String::valueOf).orElse("(default)")
        + ", maxConnections=" + maxConnections
        + ", checksums=" + (checksumWhenRequiredOnly ? "when_required" : "when_supported") + "]";
  }
}
