package io.quiver.conformance;

import io.quiver.store.ObjectStore;
import java.util.Map;

/**
 * How a store writes objects too large for one request — a multipart upload (S3), a resumable upload
 * (GCS), staged blocks (Azure) — for {@link ObjectStoreCapabilityContract}'s large-object tests. Those
 * open a store with {@link #options()}, write objects of a few {@link #partSize()}s above {@link
 * #threshold()}, and check through {@link #watch} what only the store itself can show: that the parted
 * path was taken, and that nothing of an aborted upload is left behind.
 */
public interface LargeObjects {
  /** Store options (added to the fixture's) that make objects above {@link #threshold()} go in parts. */
  Map<String, String> options();

  /** Objects larger than this many bytes take the parted path under {@link #options()}. */
  int threshold();

  /** The size of one part (block, chunk) under {@link #options()}. */
  int partSize();

  /**
   * Whether {@code putIfAbsent} of an object above {@link #threshold()} also goes in parts (committed under
   * the condition at the end); false when the store's conditional put is one request at any size.
   */
  default boolean partedPutIfAbsent() {
    return false;
  }

  /** Starts watching {@code store} (opened with {@link #options()}) from behind the adapter's back. */
  Watch watch(ObjectStore store);

  /** What the store shows of the parted writes through one store handle, from the moment of {@link #watch}. */
  interface Watch {
    /**
     * Asserts that a writer of {@code key}, not yet closed, has begun a parted upload (sent parts that are
     * not visible). Stores that cannot see an upload in progress check nothing.
     */
    default void assertUploading(String key) {}

    /** Asserts that {@code key} ({@code size} bytes), now visible, was committed through the parted path. */
    void assertWrittenInParts(String key, long size);

    /**
     * Asserts that no upload is left in progress and nothing uncommitted is visible under the store, after
     * every writer was closed or aborted. Stores that cannot see uploads check nothing.
     */
    default void assertNothingPending() {}
  }
}
