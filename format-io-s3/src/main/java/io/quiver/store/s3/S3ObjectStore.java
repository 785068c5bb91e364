package io.quiver.store.s3;

import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ByteRange;
import io.quiver.store.FetchTuning;
import io.quiver.store.Keys;
import io.quiver.store.ListPage;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.StoreArgs;
import io.quiver.store.support.Backoff;
import io.quiver.store.support.ConditionalPut;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import io.quiver.store.support.ParallelRanges;
import io.quiver.store.support.StoreThreads;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link ObjectStore} on an S3 bucket (AWS or S3-compatible), rooted at a key prefix: key {@code a/b} of
 * the store {@code s3://bucket/table} is the S3 object {@code table/a/b}.
 *
 * <ul>
 *   <li>{@link #putIfAbsent}: {@code PutObject} with {@code If-None-Match: *}. S3 creates the object
 *       only if the key is free, atomically; 412 Precondition Failed means it exists. The call goes out
 *       without SDK retries and carries a random token in its metadata ({@code x-amz-meta-}{@value
 *       ConditionalPut#TOKEN_METADATA_KEY}); {@link ConditionalPut} retries refusals (no connection, 409
 *       ConditionalRequestConflict) and settles an attempt that may have acted (5xx, throttling, a timeout)
 *       by reading the token back with {@code HeadObject} when a resend answers 412.
 *   <li>{@link #readRange}: a ranged {@code GetObject}; 416 (offset at or past the end) gives an empty
 *       array.
 *   <li>{@link #openWriter}: one {@code PutObject} up to the multipart threshold; above it a multipart
 *       upload whose parts go up in parallel on a bounded pool, completed on close and aborted on
 *       {@link ObjectWriter#abort()} or failure.
 *   <li>{@link #list}: {@code ListObjectsV2}, which returns keys in UTF-8 byte order ({@link Keys#ORDER}).
 *   <li>{@link #deleteAll}: {@code DeleteObjects} in batches of 1000; per-key errors come back as failed
 *       keys.
 * </ul>
 *
 * <p>Thread-safe. {@link #close()} releases the HTTP connections and the upload pool.
 */
public final class S3ObjectStore implements ObjectStore {
  private static final Logger LOG = LoggerFactory.getLogger(S3ObjectStore.class);

  /** S3's largest page and largest DeleteObjects batch. */
  static final int S3_PAGE = 1000;
  /** Bytes of an object read whole must fit in one array. */
  private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final String bucket;
  /** "" or a prefix ending in '/'. */
  private final String root;
  private final String location;
  private final S3StoreOptions options;
  private final SdkHttpClient http;
  private final S3Client client;
  /** Same connection pool, no SDK retries: for conditional puts, whose retries must be decided here. */
  private final S3Client conditionalClient;
  private final ExecutorService uploads;
  private final ExecutorService reads;

  private S3ObjectStore(String bucket, String root, S3StoreOptions options) {
    this.bucket = bucket;
    this.root = root;
    this.location = "s3://" + bucket + (root.isEmpty() ? "" : "/" + root.substring(0, root.length() - 1));
    this.options = options;
    this.http = Apache5HttpClient.builder()
        .connectionTimeout(options.connectionTimeout())
        .socketTimeout(options.socketTimeout())
        .maxConnections(options.maxConnections())
        .build();
    S3Client retrying = null;
    try {
      RetryStrategy strategy = options.maxRetries()
          .<RetryStrategy>map(n -> AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(n + 1).build())
          .orElseGet(AwsRetryStrategy::standardRetryStrategy);
      retrying = clientBuilder(options, http).overrideConfiguration(c -> c.retryStrategy(strategy)).build();
      this.client = retrying;
      this.conditionalClient =
          clientBuilder(options, http).overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry())).build();
    } catch (RuntimeException e) {
      if (retrying != null) {
        retrying.close();
      }
      http.close();
      throw e;
    }
    this.uploads = StoreThreads.bounded("quiver-s3-upload-" + bucket, options.parallelism());
    this.reads = StoreThreads.bounded("quiver-s3-read-" + bucket, options.readParallelism());
  }

  /**
   * Opens a store on {@code bucket} rooted at {@code prefix} (no leading or trailing '/'; empty for the
   * bucket's root). Nothing is sent to S3 until the first call.
   */
  public static S3ObjectStore open(String bucket, String prefix, S3StoreOptions options) {
    String root = prefix == null || prefix.isEmpty() ? "" : prefix + "/";
    return new S3ObjectStore(bucket, root, options);
  }

  private static S3ClientBuilder clientBuilder(S3StoreOptions options, SdkHttpClient http) {
    S3ClientBuilder b = S3Client.builder()
        .httpClient(http)
        .credentialsProvider(credentials(options))
        .forcePathStyle(options.pathStyleAccess());
    options.endpoint().ifPresent(b::endpointOverride);
    if (options.region().isPresent()) {
      b.region(Region.of(options.region().get()));
    } else if (options.endpoint().isPresent()) {
      b.region(Region.of(S3StoreOptions.FALLBACK_REGION));
    } else {
      b.region(defaultRegion()).crossRegionAccessEnabled(true);
    }
    if (options.checksumWhenRequiredOnly()) {
      b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
          .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    }
    return b;
  }

  private static Region defaultRegion() {
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (RuntimeException e) {
      // No region configured anywhere: cross-region access follows the bucket's redirect.
      return Region.of(S3StoreOptions.FALLBACK_REGION);
    }
  }

  private static AwsCredentialsProvider credentials(S3StoreOptions options) {
    if (!options.hasStaticCredentials()) {
      return DefaultCredentialsProvider.builder().build();
    }
    String id = options.accessKeyId().orElseThrow();
    String secret = options.secretAccessKey().orElseThrow();
    return StaticCredentialsProvider.create(options.sessionToken()
        .<software.amazon.awssdk.auth.credentials.AwsCredentials>map(t -> AwsSessionCredentials.create(id, secret, t))
        .orElseGet(() -> AwsBasicCredentials.create(id, secret)));
  }

  /** The bucket. */
  public String bucket() {
    return bucket;
  }

  /** The key prefix of the root: empty, or ending in '/'. */
  public String rootPrefix() {
    return root;
  }

  /** The settings this store was opened with (without secrets in its {@code toString}). */
  public S3StoreOptions options() {
    return options;
  }

  @Override
  public String location() {
    return location;
  }

  /** The S3 key of a store key, after validating it. */
  String objectKey(String key) {
    return root + StoreArgs.key(key);
  }

  S3Client client() {
    return client;
  }

  ExecutorService uploads() {
    return uploads;
  }

  // ---- reads

  @Override
  public byte[] read(String key) {
    String objectKey = objectKey(key);
    try (ResponseInputStream<GetObjectResponse> in = client.getObject(r -> r.bucket(bucket).key(objectKey))) {
      Long length = in.response().contentLength();
      if (length != null && length > MAX_ARRAY) {
        in.abort();
        throw Failure.PERMANENT.storeException(Call.READ, "read whole", location, key,
            "it is " + length + " bytes, more than an array holds", "use readRange", null);
      }
      return readAll(in, key);
    } catch (SdkException e) {
      throw readFailure("read", key, e);
    } catch (IOException e) {
      throw Failure.TRANSIENT.exception(Call.READ, "read", location, key, e.toString(), "", e);
    }
  }

  private byte[] readAll(InputStream in, String key) throws IOException {
    try {
      return in.readAllBytes();
    } catch (OutOfMemoryError e) {
      throw Failure.PERMANENT.storeException(Call.READ, "read whole", location, key, "it does not fit in memory",
          "use readRange", null);
    }
  }

  /**
   * {@link FetchTuning#CLOUD}: a S3 request costs tens of milliseconds before its first byte, so scans merge
   * wanted ranges up to 1 MiB apart and keep 8 requests in flight per fragment reader.
   */
  @Override
  public FetchTuning fetchTuning() {
    return FetchTuning.CLOUD;
  }

  /** Parallel ranged GETs, at most {@value S3StoreOptions#READ_PARALLELISM} at once for this store. */
  @Override
  public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    return ParallelRanges.read(this, reads, key, ranges);
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    String objectKey = objectKey(key);
    StoreArgs.range(offset, length);
    if (length == 0) {
      // Still a read: a missing object must say so.
      if (head(key).isEmpty()) {
        throw new ObjectNotFoundException(locationOf(key));
      }
      return new byte[0];
    }
    long last = offset > Long.MAX_VALUE - length ? Long.MAX_VALUE - 1 : offset + length - 1;
    String range = "bytes=" + offset + "-" + last;
    try (ResponseInputStream<GetObjectResponse> in =
        client.getObject(r -> r.bucket(bucket).key(objectKey).range(range))) {
      byte[] bytes = readAll(in, key);
      if (in.response().contentRange() == null) {
        // The server ignored the range and sent the whole object: cut it here.
        if (offset >= bytes.length) {
          return new byte[0];
        }
        return java.util.Arrays.copyOfRange(bytes, (int) offset, (int) Math.min(bytes.length, offset + (long) length));
      }
      return bytes.length > length ? java.util.Arrays.copyOf(bytes, length) : bytes;
    } catch (SdkException e) {
      if (S3Errors.status(e) == 416) {
        return new byte[0];
      }
      throw readFailure("read a range of", key, e);
    } catch (IOException e) {
      throw Failure.TRANSIENT.exception(Call.READ, "read a range of", location, key, e.toString(), "", e);
    }
  }

  private RuntimeException readFailure(String action, String key, SdkException e) {
    if (S3Errors.isMissingObject(e)) {
      return new ObjectNotFoundException(locationOf(key));
    }
    return S3Errors.mapStore(Call.READ, action, location, key, e);
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    String objectKey = objectKey(key);
    try {
      HeadObjectResponse r = client.headObject(b -> b.bucket(bucket).key(objectKey));
      return Optional.of(new ObjectInfo(key, r.contentLength(), r.lastModified()));
    } catch (SdkException e) {
      // HEAD has no body: 404 cannot tell a missing bucket from a missing key; both mean "no object".
      if (S3Errors.status(e) == 404) {
        return Optional.empty();
      }
      throw S3Errors.mapStore(Call.READ, "stat", location, key, e);
    }
  }

  // ---- writes

  @Override
  public void write(String key, byte[] data) {
    String objectKey = objectKey(key);
    StoreArgs.data(key, data);
    if (data.length > options.multipartThreshold()) {
      S3ObjectWriter w = (S3ObjectWriter) openWriter(key);
      w.write(data, 0, data.length);
      w.close();
      return;
    }
    try {
      client.putObject(r -> r.bucket(bucket).key(objectKey).contentLength((long) data.length), RequestBody.fromBytes(data));
    } catch (SdkException e) {
      throw S3Errors.mapStore(Call.WRITE, "write", location, key, e);
    }
  }

  /** Sends of one conditional put: {@code 1 + s3.max-retries}, at least 3. */
  private int conditionalAttempts() {
    return Math.max(3, 1 + options.maxRetries().orElse(2));
  }

  /** Waits between sends of a conditional put: a few tens of milliseconds, doubling to 1 s, jittered. */
  private static final Backoff CONDITIONAL_BACKOFF = Backoff.of(Duration.ofMillis(40), Duration.ofSeconds(1));

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    String objectKey = objectKey(key);
    StoreArgs.data(key, data);
    byte[] copy = data.clone();
    return new ConditionalPut(location, key, conditionalAttempts(), CONDITIONAL_BACKOFF).run(new ConditionalPut.Store() {
      @Override
      public ConditionalPut.Answer send(String token) {
        try {
          conditionalClient.putObject(
              r -> r.bucket(bucket).key(objectKey).ifNoneMatch("*").contentLength((long) copy.length)
                  .metadata(Map.of(ConditionalPut.TOKEN_METADATA_KEY, token)),
              RequestBody.fromBytes(copy));
          return ConditionalPut.Answer.CREATED;
        } catch (SdkException e) {
          if (S3Errors.status(e) == 412) {
            return ConditionalPut.Answer.EXISTS;
          }
          throw e;
        }
      }

      @Override
      public Optional<String> liveToken() {
        try {
          HeadObjectResponse r = client.headObject(b -> b.bucket(bucket).key(objectKey));
          return Optional.of(r.metadata().getOrDefault(ConditionalPut.TOKEN_METADATA_KEY, ""));
        } catch (SdkException e) {
          if (S3Errors.status(e) == 404) {
            return Optional.empty();
          }
          throw e;
        }
      }

      @Override
      public Failure classify(RuntimeException failure) {
        if (!(failure instanceof SdkException e)) {
          return Failure.PERMANENT;
        }
        // A throttling answer (503 SlowDown, 429) may come from a front end after the create was applied: doubt,
        // settled by the token if a resend answers 412. (409 ConditionalRequestConflict says S3 did not act.)
        return S3Errors.throttled(e) ? Failure.TRANSIENT : S3Errors.classify(e);
      }

      @Override
      public QuiverException toException(RuntimeException failure) {
        if (failure instanceof SdkException e) {
          return S3Errors.map(Call.CREATE, "create (if absent)", location, key, e);
        }
        return failure instanceof QuiverException q ? q
            : Failure.PERMANENT.exception(Call.CREATE, "create (if absent)", location, key, failure.toString(), "", failure);
      }

      @Override
      public String describe(RuntimeException failure) {
        return failure instanceof SdkException e ? S3Errors.describe(e) : failure.toString();
      }
    });
  }

  @Override
  public ObjectWriter openWriter(String key) {
    return new S3ObjectWriter(this, key, objectKey(key));
  }

  // ---- listing

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    StoreArgs.list(prefix, startAfter, maxKeys);
    ListObjectsV2Request.Builder request = ListObjectsV2Request.builder()
        .bucket(bucket)
        .prefix(root + prefix)
        .maxKeys(Math.min(maxKeys, S3_PAGE))
        .encodingType(EncodingType.URL);
    if (startAfter.isPresent()) {
      // Keys never hold NUL, so "after s" equals "after s cut at its first NUL" (and S3 may refuse NUL).
      String after = startAfter.get();
      int nul = after.indexOf('\0');
      after = nul >= 0 ? after.substring(0, nul) : after;
      if (!after.isEmpty()) {
        request.startAfter(root + after);
      }
    }
    String fullPrefix = root + prefix;
    List<ObjectInfo> found = new ArrayList<>();
    try {
      while (true) {
        ListObjectsV2Response page = client.listObjectsV2(request.build());
        for (S3Object o : page.contents()) {
          // S3 matches the prefix literally; some S3-compatible servers resolve "..", so check again.
          // Objects written by other tools ("dir/" markers, "a//b") are not Quiver keys: skip them.
          if (!o.key().startsWith(fullPrefix)) {
            continue;
          }
          String key = o.key().substring(root.length());
          if (Keys.isValid(key)) {
            found.add(new ObjectInfo(key, o.size(), o.lastModified()));
          }
        }
        boolean truncated = Boolean.TRUE.equals(page.isTruncated());
        if (!found.isEmpty() || !truncated || page.nextContinuationToken() == null) {
          return new ListPage(found, truncated);
        }
        request.continuationToken(page.nextContinuationToken());
      }
    } catch (SdkException e) {
      throw S3Errors.mapStore(Call.READ, "list", location, prefix, e);
    }
  }

  // ---- deletes

  @Override
  public void delete(String key) {
    String objectKey = objectKey(key);
    try {
      client.deleteObject(r -> r.bucket(bucket).key(objectKey));
    } catch (SdkException e) {
      if (S3Errors.isMissingObject(e)) {
        return;
      }
      throw S3Errors.mapStore(Call.WRITE, "delete", location, key, e);
    }
  }

  @Override
  public List<String> deleteAll(Collection<String> keys) {
    List<String> all = StoreArgs.keys(keys); // every key is checked before any is deleted
    List<String> failed = new ArrayList<>();
    for (int from = 0; from < all.size(); from += S3_PAGE) {
      List<String> batch = all.subList(from, Math.min(all.size(), from + S3_PAGE));
      List<ObjectIdentifier> ids = batch.stream().map(k -> ObjectIdentifier.builder().key(root + k).build()).toList();
      try {
        DeleteObjectsResponse response =
            client.deleteObjects(r -> r.bucket(bucket).delete(Delete.builder().objects(ids).quiet(true).build()));
        for (S3Error error : response.errors()) {
          if ("NoSuchKey".equals(error.code())) {
            continue;
          }
          String key = error.key() != null && error.key().startsWith(root) ? error.key().substring(root.length()) : error.key();
          LOG.warn("could not delete {}: {} {}", locationOf(String.valueOf(key)), error.code(), error.message());
          failed.add(key);
        }
      } catch (SdkException e) {
        StoreException mapped = S3Errors.mapStore(Call.WRITE, "delete " + batch.size() + " objects under", location, null, e);
        LOG.warn("{}", mapped.getMessage());
        failed.addAll(batch);
      }
    }
    return failed;
  }

  @Override
  public void close() {
    uploads.shutdown();
    reads.shutdown();
    try {
      conditionalClient.close();
      client.close();
    } finally {
      http.close();
    }
  }

  @Override
  public String toString() {
    return "S3ObjectStore[" + location + ", " + options + "]";
  }
}
