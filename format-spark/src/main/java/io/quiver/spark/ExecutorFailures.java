package io.quiver.spark;

import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * Quiver's typed errors out of the Spark jobs the connector runs itself (compaction, index builds). Spark hands a
 * task's exception to the driver only as the text of a {@code SparkException} ("Job aborted due to stage
 * failure…"), so a task wraps its work with {@link #attempt}: a {@link QuiverException} other than a store error (a
 * corrupt file, a conflict, a bad argument: retrying the task cannot help) becomes the task's result, and {@link
 * #results} rethrows the first such error on the driver as itself, before anything is committed. Store errors
 * still fail the task, so Spark retries it as configured; a {@code SparkException} whose cause chain holds a Quiver
 * error (when Spark attaches one) is rethrown as that error too.
 */
final class ExecutorFailures {
  private static final byte OK = 0;
  private static final byte FAILED = 1;

  private ExecutorFailures() {}

  /** A task's body: {@code work}'s bytes, or the Quiver error it raised, as one result. */
  static byte[] attempt(Supplier<byte[]> work) {
    byte[] out;
    try {
      out = work.get();
    } catch (StoreException e) {
      throw e; // may be transient: Spark's task retries apply
    } catch (QuiverException e) {
      return failed(e);
    }
    byte[] tagged = new byte[out.length + 1];
    tagged[0] = OK;
    System.arraycopy(out, 0, tagged, 1, out.length);
    return tagged;
  }

  /** The tasks' payloads, in order; throws the first task's Quiver error as itself. */
  static List<byte[]> results(Supplier<List<byte[]>> job) {
    List<byte[]> tagged;
    try {
      tagged = job.get();
    } catch (RuntimeException e) {
      throw typed(e);
    }
    for (byte[] t : tagged) {
      if (t.length > 0 && t[0] == FAILED) {
        throw rethrown(t);
      }
    }
    return tagged.stream().map(t -> Arrays.copyOfRange(t, 1, t.length)).toList();
  }

  /** The first {@link QuiverException} in {@code failure}'s cause chain, else {@code failure} itself. */
  static RuntimeException typed(RuntimeException failure) {
    Throwable at = failure;
    for (int depth = 0; at != null && depth < 16; depth++, at = at.getCause()) {
      if (at instanceof QuiverException quiver) {
        if (quiver != failure) {
          quiver.addSuppressed(failure);
        }
        return quiver;
      }
    }
    return failure;
  }

  private static byte[] failed(QuiverException e) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.write(FAILED);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(e);
    } catch (IOException | RuntimeException notSerializable) {
      throw e; // a cause that cannot travel: fail the task as Spark would have
    }
    return bytes.toByteArray();
  }

  private static RuntimeException rethrown(byte[] tagged) {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(tagged, 1, tagged.length - 1))) {
      Object e = in.readObject();
      if (e instanceof QuiverException quiver) {
        return quiver;
      }
      return new QuiverException("a Spark task failed with " + e + "; see the executor's log");
    } catch (IOException | ClassNotFoundException e) {
      return new QuiverException("a Spark task failed with a Quiver error the driver cannot read back ("
          + e + "); see the executor's log", e);
    }
  }
}
