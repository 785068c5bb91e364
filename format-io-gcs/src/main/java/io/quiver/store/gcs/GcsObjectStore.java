package io.quiver.store.gcs;

import com.google.api.gax.paging.Page;
import com.google.cloud.ReadChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage.BlobField;
import com.google.cloud.storage.Storage.BlobGetOption;
import com.google.cloud.storage.Storage.BlobListOption;
import com.google.cloud.storage.Storage.BlobTargetOption;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageBatch;
import com.google.cloud.storage.StorageBatchResult;
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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link ObjectStore} on a Google Cloud Storage bucket, rooted at an optional prefix: key {@code a/b} is the
 * object {@code prefix/a/b}.
 *
 * <ul>
 *   <li>{@link #putIfAbsent}: one upload with {@code ifGenerationMatch=0}, which GCS applies atomically; 412
 *       means the object exists. It goes through a client without SDK retries, because the SDK would retry
 *       such a conditional upload after an ambiguous failure and then see its own object as someone else's.
 *       {@link ConditionalPut} retries instead, and after an ambiguous attempt decides a 412 by the random
 *       upload token the object's metadata holds ({@value ConditionalPut#TOKEN_METADATA_KEY}).
 *   <li>{@link #openWriter}: a {@link GcsObjectWriter}; small objects are one request, larger ones a
 *       resumable upload finalized only by {@code close()}.
 *   <li>{@link #list}: prefix listing with {@code startOffset}; GCS lists in UTF-8 byte order, which is
 *       {@link Keys#ORDER}.
 *   <li>{@link #deleteAll}: JSON batch requests of up to 100 deletes.
 * </ul>
 */
public final class GcsObjectStore implements ObjectStore {
  private static final int BATCH_LIMIT = 100;
  private static final int LIST_PAGE_LIMIT = 1000;
  private static final String CONTENT_TYPE = "application/octet-stream";
  /** Waits between sends of a conditional create: 100 ms doubling to 5 s, jittered. */
  private static final Backoff CONDITIONAL_BACKOFF = Backoff.of(Duration.ofMillis(100), Duration.ofSeconds(5));

  private final String bucket;
  private final String root;
  private final String location;
  private final GcsStoreOptions options;
  private final Storage storage;
  /** Same settings, but the SDK never retries: used where a retry could change the meaning of an answer. */
  private final Storage singleAttempt;
  private final AtomicLong resumableUploads = new AtomicLong();
  private final ExecutorService reads;

  /**
   * A store on {@code bucket} rooted at {@code prefix} (no leading or trailing '/'; empty for the whole
   * bucket).
   */
  public GcsObjectStore(String bucket, String prefix, GcsStoreOptions options) {
    this.bucket = bucket;
    this.root = prefix.isEmpty() ? "" : prefix + "/";
    this.location = "gs://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    this.options = options;
    this.storage = options.storageOptions(options.maxAttempts()).getService();
    this.singleAttempt = options.storageOptions(1).getService();
    this.reads = StoreThreads.bounded("quiver-gcs-read-" + bucket, options.readParallelism());
  }

  @Override
  public String location() {
    return location;
  }

  /** The settings this store was opened with. */
  public GcsStoreOptions options() {
    return options;
  }

  /** How many resumable uploads this store's writers have started (for tests and diagnostics). */
  public long resumableUploadsStarted() {
    return resumableUploads.get();
  }

  String bucket() {
    return bucket;
  }

  Storage storage() {
    return storage;
  }

  void resumableUploadStarted() {
    resumableUploads.incrementAndGet();
  }

  private BlobId blobId(String key) {
    return BlobId.of(bucket, root + StoreArgs.key(key));
  }

  private BlobInfo blobInfo(String key) {
    return BlobInfo.newBuilder(blobId(key)).setContentType(CONTENT_TYPE).build();
  }

  private QuiverException failure(Call call, String action, String key, Throwable e, boolean notFoundIsObject) {
    return GcsErrors.map(call, action, location, bucket, key, e, notFoundIsObject);
  }

  private StoreException storeFailure(Call call, String action, String key, Throwable e) {
    return GcsErrors.mapStore(call, action, location, bucket, key, e);
  }

  // ---- reads

  @Override
  public byte[] read(String key) {
    BlobId id = blobId(key);
    try {
      return storage.readAllBytes(id);
    } catch (RuntimeException e) {
      throw failure(Call.READ, "read", key, e, true);
    }
  }

  /**
   * {@link FetchTuning#CLOUD}: a GCS request costs tens of milliseconds before its first byte, so scans merge
   * wanted ranges up to 1 MiB apart and keep 8 requests in flight per fragment reader.
   */
  @Override
  public FetchTuning fetchTuning() {
    return FetchTuning.CLOUD;
  }

  /** Parallel ranged reads, at most {@value GcsStoreOptions#READ_PARALLELISM} at once for this store. */
  @Override
  public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    return ParallelRanges.read(this, reads, key, ranges);
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    BlobId id = blobId(key);
    StoreArgs.range(offset, length);
    if (length == 0) {
      if (head(key).isEmpty()) {
        throw new ObjectNotFoundException(locationOf(key));
      }
      return new byte[0];
    }
    long end = offset > Long.MAX_VALUE - length ? Long.MAX_VALUE : offset + length;
    try (ReadChannel channel = storage.reader(id)) {
      channel.seek(offset);
      channel.limit(end);
      int first = Math.min(length, 1 << 20);
      ByteBuffer buffer = ByteBuffer.allocate(first);
      ByteArrayOutputStream more = null;
      while (true) {
        int n = channel.read(buffer);
        if (n < 0) {
          break;
        }
        if (!buffer.hasRemaining()) {
          if (more == null) {
            more = new ByteArrayOutputStream(first * 2);
          }
          more.write(buffer.array(), 0, buffer.position());
          buffer.clear();
        }
      }
      if (more == null) {
        return buffer.position() == buffer.capacity() ? buffer.array() : Arrays.copyOf(buffer.array(), buffer.position());
      }
      more.write(buffer.array(), 0, buffer.position());
      return more.toByteArray();
    } catch (IOException | RuntimeException e) {
      throw failure(Call.READ, "read", key, e, true);
    }
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    BlobId id = blobId(key);
    try {
      Blob blob = storage.get(id, BlobGetOption.fields(BlobField.NAME, BlobField.SIZE, BlobField.UPDATED));
      return blob == null ? Optional.empty() : Optional.of(info(key, blob));
    } catch (RuntimeException e) {
      if (GcsErrors.status(e) == 404) {
        return Optional.empty();
      }
      throw storeFailure(Call.READ, "stat", key, e);
    }
  }

  private static ObjectInfo info(String key, Blob blob) {
    OffsetDateTime updated = blob.getUpdateTimeOffsetDateTime();
    if (updated == null) {
      updated = blob.getCreateTimeOffsetDateTime();
    }
    Long size = blob.getSize();
    return new ObjectInfo(key, size == null ? 0 : size, updated == null ? Instant.EPOCH : updated.toInstant());
  }

  // ---- writes

  @Override
  public void write(String key, byte[] data) {
    BlobInfo info = blobInfo(key);
    StoreArgs.data(key, data);
    if (data.length > options.writeThreshold()) {
      try (ObjectWriter writer = openWriter(key)) {
        writer.write(data);
      } catch (IOException e) {
        throw storeFailure(Call.WRITE, "write", key, e);
      }
      return;
    }
    try {
      storage.create(info, data);
    } catch (RuntimeException e) {
      throw storeFailure(Call.WRITE, "write", key, e);
    }
  }

  @Override
  public ObjectWriter openWriter(String key) {
    return new GcsObjectWriter(this, key, blobInfo(key));
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    BlobId id = blobId(key);
    StoreArgs.data(key, data);
    byte[] copy = data.clone();
    return new ConditionalPut(location, key, options.maxAttempts(), CONDITIONAL_BACKOFF).run(new ConditionalPut.Store() {
      @Override
      public ConditionalPut.Answer send(String token) {
        BlobInfo info = BlobInfo.newBuilder(id).setContentType(CONTENT_TYPE)
            .setMetadata(Map.of(ConditionalPut.TOKEN_METADATA_KEY, token)).build();
        try {
          singleAttempt.create(info, copy, BlobTargetOption.doesNotExist());
          return ConditionalPut.Answer.CREATED;
        } catch (RuntimeException e) {
          if (GcsErrors.status(e) == 412) {
            return ConditionalPut.Answer.EXISTS;
          }
          throw e;
        }
      }

      @Override
      public Optional<String> liveToken() {
        try {
          Blob blob = storage.get(id, BlobGetOption.fields(BlobField.NAME, BlobField.METADATA));
          if (blob == null) {
            return Optional.empty();
          }
          Map<String, String> metadata = blob.getMetadata();
          String owner = metadata == null ? null : metadata.get(ConditionalPut.TOKEN_METADATA_KEY);
          return Optional.of(owner == null ? "" : owner);
        } catch (RuntimeException e) {
          if (GcsErrors.status(e) == 404) {
            return Optional.empty();
          }
          throw e;
        }
      }

      @Override
      public Failure classify(RuntimeException failure) {
        Failure kind = GcsErrors.classify(failure, false);
        // A 429 to a create may come after GCS applied it, like a 5xx: doubt, settled by the token if a resend
        // answers 412 (a false "lost race" would make the committer rebase onto its own version).
        return kind == Failure.REFUSED ? Failure.TRANSIENT : kind;
      }

      @Override
      public QuiverException toException(RuntimeException failure) {
        return failure instanceof QuiverException q ? q : failure(Call.CREATE, "create (if absent)", key, failure, false);
      }

      @Override
      public String describe(RuntimeException failure) {
        return GcsErrors.describe(failure);
      }
    });
  }

  // ---- listing

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    StoreArgs.list(prefix, startAfter, maxKeys);
    List<BlobListOption> listOptions = new ArrayList<>();
    listOptions.add(BlobListOption.prefix(root + prefix));
    listOptions.add(BlobListOption.pageSize(Math.min(LIST_PAGE_LIMIT, maxKeys + 1L)));
    listOptions.add(BlobListOption.fields(BlobField.NAME, BlobField.SIZE, BlobField.UPDATED));
    String after = startAfter.filter(s -> Keys.compare(s, prefix) >= 0).orElse(null);
    if (after != null) {
      listOptions.add(BlobListOption.startOffset(root + startOffsetAfter(after)));
    }
    List<ObjectInfo> page = new ArrayList<>();
    try {
      Page<Blob> blobs = storage.list(bucket, listOptions.toArray(BlobListOption[]::new));
      for (Blob blob : blobs.iterateAll()) {
        String name = blob.getName();
        if (!name.startsWith(root + prefix)) {
          continue;
        }
        String key = name.substring(root.length());
        if ((after != null && Keys.compare(key, after) <= 0) || !Keys.isValid(key)) {
          // Names no key of this store can have (written by other tools) stay invisible, like foreign
          // files under a local root.
          continue;
        }
        if (page.size() == maxKeys) {
          return new ListPage(page, true);
        }
        page.add(info(key, blob));
      }
    } catch (RuntimeException e) {
      throw storeFailure(Call.READ, "list", prefix, e);
    }
    return new ListPage(page, false);
  }

  /**
   * The smallest name at or after which every key strictly after {@code after} lies. Keys never contain NUL,
   * so for a bound with a NUL the keys after it are those at or after its part before the NUL plus U+0001.
   */
  static String startOffsetAfter(String after) {
    int nul = after.indexOf('\0');
    return nul < 0 ? after : after.substring(0, nul) + '\u0001';
  }

  // ---- deletes

  @Override
  public void delete(String key) {
    BlobId id = blobId(key);
    try {
      storage.delete(id);
    } catch (RuntimeException e) {
      if (GcsErrors.status(e) != 404) {
        throw storeFailure(Call.WRITE, "delete", key, e);
      }
    }
  }

  @Override
  public List<String> deleteAll(Collection<String> keys) {
    List<String> all = StoreArgs.keys(keys);
    List<String> failed = new ArrayList<>();
    for (int from = 0; from < all.size(); from += BATCH_LIMIT) {
      List<String> chunk = all.subList(from, Math.min(all.size(), from + BATCH_LIMIT));
      if (chunk.size() == 1) {
        try {
          delete(chunk.get(0));
        } catch (StoreException e) {
          failed.add(chunk.get(0));
        }
        continue;
      }
      StorageBatch batch = storage.batch();
      List<StorageBatchResult<Boolean>> results = new ArrayList<>();
      for (String key : chunk) {
        results.add(batch.delete(blobId(key)));
      }
      try {
        batch.submit();
      } catch (RuntimeException e) {
        failed.addAll(chunk);
        continue;
      }
      for (int i = 0; i < chunk.size(); i++) {
        try {
          results.get(i).get();
        } catch (RuntimeException e) {
          if (GcsErrors.status(e) != 404) {
            failed.add(chunk.get(i));
          }
        }
      }
    }
    return failed;
  }

  @Override
  public void close() {
    reads.shutdown();
    closeQuietly(storage);
    closeQuietly(singleAttempt);
  }

  private static void closeQuietly(Storage s) {
    try {
      s.close();
    } catch (Exception ignored) {
      // Releasing client resources; nothing to report.
    }
  }

  @Override
  public String toString() {
    return "GcsObjectStore[" + location + "]";
  }
}
