package io.quiver.store;

import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.StoreException;
import java.io.OutputStream;
import java.util.ArrayList;
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
 * <p>Errors: a missing key is {@link ObjectNotFoundException}; any other failure is a {@link
 * StoreException}. Implementations are thread-safe.
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
   * @throws IllegalArgumentException if {@code offset} or {@code length} is negative
   */
  byte[] readRange(String key, long offset, int length);

  /**
   * Reads bytes starting at {@code offset} into {@code target}'s remaining space and advances its
   * position; fewer bytes are read when the object ends first. Readers of large ranges call this to read
   * straight into (direct) Arrow memory; the default copies through {@link #readRange}, and a store that
   * can read into a buffer without the extra copy (the local filesystem) overrides it.
   *
   * @return the number of bytes read
   * @throws IllegalArgumentException if {@code offset} is negative
   */
  default int readRangeInto(String key, long offset, java.nio.ByteBuffer target) {
    byte[] bytes = readRange(key, offset, target.remaining());
    target.put(bytes);
    return bytes.length;
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
   * @return {@link PutResult#CREATED} if this call created it, {@link PutResult#ALREADY_EXISTS} if an
   *     object was already there (its content is untouched)
   * @throws StoreException if the outcome is unknown (the object may or may not have been created)
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
    List<ObjectInfo> all = new ArrayList<>();
    Optional<String> after = Optional.empty();
    while (true) {
      ListPage page = list(prefix, after, 1000);
      all.addAll(page.objects());
      if (!page.hasMore() || page.objects().isEmpty()) {
        return all;
      }
      after = Optional.of(page.objects().get(page.objects().size() - 1).key());
    }
  }

  /** Deletes an object; deleting a missing key is not an error. */
  void delete(String key);

  /**
   * Deletes many objects, in batches where the store supports it. Missing keys are not errors.
   *
   * @return the keys that could not be deleted (empty when all are gone)
   */
  default List<String> deleteAll(Collection<String> keys) {
    List<String> failed = new ArrayList<>();
    for (String key : keys) {
      try {
        delete(key);
      } catch (StoreException e) {
        failed.add(key);
      }
    }
    return failed;
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
