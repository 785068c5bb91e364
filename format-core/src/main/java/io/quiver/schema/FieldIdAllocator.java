package io.quiver.schema;

import io.quiver.exceptions.InvalidArgumentException;

/**
 * Hands out field ids above a table's high-water mark.
 *
 * <p>Ids are never reused: a data file written before a column was dropped still carries the old id,
 * and a later column that received the same id would silently read that stale data. So the allocator
 * starts from the high-water mark the table's manifest remembers, not from {@link Schema#maxFieldId()}
 * of the current schema (which forgets dropped fields).
 *
 * <p>Not thread-safe: allocation happens while building one commit.
 */
public final class FieldIdAllocator {
  private int maxAllocated;

  /**
   * @param maxAllocatedSoFar the highest id ever allocated in the table, or {@code -1} for a new table
   *     (the first id handed out is then {@code 0})
   */
  public FieldIdAllocator(int maxAllocatedSoFar) {
    if (maxAllocatedSoFar < -1) {
      throw new InvalidArgumentException(
          "maxAllocatedSoFar must be >= -1 (-1 means no id allocated yet), got " + maxAllocatedSoFar);
    }
    this.maxAllocated = maxAllocatedSoFar;
  }

  /** The next unused id; also becomes the new high-water mark. */
  public int next() {
    if (maxAllocated == Integer.MAX_VALUE) {
      throw new InvalidArgumentException("field ids exhausted: " + Integer.MAX_VALUE + " already allocated");
    }
    return ++maxAllocated;
  }

  /** The high-water mark to persist: the last id handed out, or the starting mark if none was. */
  public int maxAllocated() {
    return maxAllocated;
  }

  @Override
  public String toString() {
    return "FieldIdAllocator[maxAllocated=" + maxAllocated + "]";
  }
}
