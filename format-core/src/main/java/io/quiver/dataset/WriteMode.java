package io.quiver.dataset;

/** How {@link DistributedWrites#commit} publishes write results. */
public enum WriteMode {
  /** The results' rows are added to the table's rows. */
  APPEND,
  /** The results' rows replace every row of the table (the schema is kept). */
  OVERWRITE
}
