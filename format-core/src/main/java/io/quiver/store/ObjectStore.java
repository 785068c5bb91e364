package io.quiver.store;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.StoreException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Port to an object store, scoped to one root (a table directory, a bucket prefix).
 *
 * <p>Keys are relative, {@code /}-separated, non-empty, and never contain an empty, {@code .} or
 * {@code ..} segment, a leading {@code /} or a backslash; {@link Keys#check(String)} enforces this and
 * every implementation must call it. Objects are immutable blobs: a key is written once by Quiver except
 * through {@link #write}, which may replace. There are no directories; {@link #list} is by prefix.
 *
 * <p>Arguments: every method refuses, before any I/O and with an {@link InvalidArgumentException} whose
 * message names the argument, a {@code null} argument, an invalid key, a negative offset or length, a
 * {@code maxKeys} below 1 and a list prefix no valid key can start with ({@link Keys#checkPrefix}).
 * {@link StoreArgs} is the one implementation of these checks; the conformance suite pins them for every
 * store.
 *
 * <p>Errors: a missing key is {@link ObjectNotFoundException}; any other failure is a {@link
 * StoreException}: {@link io.quiver.exceptions.StoreNotFoundException}, {@link
 * io.quiver.exceptions.StoreAccessDeniedException}, {@link io.quiver.exceptions.StoreUnreachableException},
 * {@link CommitStateUnknownException} (a {@link #putIfAbsent} that may or may not have created the object),
 * or a plain {@code StoreException}, {@link StoreException#isTransient() transient} when repeating the call
 * is harmless and may succeed. Implementations are thread-safe.
 */
public interface ObjectStore extends AutoCloseable {

  /** Where this store points, for messages (never includes credentials). */
  String location();

  /** The store location of a key, for messages: {@code location() + "/" + key}. */
  default String locationOf(String key) {
    String root = location();
    return root.endsWith("/") ? root + key : root + "/" + key;
  }

  /** Reads a whole object. */
  byte[] read(String key);

  /**
   * Reads up to {@code length} bytes starting at {@code offset}. Fewer bytes come back when the object
   * ends first; an {@code offset} at or past the end returns an empty array.
   *
   * A zero {@code length} still reads: a missing object is {@link ObjectNotFoundException}.
   *
   * @throws InvalidArgumentException if {@code offset} or {@code length} is negative
   */
  byte[] readRange(String key, long offset, int length);

  /**
   * Reads bytes starting at {@code offset} into {@code target}'s remaining space and advances its
   * position; fewer bytes are read when the object ends first. Readers of large ranges call this to read
   * straight into (direct) Arrow memory; the default copies through {@link #readRange}, and a store that
   * can read into a buffer without the extra copy (the local filesystem) overrides it.
   *
   * @return the number of bytes read
   * @throws InvalidArgumentException if {@code offset} is negative or {@code target} is null
   */
  default int readRangeInto(String key, long offset, ByteBuffer target) {
    StoreArgs.target(offset, target);
    byte[] bytes = readRange(key, offset, target.remaining());
    target.put(bytes);
    return bytes.length;
  }

  /**
   * Reads many ranges of one object, as if by one {@link #readRange} per range, and returns their bytes in
   * the order asked: each result is shorter than its range when the object ends first, and empty for a
   * range at or past the end, exactly as {@code readRange} answers. Ranges may overlap, repeat and be
   * empty; they are read as given (callers coalesce nearby ranges themselves when that is cheaper).
   *
   * <p>This is the port's vectored read, for point reads that need a few bytes at many places of a file
   * ({@code take}). The default calls {@code readRange} once per range, in order; the local store reads
   * them all through one open file with positional reads, and the cloud stores issue parallel ranged GETs
   * on a bounded pool. An empty list returns an empty list without any I/O (so without checking that the
   * object exists); otherwise a missing object is {@link ObjectNotFoundException}, whichever range meets it
   * first.
   *
   * @return one array per range, in the order of {@code ranges}
   * @throws InvalidArgumentException if the key is invalid, or {@code ranges} or one of its elements is
   *     null (before any I/O)
   */
  default List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    return PortDefaults.readEach(this, key, ranges);
  }

  /** Size and modification time of an object, or empty if absent. */
  Optional<ObjectInfo> head(String key);

  /** Creates or replaces an object with the given bytes; the object appears whole or not at all. */
  void write(String key, byte[] data);

  /**
   * Opens a streaming writer. Bytes become visible atomically, as one object, when the stream is closed
   * without error; {@link ObjectWriter#abort()} (or a failure) leaves nothing behind. Implementations
   * may upload in parts (multipart, resumable, staged blocks) while the stream is written.
   */
  ObjectWriter openWriter(String key);

  /**
   * Creates the object only if no object exists under the key, atomically with respect to every other
   * caller of any process. This is the primitive the commit protocol is built on.
   *
   * <p>A lost race is the result {@link PutResult#ALREADY_EXISTS}, never an exception; and {@code
   * ALREADY_EXISTS} must never be the answer to a repeat of this call's own successful create (a retry after
   * a lost acknowledgement): an implementation either settles such doubt itself (the cloud adapters read
   * back a token stored in the object's metadata, {@code io.quiver.store.support.ConditionalPut}) or throws
   * {@link CommitStateUnknownException}.
   *
   * @return {@link PutResult#CREATED} if this call created it, {@link PutResult#ALREADY_EXISTS} if an
   *     object was already there (its content is untouched)
   * @throws CommitStateUnknownException if the outcome is unknown (the object may or may not have been
   *     created, and if it exists it may be this caller's)
   * @throws StoreException for a failure that is known to have created nothing (refused, denied, ...)
   */
  PutResult putIfAbsent(String key, byte[] data);

  /**
   * One page of keys starting with {@code prefix}, in ascending lexical (UTF-8 byte) order, strictly
   * after {@code startAfter} when it is present.
   *
   * @param maxKeys the most keys to return, at least 1; a store may return fewer
   */
  ListPage list(String prefix, Optional<String> startAfter, int maxKeys);

  /** Every key under {@code prefix}, in ascending lexical order, fetched page by page. */
  default List<ObjectInfo> listAll(String prefix) {
    return PortDefaults.listAll(this, prefix);
  }

  /** Deletes an object; deleting a missing key is not an error. */
  void delete(String key);

  /**
   * Deletes many objects, in batches where the store supports it. Missing keys are not errors. Every key is
   * checked before any is deleted: one invalid key refuses the whole call.
   *
   * @return the keys that could not be deleted (empty when all are gone)
   */
  default List<String> deleteAll(Collection<String> keys) {
    return PortDefaults.deleteEach(this, keys);
  }

  /**
   * The store's own temporary files older than {@code olderThan}: files it creates while a write is in
   * progress and removes when the write ends (the local store's {@code .quiver-tmp-*} files), left behind
   * by a writer that was killed. They are not objects: no other method sees or touches them. Cleanup lists
   * and removes them, once older than its safety window, through this method and {@link
   * #deleteAbandonedTemporaries}; nothing in the core guesses their names. The default is none: stores
   * whose unfinished uploads are invisible and expire on the service (multipart uploads, resumable sessions,
   * uncommitted blocks) have nothing to remove.
   *
   * @return one entry per temporary: its path relative to the root (not a key), size and last modification
   */
  default List<ObjectInfo> abandonedTemporaries(Instant olderThan) {
    StoreArgs.olderThan(olderThan);
    return List.of();
  }

  /**
   * Deletes the {@link #abandonedTemporaries abandoned temporaries} older than {@code olderThan}, each
   * checked again just before its deletion (a writer that resumed keeps its file). One that cannot be
   * deleted is left for the next cleanup.
   *
   * @return the temporaries deleted
   */
  default List<ObjectInfo> deleteAbandonedTemporaries(Instant olderThan) {
    StoreArgs.olderThan(olderThan);
    return List.of();
  }

  /**
   * The request shape readers should use on this store: the gap up to which nearby wanted ranges share a
   * request, the size a scan's requests aim at, and how many a scan keeps in flight. What a request costs
   * decides it: a local file's read costs microseconds and less than handing it to a fetch thread ({@link
   * FetchTuning#LOCAL}, the local and in-memory stores); a cloud GET costs tens of milliseconds, so reading
   * a megabyte of other columns' bytes between two wanted ranges is cheaper than a second request and
   * several requests are kept in flight ({@link FetchTuning#CLOUD}, the S3, GCS and Azure adapters). The
   * default is {@link FetchTuning#DEFAULT}. A caller's explicit {@code DatasetOptions} setting ({@code
   * coalesceGapBytes}, {@code fetchRequestBytes}, {@code fetchRequestsInFlight}) wins over each value.
   * Decorators ({@link ForwardingObjectStore}) forward it. Must be cheap and always give the same answer.
   */
  default FetchTuning fetchTuning() {
    return FetchTuning.DEFAULT;
  }

  @Override
  default void close() {}

  /** Outcome of {@link #putIfAbsent}. */
  enum PutResult {
    CREATED,
    ALREADY_EXISTS
  }

  /**
   * A streaming upload. {@link #close()} publishes the object; {@link #abort()} discards it. Closing after
   * an abort does nothing.
   */
  abstract class ObjectWriter extends OutputStream {
    /** Discards everything written; the key is left as it was. */
    public abstract void abort();

    /** Bytes written so far. */
    public abstract long position();
  }
}
