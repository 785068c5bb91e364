package io.quiver.store.s3;

import io.quiver.exceptions.StoreException;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import io.quiver.store.support.StreamingObjectWriter;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Streaming upload to S3. Bytes are buffered until the object outgrows the multipart threshold; then a
 * multipart upload is started and each full part is handed to the store's upload pool, at most {@code
 * parallelism} parts of this writer at once (the producer blocks beyond that, which bounds memory to about
 * {@code (parallelism + 1) * partSize} plus the threshold). Close uploads the rest and completes the
 * upload, which makes the object appear whole; abort or any failure aborts it, so nothing is published
 * and no parts are left billed. Not thread-safe, like any {@link java.io.OutputStream}.
 */
final class S3ObjectWriter extends StreamingObjectWriter {
  private static final Logger LOG = LoggerFactory.getLogger(S3ObjectWriter.class);
  /** First buffer size; buffers double up to the part size, so small objects stay small. */
  private static final int INITIAL_BUFFER = 64 * 1024;
  /** S3's most parts per upload. */
  private static final int MAX_PARTS = 10_000;

  private final S3ObjectStore store;
  private final S3Client client;
  private final String key;
  private final String objectKey;
  private final long threshold;
  private final int partSize;
  private final boolean partChecksums;
  private final Semaphore inFlight;

  /** Full parts not yet uploaded (only before the multipart upload starts). */
  private final List<byte[]> held = new ArrayList<>();
  private byte[] current = new byte[0];
  private int fill;
  /** Bytes taken so far (the base class's position counts only after each append returns). */
  private long written;

  private String uploadId;
  private int nextPart = 1;
  private final List<Future<CompletedPart>> parts = new ArrayList<>();
  private volatile SdkException partFailure;

  S3ObjectWriter(S3ObjectStore store, String key, String objectKey) {
    super(store.locationOf(key));
    this.store = store;
    this.client = store.client();
    this.key = key;
    this.objectKey = objectKey;
    this.threshold = store.options().multipartThreshold();
    this.partSize = store.options().partSize();
    this.partChecksums = !store.options().checksumWhenRequiredOnly();
    this.inFlight = new Semaphore(store.options().parallelism());
  }

  @Override
  protected void append(byte[] b, int off, int len) {
    while (len > 0) {
      if (fill == current.length) {
        growOrHandOn();
      }
      int n = Math.min(len, current.length - fill);
      System.arraycopy(b, off, current, fill, n);
      fill += n;
      off += n;
      len -= n;
      written += n;
    }
  }

  /** The buffer is full: grow it, or hand it on as a finished part. */
  private void growOrHandOn() {
    if (current.length < partSize) {
      int size = (int) Math.min(partSize, Math.max(INITIAL_BUFFER, 2L * current.length));
      current = java.util.Arrays.copyOf(current, size);
      return;
    }
    byte[] part = current;
    // The object already fills a part, so the next buffer starts at full size instead of growing again.
    current = new byte[partSize];
    fill = 0;
    if (uploadId == null && written <= threshold) {
      held.add(part);
      return;
    }
    startMultipart();
    submit(part, part.length);
  }

  @Override
  protected void publish() {
    if (uploadId == null && written <= threshold) {
      putWhole();
    } else {
      startMultipart();
      if (fill > 0 || nextPart == 1) {
        submit(current, fill);
      }
      current = null;
      complete();
    }
  }

  private void putWhole() {
    byte[] last = current;
    int lastFill = fill;
    long length = written;
    List<byte[]> parts = List.copyOf(held);
    RequestBody body = RequestBody.fromContentProvider(() -> {
      List<InputStream> streams = new ArrayList<>();
      for (byte[] h : parts) {
        streams.add(new ByteArrayInputStream(h));
      }
      streams.add(new ByteArrayInputStream(last, 0, lastFill));
      return new SequenceInputStream(Collections.enumeration(streams));
    }, length, "application/octet-stream");
    try {
      client.putObject(r -> r.bucket(store.bucket()).key(objectKey).contentLength(length), body);
    } catch (SdkException e) {
      throw failure("write", e);
    }
  }

  private StoreException failure(String action, SdkException e) {
    return S3Errors.mapStore(Call.WRITE, action, store.location(), key, e);
  }

  private void startMultipart() {
    if (uploadId != null) {
      return;
    }
    try {
      uploadId = client.createMultipartUpload(r -> {
        r.bucket(store.bucket()).key(objectKey);
        if (partChecksums) {
          r.checksumAlgorithm(ChecksumAlgorithm.CRC32);
        }
      }).uploadId();
    } catch (SdkException e) {
      throw failure("start a multipart upload of", e);
    }
    LOG.debug("multipart upload {} of {} started at {} bytes", uploadId, location(), written);
    List<byte[]> pending = List.copyOf(held);
    held.clear();
    for (byte[] part : pending) {
      submit(part, part.length);
    }
  }

  /** Queues one part; blocks while {@code parallelism} parts of this writer are in flight. */
  private void submit(byte[] data, int length) {
    checkParts();
    if (nextPart > MAX_PARTS) {
      throw Failure.PERMANENT.storeException(Call.WRITE, "write", store.location(), key,
          "it needs more than " + MAX_PARTS + " parts of " + partSize + " bytes", "raise "
              + S3StoreOptions.MULTIPART_PART_SIZE, null);
    }
    int number = nextPart++;
    String id = uploadId;
    try {
      inFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted while uploading " + location() + "; nothing was published", e, true);
    }
    try {
      parts.add(store.uploads().submit(() -> uploadPart(id, number, data, length)));
    } catch (RejectedExecutionException e) {
      inFlight.release();
      throw Failure.PERMANENT.storeException(Call.WRITE, "write", store.location(), key, "the store is closed", "", e);
    }
  }

  private CompletedPart uploadPart(String id, int number, byte[] data, int length) {
    try {
      UploadPartResponse r = client.uploadPart(b -> {
        b.bucket(store.bucket()).key(objectKey).uploadId(id).partNumber(number).contentLength((long) length);
        if (partChecksums) {
          b.checksumAlgorithm(ChecksumAlgorithm.CRC32);
        }
      }, RequestBody.fromContentProvider(() -> new ByteArrayInputStream(data, 0, length), length,
          "application/octet-stream"));
      return CompletedPart.builder().partNumber(number).eTag(r.eTag()).checksumCRC32(r.checksumCRC32()).build();
    } catch (SdkException e) {
      if (partFailure == null) {
        partFailure = e;
      }
      throw e;
    } finally {
      inFlight.release();
    }
  }

  /** Fails fast once any part has failed. */
  private void checkParts() {
    SdkException failure = partFailure;
    if (failure != null) {
      throw failure("upload a part of", failure);
    }
  }

  private void complete() {
    List<CompletedPart> completed = new ArrayList<>(parts.size());
    for (Future<CompletedPart> f : parts) {
      try {
        completed.add(f.get());
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof SdkException sdk) {
          throw failure("upload a part of", sdk);
        }
        throw Failure.PERMANENT.storeException(Call.WRITE, "upload a part of", store.location(), key,
            String.valueOf(cause), "", cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreException("interrupted while uploading " + location() + "; nothing was published", e, true);
      }
    }
    completed.sort(Comparator.comparing(CompletedPart::partNumber));
    try {
      client.completeMultipartUpload(r -> r.bucket(store.bucket()).key(objectKey).uploadId(uploadId)
          .multipartUpload(u -> u.parts(completed)));
    } catch (SdkException e) {
      // Completing is idempotent for S3 (a repeat of a completed upload succeeds), and an error after S3
      // acted leaves it published; abort then fails harmlessly with NoSuchUpload.
      throw failure("complete the multipart upload of", e);
    }
    LOG.debug("multipart upload {} of {} completed: {} parts, {} bytes", uploadId, location(), completed.size(), written);
  }

  @Override
  protected void discard() {
    held.clear();
    current = null;
    if (uploadId == null) {
      return;
    }
    // Let parts in flight finish first: S3 may keep a part that lands after the abort.
    for (Future<CompletedPart> f : parts) {
      f.cancel(false);
    }
    for (Future<CompletedPart> f : parts) {
      try {
        f.get();
      } catch (ExecutionException | CancellationException ignored) {
        // A failed or never-started part leaves nothing to wait for.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    try {
      client.abortMultipartUpload(r -> r.bucket(store.bucket()).key(objectKey).uploadId(uploadId));
      LOG.debug("multipart upload {} of {} aborted", uploadId, location());
    } catch (SdkException e) {
      if (S3Errors.status(e) != 404) {
        // Nothing was published; the parts stay billed until a lifecycle rule removes them.
        LOG.warn("could not abort multipart upload {} of {}: {}; its parts remain until the bucket's"
            + " AbortIncompleteMultipartUpload lifecycle rule removes them", uploadId, location(),
            failure("abort", e).getMessage());
      }
    }
  }
}
