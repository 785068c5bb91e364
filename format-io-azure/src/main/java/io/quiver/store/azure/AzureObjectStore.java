package io.quiver.store.azure;

import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpPipelinePosition;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
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
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreAccessDeniedException;
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
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * {@link ObjectStore} on one Azure Blob Storage container, rooted at a blob-name prefix: key {@code k} is
 * the block blob {@code prefix/k}.
 *
 * <p>{@link #putIfAbsent} is a Put Blob (or, above {@code azure.max-single-upload-bytes}, a Put Block List
 * after staging blocks) with {@code If-None-Match: *}, which the service evaluates atomically; 409
 * BlobAlreadyExists or 412 means another writer holds the key. It is sent on a client without SDK retries
 * and carries a random token in its metadata ({@value ConditionalPut#TOKEN_METADATA_KEY}); {@link
 * ConditionalPut} resends it and decides an "exists" after an ambiguous attempt by that token, so that a
 * conflict reported to a resend of our own successful request (the first response lost to a timeout) is
 * recognised as our creation, not someone else's. A {@link SendCounter} in the pipeline still tells a
 * resend apart should a customised client retry anyway.
 *
 * <p>Streaming writers ({@link AzureObjectWriter}) and large writes stage blocks in parallel (at most {@code azure.max-concurrency} in
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
  private static final int MAX_LIST_RESULTS = 5000;
  private static final int MAX_BATCH = 256;
  private static final AtomicInteger POOL_IDS = new AtomicInteger();

  private final AzureStoreOptions options;
  private final BlobContainerClient container;
  /** The same container through a pipeline without retries: for conditional creates, decided here. */
  private final BlobContainerClient conditional;
  private final ExecutorService executor;
  private final ExecutorService reads;
  private volatile BlobBatchClient batchClient;

  AzureObjectStore(AzureStoreOptions options, BlobContainerClient container, BlobContainerClient conditional) {
    this.options = options;
    this.container = container;
    this.conditional = conditional;
    // Grows with demand: every upload and batch bounds its own tasks (azure.max-concurrency).
    int pool = POOL_IDS.incrementAndGet();
    this.executor = StoreThreads.elastic("quiver-azure-" + pool);
    this.reads = StoreThreads.bounded("quiver-azure-read-" + pool, options.readParallelism());
  }

  @Override
  public String location() {
    return options.location();
  }

  /** The settings this store was opened with (without secrets in its {@code toString}). */
  public AzureStoreOptions options() {
    return options;
  }

  private String blobName(String key) {
    return options.rootPrefix() + key;
  }

  private BlobClient blob(String key) {
    return container.getBlobClient(blobName(key));
  }

  AzureObjectWriter.BlockStager stager(BlockBlobClient block, String key) {
    return new AzureObjectWriter.BlockStager(block, location(), key, executor, options.maxConcurrency());
  }

  // ---- reads

  @Override
  public byte[] read(String key) {
    StoreArgs.key(key);
    try {
      return blob(key).downloadContentWithResponse(retries(), null, null, Context.NONE).getValue().toBytes();
    } catch (RuntimeException e) {
      throw readFailure("read", key, e);
    }
  }

  /**
   * {@link FetchTuning#CLOUD}: a Azure request costs tens of milliseconds before its first byte, so scans merge
   * wanted ranges up to 1 MiB apart and keep 8 requests in flight per fragment reader.
   */
  @Override
  public FetchTuning fetchTuning() {
    return FetchTuning.CLOUD;
  }

  /** Parallel ranged downloads, at most {@value AzureStoreOptions#READ_PARALLELISM} at once for this store. */
  @Override
  public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    return ParallelRanges.read(this, reads, key, ranges);
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    StoreArgs.key(key);
    StoreArgs.range(offset, length);
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
    StoreArgs.key(key);
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
      throw AzureErrors.failure(Call.READ, "get the properties of", location(), key, e);
    }
  }

  private RuntimeException readFailure(String action, String key, RuntimeException e) {
    if (AzureErrors.status(e) == 404) {
      return new ObjectNotFoundException(locationOf(key));
    }
    return AzureErrors.failure(Call.READ, action, location(), key, e);
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
    StoreArgs.key(key);
    StoreArgs.data(key, data);
    byte[] copy = data.clone();
    BlockBlobClient block = blob(key).getBlockBlobClient();
    try {
      if (copy.length <= options.maxSingleUpload()) {
        block.uploadWithResponse(new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(copy)), null, Context.NONE);
      } else {
        List<String> ids = stageAll(block, key, copy);
        block.commitBlockListWithResponse(new BlockBlobCommitBlockListOptions(ids), null, Context.NONE);
      }
    } catch (StoreException e) {
      throw e;
    } catch (RuntimeException e) {
      throw AzureErrors.failure(Call.WRITE, "write", location(), key, e);
    }
  }

  /** Staging the blocks of a conditional create failed: blocks are invisible, so nothing was created. */
  private static final class StagingFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StagingFailed(StoreException cause) {
      super(cause);
    }

    StoreException store() {
      return (StoreException) getCause();
    }
  }

  /** A failure after the SDK sent the call more than once: an earlier send may have acted. */
  private static final class AfterResend extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AfterResend(RuntimeException cause) {
      super(cause);
    }
  }

  /** Sends of one conditional put: {@code 1 + azure.max-retries}, at least 3. */
  private int conditionalAttempts() {
    return Math.max(3, 1 + options.maxRetries());
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    StoreArgs.key(key);
    StoreArgs.data(key, data);
    byte[] copy = data.clone();
    boolean staged = copy.length > options.maxSingleUpload();
    BlobClient blob = blob(key);
    BlockBlobClient stagingBlock = blob.getBlockBlobClient();
    BlockBlobClient conditionalBlock = conditional.getBlobClient(blobName(key)).getBlockBlobClient();
    BlobRequestConditions ifAbsent = new BlobRequestConditions().setIfNoneMatch("*");
    Backoff backoff = Backoff.of(options.retryDelay(), options.maxRetryDelay());
    return new ConditionalPut(location(), key, conditionalAttempts(), backoff).run(new ConditionalPut.Store() {
      @Override
      public ConditionalPut.Answer send(String token) {
        Map<String, String> metadata = Map.of(ConditionalPut.TOKEN_METADATA_KEY, token);
        List<String> ids = null;
        if (staged) {
          try {
            ids = stageAll(stagingBlock, key, copy);
          } catch (StoreException e) {
            throw new StagingFailed(e);
          }
        }
        AtomicInteger sends = new AtomicInteger();
        try {
          if (staged) {
            // The condition must sit on the commit: staging blocks never creates the blob.
            conditionalBlock.commitBlockListWithResponse(
                new BlockBlobCommitBlockListOptions(ids).setMetadata(metadata).setRequestConditions(ifAbsent),
                null, SendCounter.context(sends));
          } else {
            conditionalBlock.uploadWithResponse(
                new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(copy)).setMetadata(metadata)
                    .setRequestConditions(ifAbsent),
                null, SendCounter.context(sends));
          }
          return ConditionalPut.Answer.CREATED;
        } catch (RuntimeException e) {
          int status = AzureErrors.status(e);
          if (status == 409 || status == 412) {
            // One send: the blob existed before our request. No count at all means a pipeline without the
            // counter (a customised client): assume resends.
            return sends.get() == 1 ? ConditionalPut.Answer.EXISTS : ConditionalPut.Answer.EXISTS_AFTER_RESEND;
          }
          throw sends.get() == 1 ? e : new AfterResend(e);
        }
      }

      @Override
      public Optional<String> liveToken() {
        try {
          BlobProperties props = blob.getPropertiesWithResponse(null, null, Context.NONE).getValue();
          Map<String, String> metadata = props.getMetadata();
          String owner = metadata == null ? null : metadata.get(ConditionalPut.TOKEN_METADATA_KEY);
          return Optional.of(owner == null ? "" : owner);
        } catch (RuntimeException e) {
          if (AzureErrors.status(e) == 404) {
            return Optional.empty();
          }
          throw e;
        }
      }

      @Override
      public Failure classify(RuntimeException failure) {
        if (failure instanceof StagingFailed f) {
          // Staged blocks are invisible: nothing was created, unless access itself is the problem.
          return f.store() instanceof StoreAccessDeniedException ? Failure.ACCESS_DENIED : Failure.REFUSED;
        }
        if (failure instanceof AfterResend) {
          return Failure.TRANSIENT;
        }
        if (AzureErrors.status(failure) == 400 && "InvalidBlockList".equals(AzureErrors.errorCode(failure))) {
          // A racing commit of this name discarded our staged blocks: nothing of ours exists; stage again.
          return Failure.REFUSED;
        }
        Failure kind = AzureErrors.classify(failure);
        if (kind == Failure.REFUSED) {
          // 429 or 503 ("server busy") to a Put Blob / Put Block List may come after the service applied it:
          // doubt, settled by the token if a resend answers 409.
          return Failure.TRANSIENT;
        }
        return kind == Failure.NOT_FOUND ? Failure.PERMANENT : kind;
      }

      @Override
      public QuiverException toException(RuntimeException failure) {
        if (failure instanceof StagingFailed f) {
          StoreException e = f.store();
          return e instanceof StoreAccessDeniedException ? e : new StoreException(
              "could not create " + locationOf(key) + ": staging its blocks failed (" + e.getMessage()
                  + "); nothing was created", e, true);
        }
        return AzureErrors.failure(Call.CREATE, "create", location(), key, failure);
      }

      @Override
      public String describe(RuntimeException failure) {
        return failure instanceof StagingFailed f ? f.store().getMessage() : AzureErrors.describe(failure);
      }
    });
  }

  /** Stages {@code data} as blocks, in parallel, and returns their ids in order. */
  private List<String> stageAll(BlockBlobClient block, String key, byte[] data) {
    AzureObjectWriter.BlockStager stager = stager(block, key);
    try {
      for (int off = 0; off < data.length; off += options.blockSize()) {
        int n = Math.min(options.blockSize(), data.length - off);
        stager.stage(BinaryData.fromByteBuffer(ByteBuffer.wrap(data, off, n)));
      }
      return stager.awaitAll();
    } finally {
      stager.cancel();
    }
  }

  @Override
  public ObjectWriter openWriter(String key) {
    StoreArgs.key(key);
    return new AzureObjectWriter(this, key, blob(key).getBlockBlobClient());
  }

  // ---- listing

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    StoreArgs.list(prefix, startAfter, maxKeys);
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
      throw AzureErrors.failure(Call.READ, "list", location(), prefix, e);
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
    ListBlobsOptions listing = new ListBlobsOptions()
        .setPrefix(options.rootPrefix() + prefix)
        .setMaxResultsPerPage((int) Math.min(MAX_LIST_RESULTS, maxKeys + 2L))
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    if (after != null) {
      listing.setStartFrom(options.rootPrefix() + after); // inclusive; keys <= after are dropped below
    }
    List<ObjectInfo> page = new ArrayList<>();
    for (PagedResponse<BlobItem> response : container.listBlobs(listing, null).iterableByPage()) {
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
    ListBlobsOptions listing = new ListBlobsOptions()
        .setPrefix(options.rootPrefix() + prefix)
        .setMaxResultsPerPage(MAX_LIST_RESULTS)
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    List<ObjectInfo> all = new ArrayList<>();
    for (BlobItem item : container.listBlobs(listing, null)) {
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
    if (Boolean.TRUE.equals(item.isPrefix()) || isDirectory(item.getMetadata()) || !item.getName().startsWith(options.rootPrefix())) {
      return null;
    }
    String key = item.getName().substring(options.rootPrefix().length());
    if (!Keys.isValid(key)) {
      return null;
    }
    Long size = item.getProperties() == null ? null : item.getProperties().getContentLength();
    return new ObjectInfo(key, size == null ? 0 : size, instant(item.getProperties() == null ? null : item.getProperties().getLastModified()));
  }

  // ---- deletes

  @Override
  public void delete(String key) {
    StoreArgs.key(key);
    try {
      blob(key).deleteIfExistsWithResponse(DeleteSnapshotsOptionType.INCLUDE, null, null, Context.NONE);
    } catch (RuntimeException e) {
      if (AzureErrors.status(e) == 404) {
        return; // e.g. the container is gone: the key is absent either way
      }
      throw AzureErrors.failure(Call.WRITE, "delete", location(), key, e);
    }
  }

  /**
   * Deletes with Blob Batch requests of up to 256 keys; when the service refuses a batch as a whole (some
   * account kinds and SAS scopes do not allow batches) those keys are deleted one by one, in parallel.
   */
  @Override
  public List<String> deleteAll(Collection<String> keys) {
    List<String> all = StoreArgs.keys(keys); // every key is checked before any is deleted
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
    Semaphore slots = new Semaphore(options.maxConcurrency());
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
    reads.shutdown();
  }

  @Override
  public String toString() {
    return "AzureObjectStore[" + options.location() + "]";
  }

  /**
   * Counts how many times the SDK sent one call (a retry policy may resend), when the call's {@link Context}
   * carries a counter under {@link #KEY}. A conditional create that got "already exists" on its first send
   * lost the race; on a resend it may be answering to our own earlier, successful send.
   */
  static final class SendCounter implements HttpPipelinePolicy {
    static final String KEY = "quiver-send-counter";

    static Context context(AtomicInteger counter) {
      return new Context(KEY, counter);
    }

    private static void count(HttpPipelineCallContext context) {
      context.getData(KEY).ifPresent(c -> ((AtomicInteger) c).incrementAndGet());
    }

    @Override
    public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
      count(context);
      return next.process();
    }

    @Override
    public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
      count(context);
      return next.processSync();
    }

    @Override
    public HttpPipelinePosition getPipelinePosition() {
      return HttpPipelinePosition.PER_RETRY;
    }
  }
}
