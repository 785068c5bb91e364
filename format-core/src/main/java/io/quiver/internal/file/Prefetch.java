package io.quiver.internal.file;

import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Fetches the spans of a {@link FetchPlan} ahead of the decoder, in plan order, on a pool of fetch
 * threads: at most {@link ReadOptions#requestsInFlight()} requests issued and not complete, and at most
 * {@link ReadOptions#prefetchBytes()} bytes of spans issued and not yet released (the span the decoder
 * waits for is issued even when it alone goes over). With no pool (or 0 requests in flight) a span is
 * fetched on the decoder's thread when it is first needed.
 *
 * <p>Buffers: every span is one buffer of the reader's allocator. A read served alone by its span is handed
 * slices of it (the decoded vectors then share the span's memory, which is that read's own bytes plus
 * merged gaps); a read that shares its span with others gets copies, so a batch handed to a caller never
 * keeps a buffer holding other batches alive. The plan releases a span after the last step that needs
 * it; {@link #close()} stops issuing, waits for the requests in flight (a store call is never interrupted)
 * and releases every span. A failed request fails the read that needs it with the store's typed exception.
 *
 * <p>One decoding thread calls {@link #buffers}, {@link #bytes}, {@link #release} and {@link #close};
 * completions arrive on the fetch threads.
 */
public final class Prefetch implements AutoCloseable {
  private final ObjectStore store;
  private final FetchPlan plan;
  private final ReadOptions options;
  private final Executor pool;
  private final BufferAllocator allocator;
  private final SpanState[] state;
  /** Next span to issue, in plan order. */
  private int next;
  private int inFlight;
  private long held;
  private long peakHeld;
  /** Read by the fetch threads: a request not yet started after close fetches nothing. */
  private volatile boolean closed;
  private int released;

  private static final class SpanState {
    ArrowBuf buf;
    CompletableFuture<Void> done;
    boolean releasedSpan;
  }

  /**
   * @param pool where requests run; null fetches on the calling thread
   */
  public Prefetch(ObjectStore store, FetchPlan plan, ReadOptions options, Executor pool, BufferAllocator allocator) {
    this.store = store;
    this.plan = plan;
    this.options = options;
    this.pool = options.requestsInFlight() == 0 ? null : pool;
    this.allocator = allocator;
    this.state = new SpanState[plan.spans().size()];
    for (int i = 0; i < state.length; i++) {
      state[i] = new SpanState();
    }
    synchronized (this) {
      pump();
    }
  }

  public FetchPlan plan() {
    return plan;
  }

  /** Most bytes of spans held at once so far (issued, not released). */
  public synchronized long peakBytesHeld() {
    return peakHeld;
  }

  /** True while every span read {@code read} takes bytes from is still held (not released, not closed). */
  public synchronized boolean available(int read) {
    if (closed) {
      return false;
    }
    for (int s : plan.placement(read).span()) {
      if (s >= 0 && state[s].releasedSpan) {
        return false;
      }
    }
    return true;
  }

  /**
   * Read {@code read}'s wanted buffers, in the order they were added: slices of its span, or (span shared
   * with other reads) slices of one copy owned by the read, which is added to {@code owned} (the caller
   * closes it once the buffers are loaded; the loaded vectors keep what they use).
   */
  List<ArrowBuf> buffers(int read, List<Long> lengths, BufferAllocator into, List<ArrowBuf> owned) {
    FetchPlan.Placement p = plan.placement(read);
    int n = p.span().length;
    List<ArrowBuf> out = new ArrayList<>(n);
    long copyBytes = 0;
    for (int i = 0; i < n; i++) {
      if (p.span()[i] >= 0 && plan.spans().get(p.span()[i]).reads() > 1) {
        copyBytes += align(lengths.get(i));
      }
    }
    ArrowBuf copy = copyBytes == 0 ? null : into.buffer(copyBytes);
    if (copy != null) {
      owned.add(copy);
    }
    long at = 0;
    for (int i = 0; i < n; i++) {
      int s = p.span()[i];
      long length = lengths.get(i);
      if (s < 0 || length == 0) {
        out.add(into.getEmpty());
        continue;
      }
      ArrowBuf span = await(s);
      if (plan.spans().get(s).reads() == 1) {
        out.add(span.slice(p.offset()[i], length));
      } else {
        copy.setBytes(at, span, p.offset()[i], length);
        out.add(copy.slice(at, length));
        at += align(length);
      }
    }
    return out;
  }

  /** The bytes of read {@code read}'s buffer {@code index} (a small buffer: struct validity). */
  byte[] bytes(int read, int index, int length) {
    FetchPlan.Placement p = plan.placement(read);
    int s = p.span()[index];
    byte[] out = new byte[length];
    if (s >= 0 && length > 0) {
      await(s).getBytes(p.offset()[index], out);
    }
    return out;
  }

  private static long align(long n) {
    return (n + 7) & ~7L;
  }

  /** Releases the spans no step after {@code step} needs, and issues more. */
  public void release(int step) {
    List<ArrowBuf> free = new ArrayList<>();
    synchronized (this) {
      for (int s = released; s < next; s++) {
        SpanState st = state[s];
        if (!st.releasedSpan && plan.spans().get(s).lastStep() <= step && st.done.isDone()) {
          if (st.buf != null) {
            free.add(st.buf);
            st.buf = null;
          }
          st.releasedSpan = true;
          held -= charge(plan.spans().get(s));
        }
      }
      while (released < next && state[released].releasedSpan) {
        released++;
      }
      pump();
    }
    free.forEach(ArrowBuf::close);
  }

  /** The span's buffer once fetched; issues it (and every span before it) first when it is not yet. */
  private ArrowBuf await(int s) {
    CompletableFuture<Void> done;
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("prefetch closed");
      }
      while (next <= s) {
        issue(next++); // the decoder needs it now: over the bounds if it must
      }
      done = state[s].done;
    }
    try {
      done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      FetchPlan.Span span = plan.spans().get(s);
      throw new StoreException("interrupted while waiting for bytes " + span.start() + ".." + span.end() + " of "
          + span.location() + "; the scan was not finished, read it again", e, true);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new StoreException("fetching " + plan.spans().get(s).location() + " failed: " + cause, cause);
    }
    synchronized (this) {
      if (state[s].buf == null) {
        throw new IllegalStateException("span " + s + " was released before its last read");
      }
      return state[s].buf;
    }
  }

  /** What a span costs the allocator: its length rounded as the allocator rounds (powers of two). */
  private long charge(FetchPlan.Span span) {
    return allocator.getRoundingPolicy().getRoundedSize(span.length());
  }

  /** Issues spans in order while the bounds allow. Holds the lock. */
  private void pump() {
    if (pool == null) {
      return;
    }
    while (!closed && next < state.length) {
      FetchPlan.Span span = plan.spans().get(next);
      int requests = span.requests(options.targetRequestBytes());
      boolean roomForRequests = inFlight == 0 || inFlight + requests <= options.requestsInFlight();
      boolean roomForBytes = held == 0 || held + charge(span) <= options.prefetchBytes();
      if (!roomForRequests || !roomForBytes) {
        return;
      }
      issue(next++);
    }
  }

  /** Allocates span {@code s} and starts its requests (on the pool, or here without one). Holds the lock. */
  private void issue(int s) {
    FetchPlan.Span span = plan.spans().get(s);
    SpanState st = state[s];
    held += charge(span);
    peakHeld = Math.max(peakHeld, held);
    try {
      st.buf = allocator.buffer(span.length());
    } catch (RuntimeException e) {
      st.done = CompletableFuture.failedFuture(e);
      return;
    }
    long size = Math.min(options.targetRequestBytes(), FetchPlan.MAX_REQUEST);
    int requests = span.requests(options.targetRequestBytes());
    if (pool == null) {
      try {
        for (int r = 0; r < requests; r++) {
          fetch(span, st.buf, r * size, Math.min(size, span.length() - r * size));
        }
        st.done = CompletableFuture.completedFuture(null);
      } catch (RuntimeException e) {
        st.done = CompletableFuture.failedFuture(e);
      }
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    st.done = done;
    ArrowBuf buf = st.buf;
    AtomicInteger left = new AtomicInteger(requests);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    inFlight += requests;
    for (int r = 0; r < requests; r++) {
      long from = r * size;
      long length = Math.min(size, span.length() - from);
      Runnable request = () -> {
        try {
          if (!closed && failure.get() == null) {
            fetch(span, buf, from, length);
          }
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
        finished(done, left, failure);
      };
      try {
        pool.execute(request);
      } catch (RuntimeException e) { // rejected: the pool was shut down
        failure.compareAndSet(null, e);
        finished(done, left, failure);
      }
    }
  }

  /**
   * One request of a span ended: the span completes when all of them have (no request writes into its
   * buffer afterwards), with the first failure if any.
   */
  private void finished(CompletableFuture<Void> done, AtomicInteger left, AtomicReference<Throwable> failure) {
    synchronized (this) {
      inFlight--;
      if (left.decrementAndGet() == 0) {
        Throwable t = failure.get();
        if (t != null) {
          done.completeExceptionally(t);
        } else if (closed) {
          done.completeExceptionally(new IllegalStateException("prefetch closed"));
        } else {
          done.complete(null);
        }
      }
      pump();
    }
  }

  private void fetch(FetchPlan.Span span, ArrowBuf buf, long from, long length) {
    int read = store.readRangeInto(span.key(), span.start() + from, buf.nioBuffer(from, (int) length));
    if (read != length) {
      throw DataFileReader.shortRead(span.location(), span.start() + from, (int) length, read);
    }
  }

  /**
   * Stops issuing, waits for the requests in flight to end, and releases every span. Idempotent.
   */
  @Override
  public void close() {
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      for (int s = 0; s < next; s++) {
        if (state[s].done != null && !state[s].done.isDone()) {
          pending.add(state[s].done);
        }
      }
    }
    for (CompletableFuture<Void> f : pending) {
      // A request in flight completes (or fails) on its own: wait for all of a span's requests.
      awaitQuietly(f);
    }
    List<ArrowBuf> free = new ArrayList<>();
    synchronized (this) {
      for (SpanState st : state) {
        if (st.buf != null) {
          free.add(st.buf);
          st.buf = null;
        }
      }
      held = 0;
    }
    free.forEach(ArrowBuf::close);
  }

  private static void awaitQuietly(CompletableFuture<Void> f) {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | RuntimeException e) {
      // the reader already failed, or is being closed: nothing to report
    }
  }

}
