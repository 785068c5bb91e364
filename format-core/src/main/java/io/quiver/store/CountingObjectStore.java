package io.quiver.store;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decorator that forwards everything and counts the bytes returned by {@link #read}, {@link #readRange},
 * {@link #readRangeInto} and {@link #readRanges}, the number of those calls, and the ranges asked for
 * through {@code readRanges}, to meter how much a reader fetched (tests prove projected and point reads
 * with it; the benchmarks report bytes read per projected byte). Thread-safe.
 */
public final class CountingObjectStore extends ForwardingObjectStore {
  private final AtomicLong bytesRead = new AtomicLong();
  private final AtomicLong readCalls = new AtomicLong();
  private final AtomicLong headCalls = new AtomicLong();
  private final AtomicLong rangesRead = new AtomicLong();

  public CountingObjectStore(ObjectStore delegate) {
    super(delegate);
  }

  /** Bytes returned by the read calls since construction or the last {@link #reset()}. */
  public long bytesRead() {
    return bytesRead.get();
  }

  /**
   * Read calls (read, readRange, readRangeInto, readRanges: one each, however many ranges a {@code
   * readRanges} asks for) since construction or the last {@link #reset()}.
   */
  public long readCalls() {
    return readCalls.get();
  }

  /** Ranges asked for through {@link #readRanges} since construction or the last {@link #reset()}. */
  public long rangesRead() {
    return rangesRead.get();
  }

  /** Calls to head since construction or the last {@link #reset()}. */
  public long headCalls() {
    return headCalls.get();
  }

  public void reset() {
    bytesRead.set(0);
    readCalls.set(0);
    headCalls.set(0);
    rangesRead.set(0);
  }

  @Override
  public byte[] read(String key) {
    byte[] data = super.read(key);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(data.length);
    return data;
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    byte[] data = super.readRange(key, offset, length);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(data.length);
    return data;
  }

  @Override
  public int readRangeInto(String key, long offset, ByteBuffer target) {
    int n = super.readRangeInto(key, offset, target);
    readCalls.incrementAndGet();
    bytesRead.addAndGet(n);
    return n;
  }

  @Override
  public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    List<byte[]> data = super.readRanges(key, ranges);
    readCalls.incrementAndGet();
    rangesRead.addAndGet(data.size());
    long bytes = 0;
    for (byte[] d : data) {
      bytes += d.length;
    }
    bytesRead.addAndGet(bytes);
    return data;
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    headCalls.incrementAndGet();
    return super.head(key);
  }
}
