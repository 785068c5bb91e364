package io.quiver.store.gcs;

import com.google.api.gax.paging.Page;
import com.google.cloud.ReadChannel;
import com.google.cloud.WriteChannel;
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
import com.google.cloud.storage.StorageException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.StoreUnreachableException;
import io.quiver.store.Keys;
import io.quiver.store.ListPage;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link ObjectStore} on a Google Cloud Storage bucket, rooted at an optional prefix: key {@code a/b} is the
 * object {@code prefix/a/b}.
 *
 * <ul>
 *   <li>{@link #putIfAbsent}: one upload with {@code ifGenerationMatch=0}, which GCS applies atomically; 412
 *       means the object exists. It goes through a client without SDK retries, because the SDK would retry
 *       such a conditional upload after an ambiguous failure and then see its own object as someone else's.
 *       The adapter retries itself instead, and after an ambiguous attempt decides a 412 by the random
 *       upload token it stores in the object's metadata ({@value #PUT_TOKEN}).
 *   <li>{@link #openWriter}: bytes are buffered up to {@link GcsOptions#writeThreshold()}; a larger object
 *       becomes a resumable upload sent in {@link GcsOptions#resumableChunk()} pieces. The object exists
 *       only once the upload is finalized by {@code close()}; an aborted or failed writer never finalizes,
 *       and GCS discards the unfinished session (after a week; the SDK offers no cancel call).
 *   <li>{@link #list}: prefix listing with {@code startOffset}; GCS lists in UTF-8 byte order, which is
 *       {@link Keys#ORDER}.
 *   <li>{@link #deleteAll}: JSON batch requests of up to 100 deletes.
 * </ul>
 */
public final class GcsObjectStore implements ObjectStore {
  /** Metadata key holding the random token of the putIfAbsent that created an object. */
  public static final String PUT_TOKEN = "quiver-put-token";

  private static final int BATCH_LIMIT = 100;
  private static final int LIST_PAGE_LIMIT = 1000;
  private static final String CONTENT_TYPE = "application/octet-stream";

  private final String bucket;
  private final String root;
  private final String location;
  private final GcsOptions options;
  private final Storage storage;
  /** Same settings, but the SDK never retries: used where a retry could change the meaning of an answer. */
  private final Storage singleAttempt;
  private final AtomicLong resumableUploads = new AtomicLong();

  /**
   * A store on {@code bucket} rooted at {@code prefix} (no leading or trailing '/'; empty for the whole
   * bucket).
   */
  public GcsObjectStore(String bucket, String prefix, GcsOptions options) {
    this.bucket = bucket;
    this.root = prefix.isEmpty() ? "" : prefix + "/";
    this.location = "gs://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    this.options = options;
    this.storage = options.storageOptions(options.maxAttempts()).getService();
    this.singleAttempt = options.storageOptions(1).getService();
  }

  @Override
  public String location() {
    return location;
  }

  /** The settings this store was opened with. */
  public GcsOptions options() {
    return options;
  }

  /** How many resumable uploads this store's writers have started (for tests and diagnostics). */
  public long resumableUploadsStarted() {
    return resumableUploads.get();
  }

  private BlobId blobId(String key) {
    return BlobId.of(bucket, root + Keys.check(key));
  }

  private BlobInfo blobInfo(String key) {
    return BlobInfo.newBuilder(blobId(key)).setContentType(CONTENT_TYPE).build();
  }

  // ---- reads

  @Override
  public byte[] read(String key) {
    BlobId id = blobId(key);
    try {
      return storage.readAllBytes(id);
    } catch (RuntimeException e) {
      throw failure("read", key, e, true, true);
    }
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    BlobId id = blobId(key);
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("offset and length must be >= 0, got " + offset + ", " + length);
    }
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
      throw failure("read", key, e, true, true);
    }
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    BlobId id = blobId(key);
    try {
      Blob blob = storage.get(id, BlobGetOption.fields(BlobField.NAME, BlobField.SIZE, BlobField.UPDATED));
      return blob == null ? Optional.empty() : Optional.of(info(key, blob));
    } catch (RuntimeException e) {
      if (statusOf(e) == 404) {
        return Optional.empty();
      }
      throw failure("stat", key, e, true, false);
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
    if (data.length > options.writeThreshold()) {
      try (ObjectWriter writer = openWriter(key)) {
        writer.write(data);
      } catch (IOException e) {
        throw failure("write", key, e, false, false);
      }
      return;
    }
    try {
      storage.create(info, data);
    } catch (RuntimeException e) {
      throw failure("write", key, e, true, false);
    }
  }

  @Override
  public ObjectWriter openWriter(String key) {
    return new GcsWriter(key, blobInfo(key));
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    BlobId id = blobId(key);
    String token = UUID.randomUUID().toString();
    BlobInfo info = BlobInfo.newBuilder(id).setContentType(CONTENT_TYPE).setMetadata(Map.of(PUT_TOKEN, token)).build();
    boolean ambiguous = false;
    for (int attempt = 1; ; attempt++) {
      RuntimeException failure;
      try {
        singleAttempt.create(info, data, BlobTargetOption.doesNotExist());
        return PutResult.CREATED;
      } catch (RuntimeException e) {
        failure = e;
      }
      int status = statusOf(failure);
      if (status == 412) {
        if (!ambiguous) {
          return PutResult.ALREADY_EXISTS;
        }
        // An earlier attempt may have created the object before its answer was lost: ask whose it is.
        Optional<String> owner = putToken(key, id);
        if (owner.isPresent()) {
          return owner.get().equals(token) ? PutResult.CREATED : PutResult.ALREADY_EXISTS;
        }
        // Created by someone and deleted again since: try once more.
      } else if (!isRetryable(failure) || attempt >= options.maxAttempts()) {
        boolean known = !ambiguous && (status == 429 || refusedToConnect(failure));
        RuntimeException mapped = failure("create (if absent)", key, failure, known, false);
        if (!known && isRetryable(failure) && !(mapped instanceof StoreAccessDeniedException)) {
          throw new StoreException(
              mapped.getMessage() + "; after " + attempts(attempt) + " the outcome is unknown (the object may or"
                  + " may not have been created): read the key back to decide", failure, false);
        }
        throw mapped;
      } else if (!(status == 429 || refusedToConnect(failure))) {
        ambiguous = true;
      }
      if (attempt >= options.maxAttempts()) {
        throw new StoreException(
            "could not create " + locationOf(key) + " (if absent) within " + attempts(attempt)
                + ": it was created and deleted concurrently; the outcome is unknown, read the key back", failure);
      }
      backoff(attempt, key);
    }
  }

  private static String attempts(int n) {
    return n + (n == 1 ? " attempt" : " attempts");
  }

  /** The put token of the live object, "" if it has none, or empty if there is no object. */
  private Optional<String> putToken(String key, BlobId id) {
    try {
      Blob blob = storage.get(id, BlobGetOption.fields(BlobField.NAME, BlobField.METADATA));
      if (blob == null) {
        return Optional.empty();
      }
      Map<String, String> metadata = blob.getMetadata();
      String owner = metadata == null ? null : metadata.get(PUT_TOKEN);
      return Optional.of(owner == null ? "" : owner);
    } catch (RuntimeException e) {
      if (statusOf(e) == 404) {
        return Optional.empty();
      }
      throw failure("check the creator of", key, e, false, false);
    }
  }

  private void backoff(int attempt, String key) {
    long cap = Math.min(5_000L, 100L << Math.min(attempt - 1, 10));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(cap / 2, cap + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while retrying a call on " + locationOf(key), e);
    }
  }

  /**
   * Buffers up to the write threshold; beyond it, streams through a resumable upload. Nothing is visible
   * before {@link #close()} finalizes; abort or a failure never finalizes.
   */
  private final class GcsWriter extends ObjectWriter {
    private final String key;
    private final BlobInfo info;
    private final int threshold;
    private byte[] buffer;
    private int count;
    private WriteChannel channel;
    private long position;
    private boolean done;

    GcsWriter(String key, BlobInfo info) {
      this.key = key;
      this.info = info;
      this.threshold = options.writeThreshold();
      this.buffer = new byte[Math.min(threshold, 64 * 1024)];
    }

    @Override
    public void write(int b) {
      ensureOpen();
      if (channel == null && count < buffer.length) {
        buffer[count++] = (byte) b;
        position++;
        return;
      }
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      ensureOpen();
      java.util.Objects.checkFromIndexSize(off, len, b.length);
      if (channel == null && (long) count + len <= threshold) {
        ensureCapacity(count + len);
        System.arraycopy(b, off, buffer, count, len);
        count += len;
        position += len;
        return;
      }
      try {
        if (channel == null) {
          startResumable();
        }
        writeFully(ByteBuffer.wrap(b, off, len));
        position += len;
      } catch (IOException | RuntimeException e) {
        throw fail(e);
      }
    }

    private void ensureCapacity(int needed) {
      if (needed > buffer.length) {
        int size = (int) Math.min(threshold, Math.max(needed, 2L * buffer.length));
        buffer = Arrays.copyOf(buffer, size);
      }
    }

    private void startResumable() throws IOException {
      channel = storage.writer(info);
      resumableUploads.incrementAndGet();
      channel.setChunkSize(options.resumableChunk());
      writeFully(ByteBuffer.wrap(buffer, 0, count));
      buffer = null;
      count = 0;
    }

    private void writeFully(ByteBuffer data) throws IOException {
      while (data.hasRemaining()) {
        channel.write(data);
      }
    }

    @Override
    public void flush() {
      // Nothing is visible before close; a resumable upload sends whole chunks on its own.
    }

    @Override
    public long position() {
      return position;
    }

    @Override
    public void abort() {
      // Never finalizing is the abort: an unfinished resumable upload creates no object.
      done = true;
      channel = null;
      buffer = null;
    }

    @Override
    public void close() {
      if (done) {
        return;
      }
      try {
        if (channel == null) {
          storage.create(info, buffer, 0, count);
        } else {
          channel.close();
        }
        done = true;
        channel = null;
        buffer = null;
      } catch (IOException | RuntimeException e) {
        throw fail(e);
      }
    }

    private StoreException fail(Exception e) {
      abort();
      if (e instanceof StoreException se) {
        return se;
      }
      RuntimeException mapped = failure("write", key, e, false, false);
      return mapped instanceof StoreException se ? se : new StoreException(mapped.getMessage(), e);
    }

    private void ensureOpen() {
      if (done) {
        throw new IllegalStateException("writer for " + locationOf(key) + " is closed");
      }
    }
  }

  // ---- listing

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
    }
    if (prefix == null) {
      throw new InvalidArgumentException("list prefix is null; use \"\" for every key");
    }
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
      throw failure("list", prefix, e, true, false);
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
      if (statusOf(e) != 404) {
        throw failure("delete", key, e, true, false);
      }
    }
  }

  @Override
  public List<String> deleteAll(Collection<String> keys) {
    List<String> all = new ArrayList<>(keys);
    all.forEach(Keys::check);
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
          if (statusOf(e) != 404) {
            failed.add(chunk.get(i));
          }
        }
      }
    }
    return failed;
  }

  // ---- errors

  /** The HTTP status of the first {@link StorageException} in the cause chain, or 0. */
  static int statusOf(Throwable t) {
    StorageException se = storageCause(t);
    return se == null ? 0 : se.getCode();
  }

  private static StorageException storageCause(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof StorageException se && se.getCode() > 0) {
        return se;
      }
    }
    return null;
  }

  private static boolean refusedToConnect(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ConnectException || c instanceof UnknownHostException) {
        return true;
      }
    }
    return false;
  }

  /** Throttling, server errors, timeouts and broken connections: the same call may succeed later. */
  static boolean isRetryable(Throwable t) {
    int status = statusOf(t);
    if (status == 408 || status == 429 || status >= 500) {
      return true;
    }
    if (status != 0) {
      return false;
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Maps an SDK failure onto Quiver's exceptions.
   *
   * @param idempotent whether repeating the call is harmless, so a retryable failure is transient
   * @param notFoundIsObject whether 404 means "no such object" (reads) rather than "no such bucket"
   */
  RuntimeException failure(String action, String key, Throwable e, boolean idempotent, boolean notFoundIsObject) {
    String where = key.isEmpty() ? location : locationOf(key);
    int status = statusOf(e);
    String reason = reason(e, status);
    if (status == 404) {
      if (notFoundIsObject) {
        return new ObjectNotFoundException(locationOf(key));
      }
      return new StoreNotFoundException(
          "could not " + action + " " + where + ": GCS answered 404 (" + reason + "); check that bucket " + bucket
              + " exists and the endpoint is right",
          e);
    }
    if (status == 401 || status == 403) {
      return new StoreAccessDeniedException(
          "GCS refused to " + action + " " + where + " (HTTP " + status + ": " + reason + "); check the"
              + " credentials (" + GcsOptions.CREDENTIALS_FILE + ", " + GcsOptions.OAUTH2_TOKEN
              + " or the application default credentials) and the IAM permissions on bucket " + bucket,
          e);
    }
    if (status == 0 && refusedToConnect(e)) {
      return new StoreUnreachableException(
          "could not " + action + " " + where + ": " + reason + "; check " + GcsOptions.ENDPOINT
              + " and the network, then retry",
          e);
    }
    boolean retryable = isRetryable(e);
    String advice = retryable ? "; the call may succeed if repeated" : "";
    return new StoreException(
        "could not " + action + " " + where + ": " + reason + advice, e, retryable && (idempotent || status == 429));
  }

  private static String reason(Throwable e, int status) {
    StorageException se = storageCause(e);
    Throwable source = se != null ? se : e;
    String message = source.getMessage();
    if (message == null || message.isBlank()) {
      message = source.getClass().getSimpleName();
    } else {
      message = message.strip();
      int nl = message.indexOf('\n');
      if (nl > 0) {
        message = message.substring(0, nl);
      }
      if (message.length() > 300) {
        message = message.substring(0, 300) + "...";
      }
    }
    if (status == 0 && refusedToConnect(e)) {
      return "could not connect (" + message + ")";
    }
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof SocketTimeoutException) {
        return "timed out (" + message + ")";
      }
    }
    return status > 0 ? "HTTP " + status + " " + message : message;
  }

  @Override
  public void close() {
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
