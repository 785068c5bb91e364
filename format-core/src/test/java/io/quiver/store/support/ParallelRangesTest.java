package io.quiver.store.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.ByteRange;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ParallelRanges}, the cloud adapters' {@code readRanges}: the ranges of one call really are read at
 * the same time, never more at once than the store's pool allows, and come back in the order asked.
 */
class ParallelRangesTest {
  private static final int POOL = 4;

  /** A store whose reads wait until {@code POOL} of them are in progress together, and count how many are. */
  private static final class Gate extends ForwardingObjectStore {
    final CountDownLatch allIn = new CountDownLatch(POOL);
    final AtomicInteger now = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();

    Gate(MemoryObjectStore memory) {
      super(memory);
    }

    @Override
    public byte[] readRange(String key, long offset, int length) {
      most.accumulateAndGet(now.incrementAndGet(), Math::max);
      try {
        allIn.countDown();
        // only POOL reads running together release this: a sequential readRanges would time out here
        if (!allIn.await(30, TimeUnit.SECONDS)) {
          throw new AssertionError("the ranges were not read in parallel: fewer than " + POOL + " at once");
        }
        return super.readRange(key, offset, length);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      } finally {
        now.decrementAndGet();
      }
    }
  }

  @Test
  @Timeout(60)
  void readsThePoolsWorthOfRangesAtOnceNeverMoreAndInOrder() {
    MemoryObjectStore memory = new MemoryObjectStore("memory://ranges");
    byte[] data = new byte[1000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) i;
    }
    memory.write("f", data);
    Gate gate = new Gate(memory);
    ExecutorService pool = StoreThreads.bounded("test-ranges", POOL);
    try {
      List<ByteRange> ranges = new ArrayList<>();
      for (int i = 0; i < POOL * 5; i++) {
        ranges.add(new ByteRange(i * 37L, 3));
      }
      List<byte[]> got = ParallelRanges.read(gate, pool, "f", ranges);
      assertThat(gate.most.get()).as("reads in progress at once").isEqualTo(POOL);
      assertThat(got).hasSize(ranges.size());
      for (int i = 0; i < ranges.size(); i++) {
        int at = i * 37;
        assertThat(got.get(i)).as("range %d", i).containsExactly((byte) at, (byte) (at + 1), (byte) (at + 2));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
