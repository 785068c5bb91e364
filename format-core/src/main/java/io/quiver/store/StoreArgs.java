package io.quiver.store;

import io.quiver.exceptions.InvalidArgumentException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The argument checks of {@link ObjectStore}, written once: every implementation calls these at the top of
 * each method, before any I/O, so that a null, an invalid key, a negative offset or length, a {@code
 * maxKeys} below 1 or a prefix no key can start with is the same {@link InvalidArgumentException}, with the
 * same message, on every store. The conformance suite ({@code ObjectStoreContractTest}) pins the
 * behaviour. It sits in the port's package, beside {@link Keys}, because the in-memory store here follows
 * it too; everything else adapters share is in {@code io.quiver.store.support}.
 */
public final class StoreArgs {
  private StoreArgs() {}

  /** A valid key ({@link Keys#check}); null is refused like any invalid key. */
  public static String key(String key) {
    return Keys.check(key);
  }

  /** The bytes of a write or conditional put. */
  public static byte[] data(String key, byte[] data) {
    if (data == null) {
      throw new InvalidArgumentException(
          "the data to write to '" + key + "' is null; pass an empty array for an empty object");
    }
    return data;
  }

  /** The offset and length of a ranged read: both at least 0. */
  public static void range(long offset, int length) {
    if (offset < 0 || length < 0) {
      throw new InvalidArgumentException(
          "the offset and length of a ranged read must be >= 0, got offset " + offset + " and length " + length);
    }
  }

  /**
   * The ranges of {@link ObjectStore#readRanges}: the list and each element non-null (each range checked
   * its own bounds when it was made).
   *
   * @return an immutable copy, in the caller's order
   */
  public static List<ByteRange> ranges(List<ByteRange> ranges) {
    if (ranges == null) {
      throw new InvalidArgumentException("the list of ranges to read is null; pass an empty list for none");
    }
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.get(i) == null) {
        throw new InvalidArgumentException("range " + i + " of the " + ranges.size() + " to read is null");
      }
    }
    return List.copyOf(ranges);
  }

  /** The offset and buffer of {@link ObjectStore#readRangeInto}. */
  public static ByteBuffer target(long offset, ByteBuffer target) {
    if (offset < 0) {
      throw new InvalidArgumentException("the offset of a ranged read must be >= 0, got " + offset);
    }
    if (target == null) {
      throw new InvalidArgumentException("the buffer to read into is null");
    }
    return target;
  }

  /** A list prefix: empty, or the start of some valid key ({@link Keys#checkPrefix}). */
  public static String prefix(String prefix) {
    return Keys.checkPrefix(prefix);
  }

  /** All three arguments of {@link ObjectStore#list}. */
  public static void list(String prefix, Optional<String> startAfter, int maxKeys) {
    prefix(prefix);
    if (startAfter == null) {
      throw new InvalidArgumentException("startAfter is null; pass Optional.empty() to list from the start");
    }
    if (maxKeys < 1) {
      throw new InvalidArgumentException("maxKeys must be >= 1, got " + maxKeys);
    }
  }

  /**
   * The keys of {@link ObjectStore#deleteAll}, every one checked before any is deleted.
   *
   * @return a copy, in the caller's order
   */
  public static List<String> keys(Collection<String> keys) {
    if (keys == null) {
      throw new InvalidArgumentException("the collection of keys to delete is null; pass an empty one");
    }
    List<String> copy = new ArrayList<>(keys);
    for (String key : copy) {
      Keys.check(key);
    }
    return copy;
  }

  /** The age bound of the temporaries calls. */
  public static Instant olderThan(Instant olderThan) {
    if (olderThan == null) {
      throw new InvalidArgumentException("olderThan is null");
    }
    return olderThan;
  }
}
