package io.quiver.store.azure;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.options.BlockBlobStageBlockOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
import io.quiver.exceptions.StoreException;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import io.quiver.store.support.StreamingObjectWriter;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * Streaming upload to a block blob. Buffers up to {@code azure.max-single-upload-bytes}; a small object is
 * one Put Blob on close. Past that, full blocks are staged in the background as they fill ({@link
 * BlockStager}, at most {@code azure.max-concurrency} in flight) and close commits the block list, which
 * publishes the blob whole. Abort or a failure never commits: staged blocks stay invisible and the service
 * discards them.
 */
final class AzureObjectWriter extends StreamingObjectWriter {
  private final AzureObjectStore store;
  private final String key;
  private final BlockBlobClient block;
  private final int blockSize;
  private final int maxSingleUpload;
  /** Full blocks not yet staged (only while the total may still fit one Put Blob). */
  private final List<byte[]> held = new ArrayList<>();
  private byte[] current;
  private int fill;
  private long written;
  private BlockStager stager;

  AzureObjectWriter(AzureObjectStore store, String key, BlockBlobClient block) {
    super(store.locationOf(key));
    this.store = store;
    this.key = key;
    this.block = block;
    this.blockSize = store.options().blockSize();
    this.maxSingleUpload = store.options().maxSingleUpload();
    this.current = new byte[Math.min(blockSize, 64 * 1024)];
  }

  @Override
  protected void append(byte[] b, int off, int len) {
    while (len > 0) {
      if (fill == current.length) {
        if (current.length < blockSize) {
          current = Arrays.copyOf(current, (int) Math.min(blockSize, 2L * current.length));
        } else {
          blockFull();
        }
      }
      int n = Math.min(len, current.length - fill);
      System.arraycopy(b, off, current, fill, n);
      fill += n;
      off += n;
      len -= n;
      written += n;
    }
  }

  /** {@code current} holds a full block: hold it, or stage it once the object is too big for one put. */
  private void blockFull() {
    held.add(current);
    current = new byte[blockSize];
    fill = 0;
    if (stager == null && written > maxSingleUpload) {
      stager = store.stager(block, key);
    }
    if (stager != null) {
      for (byte[] full : held) {
        stager.stage(BinaryData.fromBytes(full));
      }
      held.clear();
    }
  }

  @Override
  protected void publish() {
    try {
      if (stager == null && written <= maxSingleUpload) {
        byte[] all = new byte[(int) written];
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
        stager = store.stager(block, key);
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
      throw e;
    } catch (RuntimeException e) {
      throw AzureErrors.failure(Call.WRITE, "write", store.location(), key, e);
    } finally {
      held.clear();
      current = null;
    }
  }

  @Override
  protected void discard() {
    if (stager != null) {
      stager.cancel();
    }
    held.clear();
    current = null;
  }

  /** Stages the blocks of one upload, at most {@code maxConcurrency} at once; ids are fixed-length and unique. */
  static final class BlockStager {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int MAX_BLOCKS = 50_000;

    private final BlockBlobClient block;
    private final String location;
    private final String key;
    private final ExecutorService executor;
    private final byte[] uploadId = new byte[16];
    private final List<String> ids = new ArrayList<>();
    private final List<Future<?>> pending = new ArrayList<>();
    private final Semaphore slots;
    private volatile RuntimeException failure;

    /** @param location the store's location, for messages */
    BlockStager(BlockBlobClient block, String location, String key, ExecutorService executor, int maxConcurrency) {
      this.block = block;
      this.location = location;
      this.key = key;
      this.executor = executor;
      this.slots = new Semaphore(maxConcurrency);
      RANDOM.nextBytes(uploadId);
    }

    /** Queues one block, waiting while too many are in flight; throws if an earlier block failed. */
    void stage(BinaryData data) {
      throwIfFailed();
      if (ids.size() >= MAX_BLOCKS) {
        throw Failure.PERMANENT.storeException(Call.WRITE, "write", location, key,
            "it needs more than " + MAX_BLOCKS + " blocks", "raise " + AzureStoreOptions.BLOCK_SIZE, null);
      }
      String id = blockId(ids.size());
      ids.add(id);
      try {
        slots.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while writing " + Failure.join(location, key) + "; nothing was published",
            e, true);
      }
      try {
        pending.add(executor.submit(() -> {
          try {
            if (failure == null) {
              block.stageBlockWithResponse(new BlockBlobStageBlockOptions(id, data), null, Context.NONE);
            }
          } catch (RuntimeException e) {
            failure = e;
          } finally {
            slots.release();
          }
        }));
      } catch (RuntimeException e) {
        slots.release();
        throw Failure.PERMANENT.storeException(Call.WRITE, "write", location, key, "the store is closed", "", e);
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
          throw new StoreException("interrupted while writing " + Failure.join(location, key) + "; nothing was published",
              e, true);
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
        throw AzureErrors.failure(Call.WRITE, "upload a block of", location, key, e);
      }
    }

    /** Stops staging what has not started; staged blocks stay uncommitted and expire. */
    void cancel() {
      for (Future<?> f : pending) {
        f.cancel(false);
      }
    }
  }
}
