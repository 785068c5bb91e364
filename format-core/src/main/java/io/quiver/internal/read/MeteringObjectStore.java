package io.quiver.internal.read;

import io.quiver.manifest.DataFile;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ByteRange;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store as one scan sees it: forwards everything and records, into the scan's {@link ScanCounters},
 * the bytes every read returns and each data file ({@code data/...}) read from for the first time. One
 * instance per scan or task read (the set of files opened is this instance's). Never closes the store it
 * wraps: closing it does nothing.
 */
public final class MeteringObjectStore extends ForwardingObjectStore {
  private final ScanCounters counters;
  private final Set<String> opened = ConcurrentHashMap.newKeySet();

  public MeteringObjectStore(ObjectStore delegate, ScanCounters counters) {
    super(delegate);
    this.counters = counters;
  }

  @Override
  public byte[] read(String key) {
    byte[] data = super.read(key);
    record(key, data.length);
    return data;
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    byte[] data = super.readRange(key, offset, length);
    record(key, data.length);
    return data;
  }

  @Override
  public int readRangeInto(String key, long offset, ByteBuffer target) {
    int n = super.readRangeInto(key, offset, target);
    record(key, n);
    return n;
  }

  @Override
  public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    List<byte[]> data = super.readRanges(key, ranges);
    long bytes = 0;
    for (byte[] d : data) {
      bytes += d.length;
    }
    if (!data.isEmpty()) {
      record(key, bytes);
    }
    return data;
  }

  private void record(String key, long bytes) {
    counters.bytesFetched(bytes);
    if (key.startsWith(DataFile.DATA_PREFIX) && opened.add(key)) {
      counters.dataFileOpened();
    }
  }

  /** The scan does not own the store. */
  @Override
  public void close() {}
}
