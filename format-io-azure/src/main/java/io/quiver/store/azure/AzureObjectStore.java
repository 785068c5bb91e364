package io.quiver.store.azure;

import com.azure.core.http.rest.PagedResponse;
import com.azure.core.http.rest.Response;
import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.batch.BlobBatch;
import com.azure.storage.blob.batch.BlobBatchClient;
import com.azure.storage.blob.batch.BlobBatchClientBuilder;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.models.DownloadRetryOptions;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.Keys;
import io.quiver.store.ListPage;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link ObjectStore} on one Azure Blob Storage container, rooted at a blob-name prefix: key {@code k} is
 * the block blob {@code prefix/k}.
 *
 * <p>{@link #putIfAbsent} is a Put Blob (or, above {@code azure.max-single-upload-bytes}, a Put Block List
 * after staging blocks) with {@code If-None-Match: *}, which the service evaluates atomically; 409
 * BlobAlreadyExists or 412 means another writer holds the key. Each such upload carries a random token in
 * its metadata, so that a conflict reported to a <em>retry</em> of our own successful request (the first
 * response lost to a timeout) is recognised as our creation, not someone else's.
 *
 * <p>Streaming writers and large writes stage blocks in parallel (at most {@code azure.max-concurrency} in
 * flight per upload) and publish with one Put Block List on close; an aborted or failed writer never
 * commits, and the service discards its uncommitted blocks (after a week at most, or as soon as another
 * upload commits the same blob name). Uncommitted blocks are never listed or readable.
 *
 * <p>Listing: the service lists in UTF-16 code-unit order, which differs from {@link Keys#ORDER} (UTF-8
 * byte order) only between characters U+E000..U+FFFF and those above U+FFFF. Pages are served straight
 * from the service, starting with {@code startFrom}, while every key involved is free of characters at or
 * above U+D800; otherwise the page is computed from a full listing of the prefix, sorted. Blobs whose
 * names are not valid keys, and ADLS Gen2 directory entries, are not listed.
 */
public final class AzureObjectStore implements ObjectStore {
  /** Metadata name of the token that tells this store's conditional uploads apart. */
  static final String PUT_TOKEN = "quiverputid";

  private static final int MAX_LIST_RESULTS = 5000;
  private static final int MAX_BATCH = 256;
  private static final int MAX_BLOCKS = 50_000;
  private static final int PUT_IF_ABSENT_ATTEMPTS = 3;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final AtomicInteger POOL_IDS = new AtomicInteger();

  private final AzureStoreConfig config;
  private final BlobContainerClient container;
  private final ExecutorService executor;
  private volatile BlobBatchClient batchClient;

  AzureObjectStore(AzureStoreConfig config, BlobContainerClient container) {
    this.config = config;
    this.container = container;
    int pool = POOL_IDS.incrementAndGet();
    AtomicInteger threads = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, "quiver-azure-" + pool + "-" + threads.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    this.executor = Executors.newCachedThreadPool(factory);
  }

  @Override
  public String location() {
    return config.location;
  }

  private String blobName(String key) {
    return config.rootPrefix + key;
  }

  private BlobClient blob(String key) {
    return container.getBlobClient(blobName(key));
  }

  // ---- reads

  @Override
  public byte[] read(String key) {
    Keys.check(key);
    try {
      return blob(key).downloadContentWithResponse(retries(), null, null, Context.NONE).getValue().toBytes();
    } catch (RuntimeException e) {
      throw readFailure("read", key, e);
    }
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    Keys.check(key);
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("offset and length must be >= 0, got " + offset + ", " + length);
    }
    if (length == 0) {
      if (head(key).isEmpty()) {
        throw new ObjectNotFoundException(locationOf(key));
      }
      return new byte[0];
    }
    // An end past Long.MAX_VALUE cannot be written in a Range header; read to the end instead.
    BlobRange range = offset > Long.MAX_VALUE - length ? new BlobRange(offset) : new BlobRange(offset, (long) length);
    try {
      return blob(key).downloadContentWithResponse(retries(), null, range, false, null, Context.NONE).getValue().toBytes();
    } catch (RuntimeException e) {
      if (AzureErrors.status(e) == 416) {
        return new byte[0]; // the blob exists (else 404) and ends at or before offset
      }
      throw readFailure("read a range of", key, e);
    }
  }

  private static DownloadRetryOptions retries() {
    return new DownloadRetryOptions().setMaxRetryRequests(3);
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    Keys.check(key);
    try {
      BlobProperties props = blob(key).getPropertiesWithResponse(null, null, Context.NONE).getValue();
      if (isDirectory(props.getMetadata())) {
        return Optional.empty();
      }
      return Optional.of(new ObjectInfo(key, props.getBlobSize(), instant(props.getLastModified())));
    } catch (RuntimeException e) {
      if (AzureErrors.status(e) == 404) {
        return Optional.empty();
      }
      throw AzureErrors.failure("get the properties of", locationOf(key), e, false);
    }
  }

  private RuntimeException readFailure(String action, String key, RuntimeException e) {
    if (AzureErrors.status(e) == 404) {
      return new ObjectNotFoundException(locationOf(key));
    }
    return AzureErrors.failure(action, locationOf(key), e, false);
  }

  /** ADLS Gen2 (hierarchical namespace) accounts show directories as empty blobs marked so. */
  private static boolean isDirectory(Map<String, String> metadata) {
    return metadata != null && "true".equalsIgnoreCase(metadata.get("hdi_isfolder"));
  }

  private static Instant instant(java.time.OffsetDateTime time) {
    return time == null ? Instant.EPOCH : time.toInstant();
  }

  // ---- writes

  @Override
  public void write(String key, byte[] data) {
    Keys.check(key);
    byte[] copy = data.clone();
    BlockBlobClient block = blob(key).getBlockBlobClient();
    try {
      if (copy.length <= config.maxSingleUpload) {
        block.uploadWithResponse(new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(copy)), null, Context.NONE);
      } else {
        List<String> ids = stageAll(block, key, copy);
        block.commitBlockListWithResponse(new BlockBlobCommitBlockListOptions(ids), null, Context.NONE);
      }
    } catch (StoreException e) {
      throw e;
    } catch (RuntimeException e) {
      throw AzureErrors.failure("write", locationOf(key), e, true);
    }
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    Keys.check(key);
    byte[] copy = data.clone();
    boolean staged = copy.length > config.maxSingleUpload;
    String token = UUID.randomUUID().toString();
    BlobClient blob = blob(key);
    BlockBlobClient block = blob.getBlockBlobClient();
    BlobRequestConditions ifAbsent = new BlobRequestConditions().setIfNoneMatch("*");
    Map<String, String> metadata = Map.of(PUT_TOKEN, token);
    for (int attempt = 1; ; attempt++) {
      List<String> ids = null;
      if (staged) {
        try {
          ids = stageAll(block, key, copy);
        } catch (StoreAccessDeniedException e) {
          throw e;
        } catch (StoreException e) {
          // Staged blocks are invisible: nothing was created.
          throw new StoreException(
              "could not create " + locationOf(key) + ": staging its blocks failed (" + e.getMessage() + "); nothing was created",
              e, true);
        }
      }
      AtomicInteger sends = new AtomicInteger();
      try {
        if (staged) {
          // The condition must sit on the commit: staging blocks never creates the blob.
          block.commitBlockListWithResponse(
              new BlockBlobCommitBlockListOptions(ids).setMetadata(metadata).setRequestConditions(ifAbsent),
              null, SendCounter.context(sends));
        } else {
          block.uploadWithResponse(
              new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(copy)).setMetadata(metadata).setRequestConditions(ifAbsent),
              null, SendCounter.context(sends));
        }
        return PutResult.CREATED;
      } catch (RuntimeException e) {
        int status = AzureErrors.status(e);
        if ((status == 409 || status == 412) && sends.get() == 1) {
          return PutResult.ALREADY_EXISTS; // one send: the blob existed before our request
        }
        boolean blocksDiscarded = status == 400 && "InvalidBlockList".equals(AzureErrors.errorCode(e));
        if (status >= 400 && status < 500 && status != 408 && status != 409 && status != 412 && status != 429
            && !blocksDiscarded) {
          throw AzureErrors.failure("create", locationOf(key), e, true); // refused: bad request, denied, no container
        }
        // (No count at all means a pipeline without the counter, e.g. a customised client: assume resends.)
        boolean nothingSent = sends.get() == 1 && AzureErrors.refusedBeforeActing(e);
        if (!nothingSent) {
          // A resend got "exists", or the outcome is unknown: an earlier send may have created the blob.
          // Our token in its metadata decides; a blob without it is another writer's.
          Optional<PutResult> owner;
          try {
            owner = ownerOf(blob, key, token, status == 409 || status == 412);
          } catch (StoreException lookup) {
            e.addSuppressed(lookup);
            throw unknownOutcome(key, e);
          }
          if (owner.isPresent()) {
            return owner.get();
          }
        }
        // Nothing of ours exists (for InvalidBlockList: another upload committed this name in between and so
        // discarded our blocks, then was deleted). Resending with the same token stays safe even if an
        // earlier send is still in flight: the token tells whose creation wins.
        if (attempt < PUT_IF_ABSENT_ATTEMPTS) {
          continue;
        }
        throw nothingSent
            ? AzureErrors.failure("create", locationOf(key), e, true)
            : unknownOutcome(key, e);
      }
    }
  }

  private StoreException unknownOutcome(String key, RuntimeException e) {
    StoreException mapped = AzureErrors.failure("create", locationOf(key), e, true);
    return new StoreException(
        "outcome unknown: " + mapped.getMessage() + "; read the key back to decide", e, false);
  }

  /**
   * Who holds the key after a conditional upload failed: CREATED if the blob carries our token,
   * ALREADY_EXISTS if another token or none, empty if there is no blob (or ALREADY_EXISTS when {@code
   * existed} says the service saw one: it has been deleted since).
   */
  private Optional<PutResult> ownerOf(BlobClient blob, String key, String token, boolean existed) {
    try {
      BlobProperties props = blob.getPropertiesWithResponse(null, null, Context.NONE).getValue();
      Map<String, String> metadata = props.getMetadata();
      return Optional.of(metadata != null && token.equals(metadata.get(PUT_TOKEN)) ? PutResult.CREATED : PutResult.ALREADY_EXISTS);
    } catch (RuntimeException e) {
      if (AzureErrors.status(e) == 404) {
        return existed ? Optional.of(PutResult.ALREADY_EXISTS) : Optional.empty();
      }
      throw AzureErrors.failure("check the owner of", locationOf(key), e, false);
    }
  }

  /** Stages {@code data} as blocks, in parallel, and returns their ids in order. */
  private List<String> stageAll(BlockBlobClient block, String key, byte[] data) {
    BlockStager stager = new BlockStager(block, key);
    try {
      for (int off = 0; off < data.length; off += config.blockSize) {
        int n = Math.min(config.blockSize, data.length - off);
        stager.stage(BinaryData.fromByteBuffer(ByteBuffer.wrap(data, off, n)));
      }
      return stager.awaitAll();
    } finally {
      stager.cancel();
    }
  }

  /** Stages blocks of one upload, at most {@code maxConcurrency} at once; ids are fixed-length and unique. */
  private final class BlockStager {
    private final BlockBlobClient block;
    private final String key;
    private final byte[] uploadId = new byte[16];
    private final List<String> ids = new ArrayList<>();
    private final List<Future<?>> pending = new ArrayList<>();
    private final Semaphore slots = new Semaphore(config.maxConcurrency);
    private volatile RuntimeException failure;

    BlockStager(BlockBlobClient block, String key) {
      this.block = block;
      this.key = key;
      RANDOM.nextBytes(uploadId);
    }

    /** Queues one block, waiting while too many are in flight; throws if an earlier block failed. */
    void stage(BinaryData data) {
      throwIfFailed();
      if (ids.size() >= MAX_BLOCKS) {
        throw new StoreException(
            "could not write " + locationOf(key) + ": more than " + MAX_BLOCKS + " blocks; raise "
                + AzureStoreConfig.BLOCK_SIZE, null);
      }
      String id = blockId(ids.size());
      ids.add(id);
      try {
        slots.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while writing " + locationOf(key), e);
      }
      try {
        pending.add(executor.submit(() -> {
          try {
            if (failure == null) {
              block.stageBlockWithResponse(
                  new com.azure.storage.blob.options.BlockBlobStageBlockOptions(id, data), null, Context.NONE);
            }
          } catch (RuntimeException e) {
            failure = e;
          } finally {
            slots.release();
          }
        }));
      } catch (RuntimeException e) {
        slots.release();
        throw new StoreException("could not write " + locationOf(key) + ": store is closed", e);
      }
    }

    private String blockId(int index) {
      ByteBuffer b = ByteBuffer.allocate(24).put(uploadId).putLong(index);
      return Base64.getEncoder().encodeToString(b.array());
    }

    List<String> awaitAll() {
      for (Future<?> f : pending) {
        try {
          f.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new StoreException("interrupted while writing " + locationOf(key), e);
        } catch (ExecutionException e) {
          failure = new IllegalStateException(e.getCause());
        }
      }
      throwIfFailed();
      return List.copyOf(ids);
    }

    private void throwIfFailed() {
      RuntimeException e = failure;
      if (e != null) {
        throw AzureErrors.failure("upload a block of", locationOf(key), e, true);
      }
    }

    /** Stops staging what has not started; staged blocks stay uncommitted and expire. */
    void cancel() {
      for (Future<?> f : pending) {
        f.cancel(false);
      }
    }
  }

  @Override
  public ObjectWriter openWriter(String key) {
    Keys.check(key);
    return new BlockWriter(key);
  }

  /**
   * Buffers up to {@code maxSingleUpload} bytes; a small object is one Put Blob on close. Past that, full
   * blocks are staged in the background as they fill and close commits the block list.
   */
  private final class BlockWriter extends ObjectWriter {
    private final String key;
    private final BlockBlobClient block;
    /** Full blocks not yet staged (only while the total may still fit one Put Blob). */
    private final List<byte[]> held = new ArrayList<>();
    private byte[] current;
    private int fill;
    private long position;
    private BlockStager stager;
    private boolean done;

    BlockWriter(String key) {
      this.key = key;
      this.block = blob(key).getBlockBlobClient();
      this.current = new byte[Math.min(config.blockSize, 64 * 1024)];
    }

    @Override
    public void write(int b) {
      ensureOpen();
      if (fill < current.length) {
        current[fill++] = (byte) b;
        position++;
      } else {
        write(new byte[] {(byte) b}, 0, 1);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) {
      ensureOpen();
      java.util.Objects.checkFromIndexSize(off, len, b.length);
      try {
        while (len > 0) {
          if (fill == current.length) {
            if (current.length < config.blockSize) {
              current = Arrays.copyOf(current, (int) Math.min(config.blockSize, 2L * current.length));
            } else {
              blockFull();
            }
          }
          int n = Math.min(len, current.length - fill);
          System.arraycopy(b, off, current, fill, n);
          fill += n;
          off += n;
          len -= n;
          position += n;
        }
      } catch (RuntimeException e) {
        abort();
        throw e;
      }
    }

    /** {@code current} holds a full block: hold it, or stage it once the object is too big for one put. */
    private void blockFull() {
      held.add(current);
      current = new byte[config.blockSize];
      fill = 0;
      if (stager == null && position > config.maxSingleUpload) {
        stager = new BlockStager(block, key);
      }
      if (stager != null) {
        for (byte[] full : held) {
          stager.stage(BinaryData.fromBytes(full));
        }
        held.clear();
      }
    }

    private void ensureOpen() {
      if (done) {
        throw new IllegalStateException("writer for " + locationOf(key) + " is closed");
      }
    }

    @Override
    public void flush() {
      // Nothing is visible before close.
    }

    @Override
    public long position() {
      return position;
    }

    @Override
    public void abort() {
      if (!done) {
        done = true;
        if (stager != null) {
          stager.cancel();
        }
        held.clear();
        current = null;
      }
    }

    @Override
    public void close() {
      if (done) {
        return;
      }
      done = true;
      try {
        if (stager == null && position <= config.maxSingleUpload) {
          byte[] all = new byte[(int) position];
          int at = 0;
          for (byte[] full : held) {
            System.arraycopy(full, 0, all, at, full.length);
            at += full.length;
          }
          System.arraycopy(current, 0, all, at, fill);
          block.uploadWithResponse(new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(all)), null, Context.NONE);
          return;
        }
        if (stager == null) {
          stager = new BlockStager(block, key);
        }
        for (byte[] full : held) {
          stager.stage(BinaryData.fromBytes(full));
        }
        held.clear();
        if (fill > 0) {
          stager.stage(BinaryData.fromByteBuffer(ByteBuffer.wrap(current, 0, fill)));
        }
        List<String> ids = stager.awaitAll();
        block.commitBlockListWithResponse(new BlockBlobCommitBlockListOptions(ids), null, Context.NONE);
      } catch (StoreException e) {
        cleanup();
        throw e;
      } catch (RuntimeException e) {
        cleanup();
        throw AzureErrors.failure("write", locationOf(key), e, true);
      } finally {
        held.clear();
        current = null;
      }
    }

    private void cleanup() {
      if (stager != null) {
        stager.cancel();
      }
    }
  }

  // ---- listing

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
    }
    String after = startAfter.orElse(null);
    if (after != null && !after.startsWith(prefix)) {
      if (Keys.compare(after, prefix) > 0) {
        return new ListPage(List.of(), false); // every key under the prefix sorts before startAfter
      }
      after = null;
    }
    try {
      if (after == null || !hasHighChar(after, prefix.length())) {
        ListPage page = servicePage(prefix, after, maxKeys);
        if (page != null) {
          return page;
        }
      }
      return sortedPage(prefix, after, maxKeys);
    } catch (RuntimeException e) {
      throw AzureErrors.failure("list", locationOf(prefix), e, false);
    }
  }

  /**
   * Whether a key holds, past {@code from}, a char at or above U+D800: the only chars whose UTF-16 order
   * (the service's) differs from code point order ({@link Keys#ORDER}).
   */
  private static boolean hasHighChar(String key, int from) {
    for (int i = from; i < key.length(); i++) {
      if (key.charAt(i) >= '\uD800') {
        return true;
      }
    }
    return false;
  }

  /**
   * A page in service order, or null if a key on it has a high char (then service order may be wrong).
   * Correct when {@code after} has no high char: such a key compares the same way in both orders with
   * every other key, so the keys the service returns after it are exactly the next ones in {@link Keys#ORDER}.
   */
  private ListPage servicePage(String prefix, String after, int maxKeys) {
    ListBlobsOptions options = new ListBlobsOptions()
        .setPrefix(config.rootPrefix + prefix)
        .setMaxResultsPerPage((int) Math.min(MAX_LIST_RESULTS, maxKeys + 2L))
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    if (after != null) {
      options.setStartFrom(config.rootPrefix + after); // inclusive; keys <= after are dropped below
    }
    List<ObjectInfo> page = new ArrayList<>();
    for (PagedResponse<BlobItem> response : container.listBlobs(options, null).iterableByPage()) {
      for (BlobItem item : response.getValue()) {
        ObjectInfo info = info(item);
        if (info == null || (after != null && Keys.compare(info.key(), after) <= 0)) {
          continue;
        }
        if (page.size() == maxKeys) {
          return new ListPage(page, true);
        }
        if (hasHighChar(info.key(), prefix.length())) {
          return null;
        }
        page.add(info);
      }
    }
    return new ListPage(page, false);
  }

  /** A page cut from the whole listing of the prefix, sorted in {@link Keys#ORDER}. */
  private ListPage sortedPage(String prefix, String after, int maxKeys) {
    ListBlobsOptions options = new ListBlobsOptions()
        .setPrefix(config.rootPrefix + prefix)
        .setMaxResultsPerPage(MAX_LIST_RESULTS)
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    List<ObjectInfo> all = new ArrayList<>();
    for (BlobItem item : container.listBlobs(options, null)) {
      ObjectInfo info = info(item);
      if (info != null && (after == null || Keys.compare(info.key(), after) > 0)) {
        all.add(info);
      }
    }
    all.sort((a, b) -> Keys.compare(a.key(), b.key()));
    return all.size() > maxKeys ? new ListPage(all.subList(0, maxKeys), true) : new ListPage(all, false);
  }

  /** The listed object of a blob, or null for directories and names outside the key rules. */
  private ObjectInfo info(BlobItem item) {
    if (Boolean.TRUE.equals(item.isPrefix()) || isDirectory(item.getMetadata()) || !item.getName().startsWith(config.rootPrefix)) {
      return null;
    }
    String key = item.getName().substring(config.rootPrefix.length());
    if (!Keys.isValid(key)) {
      return null;
    }
    Long size = item.getProperties() == null ? null : item.getProperties().getContentLength();
    return new ObjectInfo(key, size == null ? 0 : size, instant(item.getProperties() == null ? null : item.getProperties().getLastModified()));
  }

  // ---- deletes

  @Override
  public void delete(String key) {
    Keys.check(key);
    try {
      blob(key).deleteIfExistsWithResponse(DeleteSnapshotsOptionType.INCLUDE, null, null, Context.NONE);
    } catch (RuntimeException e) {
      if (AzureErrors.status(e) == 404) {
        return; // e.g. the container is gone: the key is absent either way
      }
      throw AzureErrors.failure("delete", locationOf(key), e, true);
    }
  }

  /**
   * Deletes with Blob Batch requests of up to 256 keys; when the service refuses a batch as a whole (some
   * account kinds and SAS scopes do not allow batches) those keys are deleted one by one, in parallel.
   */
  @Override
  public List<String> deleteAll(Collection<String> keys) {
    List<String> all = new ArrayList<>(keys);
    for (String key : all) {
      Keys.check(key);
    }
    List<String> failed = new ArrayList<>();
    for (int from = 0; from < all.size(); from += MAX_BATCH) {
      List<String> chunk = all.subList(from, Math.min(all.size(), from + MAX_BATCH));
      failed.addAll(deleteBatch(chunk));
    }
    return failed;
  }

  private List<String> deleteBatch(List<String> keys) {
    if (keys.size() == 1) {
      return deleteEach(keys);
    }
    BlobBatchClient client = batchClient();
    BlobBatch batch = client.getBlobBatch();
    List<Response<Void>> responses = new ArrayList<>();
    for (String key : keys) {
      responses.add(batch.deleteBlob(blob(key).getBlobUrl(), DeleteSnapshotsOptionType.INCLUDE, null));
    }
    try {
      client.submitBatchWithResponse(batch, false, null, Context.NONE);
    } catch (RuntimeException e) {
      return deleteEach(keys);
    }
    List<String> retry = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      int status;
      try {
        status = responses.get(i).getStatusCode();
      } catch (RuntimeException e) {
        status = AzureErrors.status(e);
      }
      if (status / 100 != 2 && status != 404) {
        retry.add(keys.get(i));
      }
    }
    return retry.isEmpty() ? List.of() : deleteEach(retry);
  }

  /** Deletes one by one, {@code maxConcurrency} at a time; returns the keys that could not be deleted. */
  private List<String> deleteEach(List<String> keys) {
    List<Future<Boolean>> results = new ArrayList<>();
    Semaphore slots = new Semaphore(config.maxConcurrency);
    for (String key : keys) {
      try {
        slots.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      results.add(executor.submit(() -> {
        try {
          delete(key);
          return true;
        } catch (StoreException e) {
          return false;
        } finally {
          slots.release();
        }
      }));
    }
    List<String> failed = new ArrayList<>();
    Iterator<String> names = keys.iterator();
    for (Future<Boolean> result : results) {
      String key = names.next();
      try {
        if (!result.get()) {
          failed.add(key);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failed.add(key);
      } catch (ExecutionException e) {
        failed.add(key);
      }
    }
    while (names.hasNext()) {
      failed.add(names.next());
    }
    return failed;
  }

  private BlobBatchClient batchClient() {
    BlobBatchClient client = batchClient;
    if (client == null) {
      client = new BlobBatchClientBuilder(container).buildClient();
      batchClient = client;
    }
    return client;
  }

  @Override
  public void close() {
    executor.shutdown();
  }

  @Override
  public String toString() {
    return "AzureObjectStore[" + config.location + "]";
  }
}
