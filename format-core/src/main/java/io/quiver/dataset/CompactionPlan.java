package io.quiver.dataset;

import io.quiver.manifest.Manifest;
import java.util.List;
import java.util.Objects;

/**
 * What a distributed compaction will rewrite ({@link DistributedCompaction#plan}): one {@link
 * CompactionTask} per group of adjacent fragments to rewrite together, all pinned to the version the plan
 * was made at. Empty when nothing qualifies. The driver keeps the plan, ships the tasks to workers, and
 * hands the plan back to {@link DistributedCompaction#commit} with the workers' {@link CompactedGroup}s.
 * Immutable.
 */
public final class CompactionPlan {
  private final String planId;
  private final String tableUri;
  private final String tableLocation;
  private final CompactionOptions options;
  private final List<CompactionTask> tasks;
  private final transient Manifest manifest;

  CompactionPlan(String planId, String tableUri, String tableLocation, CompactionOptions options,
      List<CompactionTask> tasks, Manifest manifest) {
    this.planId = Objects.requireNonNull(planId, "planId");
    this.tableUri = Objects.requireNonNull(tableUri, "tableUri");
    this.tableLocation = Objects.requireNonNull(tableLocation, "tableLocation");
    this.options = Objects.requireNonNull(options, "options");
    this.tasks = List.copyOf(tasks);
    this.manifest = Objects.requireNonNull(manifest, "manifest");
  }

  /** The plan's identity (random): its tasks and their groups carry it, and a commit takes only its own. */
  public String planId() {
    return planId;
  }

  /** The table URI the plan was made on, as its {@link Dataset} was opened. */
  public String tableUri() {
    return tableUri;
  }

  /** The table's location as its store resolved it. */
  public String tableLocation() {
    return tableLocation;
  }

  /** The version planned: every task reads its fragments at it, and the commit is computed from it. */
  public long version() {
    return manifest.version();
  }

  public CompactionOptions options() {
    return options;
  }

  /** One task per group of fragments to rewrite, in manifest order. */
  public List<CompactionTask> tasks() {
    return tasks;
  }

  /** Whether nothing qualifies (no task; a commit of the plan commits nothing). */
  public boolean isEmpty() {
    return tasks.isEmpty();
  }

  /** Fragments the tasks rewrite, in total. */
  public int fragmentsToRewrite() {
    return tasks.stream().mapToInt(t -> t.fragmentIds().size()).sum();
  }

  /** The manifest planned (the commit's base). */
  Manifest manifest() {
    return manifest;
  }

  @Override
  public String toString() {
    return "CompactionPlan[" + planId + ", " + tableLocation + " @ version " + version() + ", " + tasks.size()
        + " tasks, " + fragmentsToRewrite() + " fragments]";
  }
}
