package io.quiver.dataset;

import io.quiver.manifest.Manifest;
import io.quiver.manifest.ScalarIndex;
import java.util.List;
import java.util.Objects;

/**
 * A distributed build of one scalar index, planned at a handle's version ({@link Indices#planBuild} to create
 * the index, {@link Indices#planOptimize} to index the fragments its segments do not cover): one {@link
 * IndexBuildTask} per group of adjacent fragments, each writing one segment, all pinned to the version the plan
 * was made at. The driver keeps the plan, ships the tasks to workers, and hands the plan back to {@link
 * Indices#commit} with the workers' {@link BuiltIndexSegment}s, which publishes them in one commit. Immutable.
 */
public final class IndexBuildPlan {
  /** What the commit of the plan does. */
  public enum Action {
    /** Creates the index with the plan's segments. */
    CREATE,
    /** Adds the plan's segments to the existing index. */
    OPTIMIZE
  }

  private final String planId;
  private final String tableUri;
  private final String tableLocation;
  private final Action action;
  private final ScalarIndex index;
  private final String column;
  private final IndexBuildOptions options;
  private final List<IndexBuildTask> tasks;
  private final transient Manifest manifest;

  IndexBuildPlan(String planId, String tableUri, String tableLocation, Action action, ScalarIndex index,
      String column, IndexBuildOptions options, List<IndexBuildTask> tasks, Manifest manifest) {
    this.planId = Objects.requireNonNull(planId, "planId");
    this.tableUri = Objects.requireNonNull(tableUri, "tableUri");
    this.tableLocation = Objects.requireNonNull(tableLocation, "tableLocation");
    this.action = Objects.requireNonNull(action, "action");
    this.index = Objects.requireNonNull(index, "index");
    this.column = Objects.requireNonNull(column, "column");
    this.options = Objects.requireNonNull(options, "options");
    this.tasks = List.copyOf(tasks);
    this.manifest = Objects.requireNonNull(manifest, "manifest");
  }

  /** The plan's identity (random): its tasks and their segments carry it, and a commit takes only its own. */
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

  public Action action() {
    return action;
  }

  /**
   * The index: for a create, the new index (its uuid, name, kind and field) without segments; for an optimize,
   * the index as the planned version holds it.
   */
  public ScalarIndex index() {
    return index;
  }

  /** The indexed column's path at the planned version (dotted for a struct member). */
  public String column() {
    return column;
  }

  public IndexBuildOptions options() {
    return options;
  }

  /** One task per group of fragments to index, in manifest order. */
  public List<IndexBuildTask> tasks() {
    return tasks;
  }

  /**
   * Whether there is no fragment to index (no task). The commit of an empty create still creates the (empty)
   * index; that of an empty optimize commits nothing.
   */
  public boolean isEmpty() {
    return tasks.isEmpty();
  }

  /** Fragments the tasks index, in total. */
  public int fragmentsToIndex() {
    return tasks.stream().mapToInt(t -> t.fragmentIds().size()).sum();
  }

  /** The manifest planned (the commit's base). */
  Manifest manifest() {
    return manifest;
  }

  @Override
  public String toString() {
    return "IndexBuildPlan[" + planId + ", " + action.name().toLowerCase(java.util.Locale.ROOT) + " index '"
        + index.name() + "' (" + index.kind().label() + " on " + column + "), " + tableLocation + " @ version "
        + version() + ", " + tasks.size() + " tasks, " + fragmentsToIndex() + " fragments]";
  }
}
