package io.quiver.internal.read;

import io.quiver.internal.file.FetchPool;
import io.quiver.internal.file.ReadOptions;
import io.quiver.internal.table.TableIo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * A scan whose ranges are decoded by a bounded pool of threads of its own: each thread reads one range at a
 * time with a {@link ScanReader} and hands its batches over through a queue of {@code queueDepth} batches.
 *
 * <p><b>Ordered</b> output is exactly what the sequential scan returns, in the same order: range {@code i}'s
 * batches are returned before range {@code i + 1}'s, and ranges are taken by the threads in scan order, so at
 * most {@code threads} ranges are in flight and at most {@code threads × (queueDepth + 1)} batches are held.
 * <b>Unordered</b> output returns each batch as soon as any thread has it (the same rows, batches in any
 * order; with a limit, some {@code limit} matching rows rather than the first ones).
 *
 * <p>Memory: every batch is allocated from the scan's allocator (Arrow allocators are thread-safe) and moved,
 * not copied, into the reader's root. Closing the reader stops the threads (between two batches; a read in
 * progress completes, so no store channel is interrupted), waits for them and releases every queued batch.
 * A failure on a thread is rethrown by the next {@link #loadNextBatch()} and stops the others.
 */
public final class ParallelScanReader extends ArrowReader {
  /** What a queue holds: a batch, or (null) the end of a range. */
  private record Item(VectorSchemaRoot batch) {
    static final Item END = new Item(null);
  }

  private static final AtomicInteger POOLS = new AtomicInteger();

  private final TableIo io;
  private final ScanSpec spec;
  private final List<FragmentRange> ranges;
  private final BufferAllocator allocator;
  private final ScanCounters counters;
  /** {@code counters} without the rows: the consumer counts what it returns (after the scan's limit). */
  private final ScanCounters withoutRows;
  private final boolean ordered;
  private final ExecutorService pool;
  /** The fetch threads the ranges' readers share, or null when they fetch on their own threads. */
  private final FetchPool fetchPool;
  private final AtomicBoolean cancelled = new AtomicBoolean();
  /** The first failure of a thread: ends the scan, whichever range the consumer is waiting on. */
  private final java.util.concurrent.atomic.AtomicReference<Throwable> failure =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final AtomicInteger nextRange = new AtomicInteger();
  /** Ordered: one queue per range (created when a thread takes it); unordered: {@code shared}. */
  private final List<BlockingQueue<Item>> perRange;
  private final BlockingQueue<Item> shared;
  private final int queueDepth;
  private final AutoCloseable onClose;

  private int current;
  private int rangesDone;
  private long remaining;

  /**
   * @param threads threads decoding ranges (at least 1)
   * @param queueDepth batches a thread may have ready before it waits for the consumer (at least 1)
   * @param onClose closed after everything else (may be null)
   */
  public ParallelScanReader(TableIo io, ScanSpec spec, List<FragmentRange> ranges, BufferAllocator allocator,
      ScanCounters counters, int threads, boolean ordered, int queueDepth, AutoCloseable onClose) {
    super(allocator);
    if (threads < 1 || queueDepth < 1) {
      throw new IllegalArgumentException("threads and queue depth must be >= 1");
    }
    this.io = io;
    this.spec = spec;
    this.ranges = List.copyOf(ranges);
    this.allocator = allocator;
    this.counters = counters;
    this.withoutRows = new ScanCounters() {
      @Override
      public void fragmentsConsidered(long n) {
        counters.fragmentsConsidered(n);
      }

      @Override
      public void fragmentsPruned(long n) {
        counters.fragmentsPruned(n);
      }

      @Override
      public void dataFileOpened() {
        counters.dataFileOpened();
      }

      @Override
      public void batchesConsidered(long n) {
        counters.batchesConsidered(n);
      }

      @Override
      public void batchesPruned(long n) {
        counters.batchesPruned(n);
      }

      @Override
      public void bytesFetched(long n) {
        counters.bytesFetched(n);
      }

      @Override
      public void rowsPointRead(long n) {
        counters.rowsPointRead(n); // rows read, like bytes: a thread's read-ahead past a limit counts
      }

      @Override
      public boolean records() {
        return counters.records();
      }
    };
    this.ordered = ordered;
    this.queueDepth = queueDepth;
    this.onClose = onClose;
    this.remaining = spec.limit();
    this.perRange = new ArrayList<>(this.ranges.size());
    for (int i = 0; i < this.ranges.size(); i++) {
      perRange.add(ordered ? new ArrayBlockingQueue<>(queueDepth + 1) : null);
    }
    this.shared = ordered ? null : new ArrayBlockingQueue<>(Math.max(1, threads * queueDepth) + threads);
    int n = Math.max(1, Math.min(threads, this.ranges.size()));
    int id = POOLS.incrementAndGet();
    AtomicInteger thread = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, "quiver-scan-" + id + "-" + thread.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    ReadOptions read = io.dataFiles().options();
    // One pool of fetch threads for all the ranges: each range's reader keeps its own in-flight bound.
    this.fetchPool = read.planned() && read.requestsInFlight() > 0
        ? new FetchPool(Math.min(n * read.requestsInFlight(), ReadOptions.MAX_REQUESTS_IN_FLIGHT)) : null;
    this.pool = Executors.newFixedThreadPool(n, factory);
    for (int i = 0; i < n; i++) {
      pool.execute(this::work);
    }
  }

  @Override
  protected org.apache.arrow.vector.types.pojo.Schema readSchema() {
    return ScanReader.outputSchema(spec);
  }

  /** A thread's loop: take the next range in scan order, read it to its end, hand over its batches. */
  private void work() {
    while (!cancelled.get()) {
      int i = nextRange.getAndIncrement();
      if (i >= ranges.size()) {
        return;
      }
      BlockingQueue<Item> queue = ordered ? perRange.get(i) : shared;
      try (ScanReader reader =
          new ScanReader(io, spec, List.of(ranges.get(i)), allocator, null, withoutRows, fetchPool)) {
        VectorSchemaRoot from = reader.getVectorSchemaRoot();
        while (!cancelled.get() && reader.loadNextBatch()) {
          VectorSchemaRoot batch = VectorSchemaRoot.create(from.getSchema(), allocator);
          move(from, batch);
          if (!hand(queue, new Item(batch))) {
            batch.close();
            return;
          }
        }
        if (!hand(queue, Item.END)) {
          return;
        }
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
        cancelled.set(true);
        return;
      }
    }
  }

  /** Puts {@code item}, waiting while the queue is full; false when the scan was closed meanwhile. */
  private boolean hand(BlockingQueue<Item> queue, Item item) {
    try {
      while (!queue.offer(item, 20, TimeUnit.MILLISECONDS)) {
        if (cancelled.get()) {
          return false;
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void move(VectorSchemaRoot from, VectorSchemaRoot to) {
    List<FieldVector> target = to.getFieldVectors();
    List<FieldVector> source = from.getFieldVectors();
    for (int c = 0; c < source.size(); c++) {
      source.get(c).makeTransferPair(target.get(c)).transfer();
    }
    to.setRowCount(from.getRowCount());
  }

  @Override
  public boolean loadNextBatch() throws IOException {
    VectorSchemaRoot out = getVectorSchemaRoot();
    while (true) {
      if (remaining == 0 || (ordered ? current >= ranges.size() : rangesDone >= ranges.size())) {
        if (remaining == 0 && !cancelled.get()) {
          stop();
          // Ranges no thread started are not reached, as in the sequential scan.
          counters.fragmentsPruned(Math.max(0, ranges.size() - Math.min(ranges.size(), nextRange.get())));
        }
        out.setRowCount(0);
        return false;
      }
      Item item = take(ordered ? perRange.get(current) : shared);
      if (item.batch() == null) {
        current++;
        rangesDone++;
        continue;
      }
      try (VectorSchemaRoot batch = item.batch()) {
        move(batch, out);
      }
      if (remaining != ScanSpec.NO_LIMIT) {
        if (out.getRowCount() > remaining) {
          // Each range applies the limit to its own rows; the scan's limit is over all of them.
          out.setRowCount((int) remaining);
        }
        remaining -= out.getRowCount();
      }
      counters.rowsReturned(out.getRowCount());
      return true;
    }
  }

  /** The next item of {@code queue}; rethrows a thread's failure (after stopping the others). */
  private Item take(BlockingQueue<Item> queue) throws IOException {
    try {
      while (true) {
        Item item = queue.poll(20, TimeUnit.MILLISECONDS);
        if (item != null) {
          return item;
        }
        Throwable t = failure.get();
        if (t != null) {
          stop();
          if (t instanceof IOException e) {
            throw e;
          }
          if (t instanceof RuntimeException e) {
            throw e;
          }
          if (t instanceof Error e) {
            throw e;
          }
          throw new IOException("a scan thread failed: " + t, t);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
      throw new java.io.InterruptedIOException("interrupted while waiting for a scan thread");
    }
  }

  /** Stops the threads and releases every batch they handed over or were about to. */
  private void stop() {
    cancelled.set(true);
    drain();
    pool.shutdown();
    try {
      while (!pool.awaitTermination(20, TimeUnit.MILLISECONDS)) {
        drain(); // a thread waiting on a full queue sees the cancellation within one wait
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    drain();
    if (fetchPool != null) {
      fetchPool.close(); // every range's reader closed its prefetch: nothing is left to fetch
    }
  }

  private void drain() {
    List<BlockingQueue<Item>> queues = ordered ? perRange : List.of(shared);
    for (BlockingQueue<Item> q : queues) {
      Item item;
      while ((item = q.poll()) != null) {
        if (item.batch() != null) {
          item.batch().close();
        }
      }
    }
  }

  /** Bytes of Arrow buffers handed out so far. */
  @Override
  public long bytesRead() {
    return 0;
  }

  @Override
  protected void closeReadSource() throws IOException {
    try {
      stop();
    } finally {
      if (onClose != null) {
        try {
          onClose.close();
        } catch (IOException | RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IOException(e);
        }
      }
    }
  }
}
