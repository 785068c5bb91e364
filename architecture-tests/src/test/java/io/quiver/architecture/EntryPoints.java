package io.quiver.architecture;

import io.quiver.checkpoint.CheckpointedWriter;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetColumns;
import io.quiver.dataset.DistributedCompaction;
import io.quiver.dataset.DistributedWrites;
import io.quiver.dataset.Indices;
import io.quiver.dataset.Scanner;
import io.quiver.dataset.Tags;

/** The entry points, as classes: renaming one breaks this file instead of silently weakening a rule. */
final class EntryPoints {
  static final Class<?>[] CLASSES = {
      Dataset.class, DatasetColumns.class, DistributedCompaction.class, DistributedWrites.class, Indices.class, Scanner.class,
      Tags.class,
      CheckpointedWriter.class};

  private EntryPoints() {}
}
