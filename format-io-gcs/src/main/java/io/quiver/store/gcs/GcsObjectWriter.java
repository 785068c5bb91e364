package io.quiver.store.gcs;

import com.google.cloud.WriteChannel;
import com.google.cloud.storage.BlobInfo;
import io.quiver.exceptions.StoreException;
import io.quiver.store.support.Failure.Call;
import io.quiver.store.support.StreamingObjectWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Streaming upload to GCS. Buffers up to {@link GcsStoreOptions#writeThreshold()} bytes and then sends one
 * request on close; past the threshold, streams through a resumable upload in {@link
 * GcsStoreOptions#resumableChunk()} pieces (GCS takes a session's chunks in order, one at a time). Nothing
 * is visible before {@link #close()} finalizes; abort or a failure never finalizes, so no object appears and
 * an existing one is left untouched (GCS discards the unfinished session after a week; the SDK has no call
 * to cancel it).
 */
final class GcsObjectWriter extends StreamingObjectWriter {
  private final GcsObjectStore store;
  private final String key;
  private final BlobInfo info;
  private final int threshold;
  private byte[] buffer;
  private int count;
  private WriteChannel channel;

  GcsObjectWriter(GcsObjectStore store, String key, BlobInfo info) {
    super(store.locationOf(key));
    this.store = store;
    this.key = key;
    this.info = info;
    this.threshold = store.options().writeThreshold();
    this.buffer = new byte[Math.min(threshold, 64 * 1024)];
  }

  @Override
  protected void append(byte[] b, int off, int len) {
    if (channel == null && (long) count + len <= threshold) {
      ensureCapacity(count + len);
      System.arraycopy(b, off, buffer, count, len);
      count += len;
      return;
    }
    try {
      if (channel == null) {
        startResumable();
      }
      writeFully(ByteBuffer.wrap(b, off, len));
    } catch (IOException | RuntimeException e) {
      throw failure(e);
    }
  }

  private void ensureCapacity(int needed) {
    if (needed > buffer.length) {
      int size = (int) Math.min(threshold, Math.max(needed, 2L * buffer.length));
      buffer = Arrays.copyOf(buffer, size);
    }
  }

  private void startResumable() throws IOException {
    channel = store.storage().writer(info);
    store.resumableUploadStarted();
    channel.setChunkSize(store.options().resumableChunk());
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
  protected void publish() {
    try {
      if (channel == null) {
        store.storage().create(info, buffer, 0, count);
      } else {
        channel.close();
      }
    } catch (IOException | RuntimeException e) {
      throw failure(e);
    }
    channel = null;
    buffer = null;
  }

  @Override
  protected void discard() {
    // Never finalizing is the abort: an unfinished resumable upload creates no object.
    channel = null;
    buffer = null;
  }

  private StoreException failure(Exception e) {
    return e instanceof StoreException se ? se
        : GcsErrors.mapStore(Call.WRITE, "write", store.location(), store.bucket(), key, e);
  }
}
