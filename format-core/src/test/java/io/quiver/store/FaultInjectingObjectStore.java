package io.quiver.store;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Test decorator that makes chosen calls fail, to test recovery paths deterministically.
 *
 * <p>A test arms a fault for an operation and a key predicate (the prefix, for {@link Op#LIST}); the
 * first matching calls consume it, in arming order. {@link Fault#FAIL_BEFORE} throws a transient {@link
 * StoreException} without calling the delegate (the store refused); {@link Fault#FAIL_AFTER} calls the
 * delegate and then throws a non-transient one (the call took effect but the acknowledgement was lost): for
 * {@link Op#PUT_IF_ABSENT} a {@link CommitStateUnknownException}, as an adapter would.
 * For {@link Op#OPEN_WRITER} the fault is taken when the writer is opened and fires at its {@code
 * close()}: before publishing (the delegate writer is aborted) or after. {@code deleteAll} and {@code
 * listAll} go through {@code delete} and {@code list}. Every call is logged, faulted or not.
 *
 * <p>A {@link #schedule Schedule} decides calls no armed rule matches, by call index: besides the two
 * failures it can {@link Fault#CRASH crash} the writer (that call and every later one, including the
 * close of a writer already open, throw {@link CrashedException}) or {@link Fault#INTERLEAVE interleave}
 * another handle's work at that point of the protocol (no sleeps: the hook runs on the calling thread).
 */
public final class FaultInjectingObjectStore extends ForwardingObjectStore {

  /** The operations faults can be armed for. */
  public enum Op {
    READ,
    READ_RANGE,
    HEAD,
    WRITE,
    OPEN_WRITER,
    PUT_IF_ABSENT,
    LIST,
    DELETE
  }

  /** When the injected failure happens relative to the delegate call. */
  public enum Fault {
    FAIL_BEFORE,
    FAIL_AFTER,
    /** The writer dies before the call: it and every later call (and open writer's close) refuse. */
    CRASH,
    /** Runs the {@link #schedule interleaving} hook (another handle's work) before the call, then the call. */
    INTERLEAVE
  }

  /** A per-call decision consulted when no armed rule matches; {@code index} counts calls from 0. */
  public interface Schedule {
    Fault at(int index, Op op, String key);
  }

  /** Thrown by every call of a store whose writer crashed. */
  public static final class CrashedException extends StoreException {
    CrashedException(String message) {
      super(message, null, false);
    }
  }

  /** One logged call. */
  public record Call(Op op, String key) {}

  private static final class Rule {
    final Op op;
    final Predicate<String> key;
    final Fault fault;
    int remaining;

    Rule(Op op, Predicate<String> key, Fault fault, int times) {
      this.op = op;
      this.key = key;
      this.fault = fault;
      this.remaining = times;
    }
  }

  private final List<Rule> rules = new ArrayList<>();
  private final List<Call> calls = new ArrayList<>();
  private volatile Schedule schedule;
  private Runnable interleaving = () -> {};
  private int scheduled;
  private String crashedAt;

  public FaultInjectingObjectStore(ObjectStore delegate) {
    super(delegate);
  }

  /** Fails the next {@code times} calls of {@code op} whose key matches. */
  public synchronized FaultInjectingObjectStore arm(Op op, Predicate<String> key, Fault fault, int times) {
    if (times < 1) {
      throw new IllegalArgumentException("times must be >= 1, got " + times);
    }
    rules.add(new Rule(op, key, fault, times));
    return this;
  }

  /** Fails the next call of {@code op} on exactly {@code key}. */
  public FaultInjectingObjectStore armOnce(Op op, String key, Fault fault) {
    return arm(op, key::equals, fault, 1);
  }

  /**
   * Consults {@code schedule} for every later call no armed rule matches (indices count from 0 at this
   * call); {@link Fault#INTERLEAVE} runs {@code interleaving} on the calling thread before the call.
   */
  public synchronized FaultInjectingObjectStore schedule(Schedule schedule, Runnable interleaving) {
    this.schedule = schedule;
    this.interleaving = interleaving;
    this.scheduled = 0;
    return this;
  }

  /** Where the writer crashed ({@code op key}), if it did. */
  public synchronized Optional<String> crashedAt() {
    return Optional.ofNullable(crashedAt);
  }

  /** Removes every armed fault that has not fired. */
  public synchronized void disarmAll() {
    rules.clear();
  }

  /** How many failures are armed and not yet fired. */
  public synchronized int pendingFaults() {
    return rules.stream().mapToInt(r -> r.remaining).sum();
  }

  /** Every call so far, in order. */
  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The keys of the calls of one operation so far, in order. */
  public synchronized List<String> calls(Op op) {
    return calls.stream().filter(c -> c.op() == op).map(Call::key).toList();
  }

  public synchronized void clearCalls() {
    calls.clear();
  }

  @Override
  public ObjectStore delegate() {
    return super.delegate();
  }

  /** Logs the call and consumes the first matching armed fault, if any. */
  private synchronized Fault take(Op op, String key) {
    calls.add(new Call(op, key));
    for (int i = 0; i < rules.size(); i++) {
      Rule rule = rules.get(i);
      if (rule.op == op && rule.key.test(key)) {
        if (--rule.remaining == 0) {
          rules.remove(i);
        }
        return rule.fault;
      }
    }
    if (crashedAt != null) {
      return Fault.CRASH;
    }
    if (schedule != null) {
      Fault f = schedule.at(scheduled++, op, key);
      if (f == Fault.CRASH) {
        crashedAt = op + " " + key;
      }
      return f;
    }
    return null;
  }

  private synchronized CrashedException crashed(Op op, String key) {
    return new CrashedException("writer crashed at " + crashedAt + "; refusing " + op + " " + locationOf(key));
  }

  /** Throws if the writer crashed (now or earlier), runs the interleaving for INTERLEAVE. */
  private void beforeCall(Fault fault, Op op, String key) {
    if (fault == Fault.CRASH) {
      throw crashed(op, key);
    }
    if (fault == Fault.INTERLEAVE) {
      Runnable hook;
      synchronized (this) {
        hook = interleaving;
      }
      hook.run();
    }
  }

  private StoreException injected(Fault fault, Op op, String key) {
    String what = "injected " + fault + " on " + op + " " + locationOf(key);
    if (fault == Fault.FAIL_AFTER && op == Op.PUT_IF_ABSENT) {
      // What an adapter reports when a conditional create took effect and its answer was lost.
      return new CommitStateUnknownException(location(), key, what, null);
    }
    return new StoreException(what, null, fault == Fault.FAIL_BEFORE);
  }

  private interface Call0<T> {
    T run();
  }

  private <T> T call(Op op, String key, Call0<T> body) {
    Fault fault = take(op, key);
    beforeCall(fault, op, key);
    if (fault == Fault.FAIL_BEFORE) {
      throw injected(fault, op, key);
    }
    T result = body.run();
    if (fault == Fault.FAIL_AFTER) {
      throw injected(fault, op, key);
    }
    return result;
  }

  @Override
  public byte[] read(String key) {
    return call(Op.READ, key, () -> delegate().read(key));
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    return call(Op.READ_RANGE, key, () -> delegate().readRange(key, offset, length));
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    return call(Op.HEAD, key, () -> delegate().head(key));
  }

  @Override
  public void write(String key, byte[] data) {
    call(Op.WRITE, key, () -> {
      delegate().write(key, data);
      return null;
    });
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    return call(Op.PUT_IF_ABSENT, key, () -> delegate().putIfAbsent(key, data));
  }

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    return call(Op.LIST, prefix, () -> delegate().list(prefix, startAfter, maxKeys));
  }

  @Override
  public void delete(String key) {
    call(Op.DELETE, key, () -> {
      delegate().delete(key);
      return null;
    });
  }

  @Override
  public ObjectWriter openWriter(String key) {
    Fault fault = take(Op.OPEN_WRITER, key);
    beforeCall(fault, Op.OPEN_WRITER, key);
    ObjectWriter inner = delegate().openWriter(key);
    if (fault == null && schedule == null) {
      return inner;
    }
    return new ObjectWriter() {
      private boolean done;

      @Override
      public void write(int b) throws java.io.IOException {
        inner.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws java.io.IOException {
        inner.write(b, off, len);
      }

      @Override
      public long position() {
        return inner.position();
      }

      @Override
      public void abort() {
        done = true;
        inner.abort();
      }

      @Override
      public void close() throws java.io.IOException {
        if (done) {
          return;
        }
        done = true;
        if (crashedAt().isPresent()) {
          inner.abort(); // the writer died with the stream open: nothing is published
          throw crashed(Op.OPEN_WRITER, key);
        }
        if (fault != Fault.FAIL_BEFORE && fault != Fault.FAIL_AFTER) {
          inner.close();
          return;
        }
        if (fault == Fault.FAIL_BEFORE) {
          inner.abort();
        } else {
          inner.close();
        }
        throw injected(fault, Op.OPEN_WRITER, key);
      }
    };
  }

  /** A vectored read is one {@link Op#READ_RANGE} call, whatever the number of ranges. */
  @Override
  public java.util.List<byte[]> readRanges(String key, java.util.List<ByteRange> ranges) {
    return call(Op.READ_RANGE, key, () -> delegate().readRanges(key, ranges));
  }

  /** Ranged reads into a buffer are {@link Op#READ_RANGE} calls, as they were through the port's default. */
  @Override
  public int readRangeInto(String key, long offset, java.nio.ByteBuffer target) {
    return call(Op.READ_RANGE, key, () -> delegate().readRangeInto(key, offset, target));
  }

  /** Goes through {@link #list}, so that list faults apply. */
  @Override
  public List<ObjectInfo> listAll(String prefix) {
    return listAllByPages(prefix);
  }

  /** Goes through {@link #delete}, so that delete faults apply. */
  @Override
  public List<String> deleteAll(java.util.Collection<String> keys) {
    return deleteEachByKey(keys);
  }
}
