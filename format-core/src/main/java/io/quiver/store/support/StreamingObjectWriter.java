package io.quiver.store.support;

import io.quiver.store.ObjectStore.ObjectWriter;
import java.util.Objects;

/**
 * Base of a streaming writer ({@code ObjectStore.openWriter}): the state every adapter's writer needs and
 * used to write by hand. It counts the {@link #position()}, refuses writes once closed or aborted ({@link
 * IllegalStateException}), makes {@link #flush()} a no-op (nothing is visible before close), and makes
 * {@link #close()} publish at most once and {@link #abort()} discard at most once: a failure while
 * appending or publishing discards what was written and rethrows, so a failed writer never publishes, and a
 * close after an abort does nothing. Subclasses supply the three store-specific steps, each throwing the
 * store's typed exceptions ({@code XxxErrors}), never an SDK exception. Not thread-safe, like any
 * {@link java.io.OutputStream}.
 */
public abstract class StreamingObjectWriter extends ObjectWriter {
  private final String location;
  private final byte[] one = new byte[1];
  private long position;
  private boolean done;

  /** @param location the object's location, for messages */
  protected StreamingObjectWriter(String location) {
    this.location = Objects.requireNonNull(location, "location");
  }

  /** Takes {@code len} more bytes: buffer them, or send a full part. */
  protected abstract void append(byte[] b, int off, int len);

  /** Makes the object visible, whole (a single put, or completing a multipart upload). */
  protected abstract void publish();

  /** Leaves nothing behind (aborts an upload, deletes a temp file); must not throw. */
  protected abstract void discard();

  /** The object's location. */
  protected final String location() {
    return location;
  }

  @Override
  public final void write(int b) {
    one[0] = (byte) b;
    write(one, 0, 1);
  }

  @Override
  public final void write(byte[] b, int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    ensureOpen();
    if (len == 0) {
      return;
    }
    try {
      append(b, off, len);
    } catch (RuntimeException e) {
      abort();
      throw e;
    }
    position += len;
  }

  @Override
  public final void flush() {
    // Nothing becomes visible before close.
  }

  @Override
  public final long position() {
    return position;
  }

  @Override
  public final void abort() {
    if (!done) {
      done = true;
      discard();
    }
  }

  @Override
  public final void close() {
    if (done) {
      return;
    }
    done = true;
    try {
      publish();
    } catch (RuntimeException e) {
      discard();
      throw e;
    }
  }

  /** Whether the writer was closed or aborted. */
  protected final boolean isDone() {
    return done;
  }

  private void ensureOpen() {
    if (done) {
      throw new IllegalStateException("writer for " + location + " is closed");
    }
  }
}
