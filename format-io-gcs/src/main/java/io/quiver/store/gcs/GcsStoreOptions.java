package io.quiver.store.gcs;

import com.google.api.gax.retrying.RetrySettings;
import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.http.HttpTransportOptions;
import com.google.cloud.storage.StorageOptions;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.support.StoreOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Settings of a GCS store ({@link GcsObjectStore}), read from the option map given to {@link GcsObjectStoreProvider#open}. Keys this
 * adapter does not know are ignored. Secrets (the OAuth2 token) never appear in {@link #toString()} or in
 * messages.
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #PROJECT_ID}</td><td>the SDK's (environment, credentials, metadata server)</td>
 *       <td>project of the client; not needed for object calls</td></tr>
 *   <tr><td>{@value #ENDPOINT} (alias {@value #ENDPOINT_ALIAS})</td><td>https://storage.googleapis.com</td>
 *       <td>JSON API host, e.g. {@code http://127.0.0.1:4443} for an emulator</td></tr>
 *   <tr><td>{@value #NO_AUTH}</td><td>false</td><td>true: send no credentials (emulators)</td></tr>
 *   <tr><td>{@value #CREDENTIALS_FILE}</td><td>none</td><td>service-account (or other) JSON key file</td></tr>
 *   <tr><td>{@value #OAUTH2_TOKEN} (alias {@value #OAUTH2_TOKEN_ALIAS})</td><td>none</td>
 *       <td>a ready OAuth2 access token (not refreshed)</td></tr>
 *   <tr><td>{@value #WRITE_THRESHOLD}</td><td>8 MiB</td><td>a streaming write above this many bytes becomes a
 *       resumable upload; at or below, one request</td></tr>
 *   <tr><td>{@value #RESUMABLE_CHUNK}</td><td>8 MiB</td><td>bytes per resumable-upload request; rounded up to
 *       a multiple of 256 KiB</td></tr>
 *   <tr><td>{@value #MAX_ATTEMPTS}</td><td>6</td><td>attempts per call, first one included (1 = no retry)</td></tr>
 *   <tr><td>{@value #READ_PARALLELISM}</td><td>16</td><td>ranged reads of one {@code readRanges} in flight at
 *       once, per store (a bounded pool shared by all callers)</td></tr>
 *   <tr><td>{@value #CONNECT_TIMEOUT}</td><td>20000</td><td>HTTP connect timeout, milliseconds</td></tr>
 *   <tr><td>{@value #READ_TIMEOUT}</td><td>20000</td><td>HTTP read timeout, milliseconds</td></tr>
 * </table>
 *
 * <p>Without {@value #NO_AUTH}, {@value #CREDENTIALS_FILE} or {@value #OAUTH2_TOKEN} the SDK's application
 * default credentials are used. At most one of the three may be given.
 */
public final class GcsStoreOptions {
  public static final String PROJECT_ID = "gcs.project-id";
  public static final String ENDPOINT = "gcs.endpoint";
  /** Iceberg's name for {@link #ENDPOINT}. */
  public static final String ENDPOINT_ALIAS = "gcs.service.host";
  public static final String NO_AUTH = "gcs.no-auth";
  public static final String CREDENTIALS_FILE = "gcs.credentials-file";
  public static final String OAUTH2_TOKEN = "gcs.oauth2-token";
  /** Iceberg's name for {@link #OAUTH2_TOKEN}. */
  public static final String OAUTH2_TOKEN_ALIAS = "gcs.oauth2.token";
  public static final String WRITE_THRESHOLD = "gcs.write-threshold-bytes";
  public static final String RESUMABLE_CHUNK = "gcs.resumable-chunk-bytes";
  public static final String MAX_ATTEMPTS = "gcs.max-attempts";
  public static final String READ_PARALLELISM = "gcs.read-parallelism";
  public static final String CONNECT_TIMEOUT = "gcs.connect-timeout-ms";
  public static final String READ_TIMEOUT = "gcs.read-timeout-ms";

  static final int MIB = 1024 * 1024;
  /** Resumable-upload chunks must be multiples of this (GCS rule). */
  static final int CHUNK_GRANULARITY = 256 * 1024;

  private final String projectId;
  private final String endpoint;
  private final boolean noAuth;
  private final String credentialsFile;
  private final String oauth2Token;
  private final int writeThreshold;
  private final int resumableChunk;
  private final int maxAttempts;
  private final int readParallelism;
  private final int connectTimeoutMs;
  private final int readTimeoutMs;

  private GcsStoreOptions(StoreOptions options) {
    projectId = options.string(PROJECT_ID).orElse(null);
    endpoint = options.firstOf(ENDPOINT, ENDPOINT_ALIAS).orElse(null);
    noAuth = options.bool(NO_AUTH, false);
    credentialsFile = options.string(CREDENTIALS_FILE).orElse(null);
    oauth2Token = options.secret(OAUTH2_TOKEN).or(() -> options.secret(OAUTH2_TOKEN_ALIAS)).orElse(null);
    writeThreshold = options.integer(WRITE_THRESHOLD, 8 * MIB, 0, Integer.MAX_VALUE);
    int chunk = options.integer(RESUMABLE_CHUNK, 8 * MIB, 1, Integer.MAX_VALUE);
    resumableChunk = (int) Math.min(
        Integer.MAX_VALUE / CHUNK_GRANULARITY * (long) CHUNK_GRANULARITY,
        ((long) chunk + CHUNK_GRANULARITY - 1) / CHUNK_GRANULARITY * CHUNK_GRANULARITY);
    maxAttempts = options.integer(MAX_ATTEMPTS, 6, 1, Integer.MAX_VALUE);
    readParallelism = options.integer(READ_PARALLELISM, 16, 1, 256);
    connectTimeoutMs = options.integer(CONNECT_TIMEOUT, 20_000, 1, Integer.MAX_VALUE);
    readTimeoutMs = options.integer(READ_TIMEOUT, 20_000, 1, Integer.MAX_VALUE);
    int sources = (noAuth ? 1 : 0) + (credentialsFile != null ? 1 : 0) + (oauth2Token != null ? 1 : 0);
    if (sources > 1) {
      throw new InvalidArgumentException(
          "GCS options " + NO_AUTH + ", " + CREDENTIALS_FILE + " and " + OAUTH2_TOKEN
              + " are alternatives; give at most one of them");
    }
    if (endpoint != null && !(endpoint.startsWith("http://") || endpoint.startsWith("https://"))) {
      throw StoreOptions.invalid(ENDPOINT, "an http:// or https:// URL", endpoint);
    }
  }

  /** Parses an option map; unknown keys are ignored. */
  public static GcsStoreOptions parse(Map<String, String> options) {
    return new GcsStoreOptions(StoreOptions.of(options));
  }

  /** Streaming writes larger than this many bytes use a resumable upload. */
  public int writeThreshold() {
    return writeThreshold;
  }

  /** Bytes per resumable-upload request, a multiple of 256 KiB. */
  public int resumableChunk() {
    return resumableChunk;
  }

  /** Ranged reads of {@code readRanges} in flight at once per store. */
  public int readParallelism() {
    return readParallelism;
  }

  /** Attempts per call, the first included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The SDK options these settings describe, with the SDK's retries limited to {@code attempts}. */
  StorageOptions storageOptions(int attempts) {
    StorageOptions.Builder builder = StorageOptions.http();
    if (projectId != null) {
      builder.setProjectId(projectId);
    }
    if (endpoint != null) {
      builder.setHost(endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint);
    }
    if (noAuth) {
      builder.setCredentials(NoCredentials.getInstance());
    } else if (oauth2Token != null) {
      builder.setCredentials(new StaticTokenCredentials(oauth2Token));
    } else if (credentialsFile != null) {
      try (InputStream in = Files.newInputStream(Path.of(credentialsFile))) {
        builder.setCredentials(GoogleCredentials.fromStream(in));
      } catch (IOException | RuntimeException e) {
        // The file's content may be a secret: name the file and the error class only.
        throw new StoreException(
            "could not read the GCS credentials file " + credentialsFile + " (" + e.getClass().getSimpleName()
                + "); check that option " + CREDENTIALS_FILE + " names a readable service-account JSON key",
            null);
      }
    }
    builder.setTransportOptions(
        HttpTransportOptions.newBuilder()
            .setConnectTimeout(connectTimeoutMs)
            .setReadTimeout(readTimeoutMs)
            .build());
    RetrySettings defaults = StorageOptions.getDefaultRetrySettings();
    builder.setRetrySettings(defaults.toBuilder().setMaxAttempts(attempts).build());
    return builder.build();
  }

  /**
   * A fixed access token. When GCS rejects it (401), "refreshing" fails with an IOException, so the client
   * reports the 401 instead of an IllegalStateException about refreshing.
   */
  static final class StaticTokenCredentials extends GoogleCredentials {
    private static final long serialVersionUID = 1L;

    StaticTokenCredentials(String token) {
      super(GoogleCredentials.newBuilder().setAccessToken(new AccessToken(token, null)));
    }

    @Override
    public AccessToken refreshAccessToken() throws IOException {
      throw new IOException("the access token of option " + OAUTH2_TOKEN + " was rejected and cannot be refreshed");
    }

    @Override
    public String toString() {
      return "StaticTokenCredentials[token hidden]";
    }
  }

  @Override
  public String toString() {
    return "GcsStoreOptions[endpoint=" + (endpoint == null ? "default" : endpoint)
        + ", projectId=" + (projectId == null ? "default" : projectId)
        + ", credentials=" + (noAuth ? "none" : credentialsFile != null ? "file " + credentialsFile
            : oauth2Token != null ? "oauth2 token (hidden)" : "application default")
        + ", writeThreshold=" + writeThreshold + ", resumableChunk=" + resumableChunk
        + ", maxAttempts=" + maxAttempts + ", connectTimeoutMs=" + connectTimeoutMs
        + ", readTimeoutMs=" + readTimeoutMs + "]";
  }
}
