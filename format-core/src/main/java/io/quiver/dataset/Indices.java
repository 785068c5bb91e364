package io.quiver.dataset;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.internal.codec.IndexBuildCodec;
import io.quiver.internal.index.IndexBuilder;
import io.quiver.internal.index.IndexedColumns;
import io.quiver.internal.predicate.CellValues;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.IndexedFragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.ScalarIndex;
import io.quiver.schema.Field;
import io.quiver.store.ObjectInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The scalar indices of a table (docs/format.md §13), at a dataset handle's version: create, list, optimize and
 * drop. An index speeds up filters ({@code =}, {@code IN}, ranges, {@code IS NULL}) on one column; it never
 * changes what a scan returns. Each segment of an index covers fragments in the state they had when it was built,
 * and a scan uses it for a fragment only while the fragment is still in that state: rows appended, updated in the
 * indexed column, replaced or compacted since are scanned until {@link #optimize} indexes them. Deleted rows need
 * no upkeep (scans apply the current deletion files). Each commit moves the handle.
 *
 * <p><b>Distributed builds.</b> {@link #planBuild} and {@link #planOptimize} split what {@link #create} and {@link
 * #optimize} index into {@link IndexBuildTask}s pinned to the handle's version (one segment each), which workers
 * {@link IndexBuildTask#build build}; {@link #commit} publishes every segment in one commit.
 */
public final class Indices {
  private final Dataset dataset;

  Indices(Dataset dataset) {
    this.dataset = dataset;
  }

  /**
   * Builds an index named {@code name} of {@code kind} on {@code column} (a top-level column or a struct member,
   * dotted) over every fragment of the handle's version, and commits it.
   *
   * @return the index as committed
   * @throws InvalidArgumentException for an invalid or taken name, an unknown column, or a column whose type
   *     cannot be indexed (integers, dates, times, timestamps, durations, booleans, decimals, strings and
   *     binaries can; floating point, lists and structs cannot)
   * @throws io.quiver.exceptions.IncompatibleTransactionException if a concurrent commit created an index of
   *     the same name or dropped the column (nothing is committed)
   */
  public ScalarIndex create(String name, ScalarIndex.Kind kind, String column) {
    Manifest base = dataset.base();
    Field field = checkNew(base, name, kind, column);
    String uuid = UUID.randomUUID().toString();
    List<Fragment> fragments = base.fragments();
    long version = dataset.mutate(m -> {
      List<IndexSegment> segments = fragments.isEmpty() ? List.of() : List.of(IndexBuilder.build(m.io(),
          base.schema(), base.version(), uuid, kind, field.id(), fragments, dataset.allocator()));
      ScalarIndex index = new ScalarIndex(uuid, name, kind, field.id(), base.version(), segments);
      return dataset.moveTo(m.commit(base, new Operation.UpdateIndices(Operation.UpdateIndices.Action.CREATE, index),
          dataset.options().commitOptions()));
    });
    return committed(name, version);
  }

  /** The indices of the handle's version, by name. */
  public List<ScalarIndex> list() {
    return dataset.base().indices();
  }

  /** The index named {@code name} at the handle's version. */
  public Optional<ScalarIndex> get(String name) {
    return dataset.base().index(name);
  }

  /**
   * How much of the handle's version {@code name} answers for.
   *
   * @param coveredFragments fragments with live rows some segment covers in their current state
   * @param uncoveredFragments fragments with live rows scanned instead (new or changed since a build)
   * @param coveredRows live rows in the covered fragments
   * @param uncoveredRows live rows in the others
   */
  public record Coverage(long coveredFragments, long uncoveredFragments, long coveredRows, long uncoveredRows) {}

  /** The coverage of {@code name} at the handle's version. */
  public Coverage coverage(String name) {
    Manifest base = dataset.base();
    ScalarIndex index = require(base, name);
    List<Fragment> uncovered = uncovered(base, index);
    Set<Long> uncoveredIds = new java.util.HashSet<>();
    uncovered.forEach(f -> uncoveredIds.add(f.id()));
    long cf = 0;
    long uf = 0;
    long cr = 0;
    long ur = 0;
    for (Fragment f : base.fragments()) {
      if (f.liveRows() == 0) {
        continue;
      }
      if (uncoveredIds.contains(f.id())) {
        uf++;
        ur += f.liveRows();
      } else {
        cf++;
        cr += f.liveRows();
      }
    }
    return new Coverage(cf, uf, cr, ur);
  }

  /**
   * Indexes the fragments of the handle's version that no segment of {@code name} covers in their current state
   * (appended, updated in the indexed column, replaced or compacted since the last build) as one new segment, and
   * commits it. With nothing to index, commits nothing.
   *
   * @return the index as the handle now sees it
   */
  public ScalarIndex optimize(String name) {
    Manifest base = dataset.base();
    ScalarIndex index = require(base, name);
    List<Fragment> todo = uncovered(base, index);
    if (todo.isEmpty()) {
      return index;
    }
    long version = dataset.mutate(m -> {
      IndexSegment segment = IndexBuilder.build(m.io(), base.schema(), base.version(), index.uuid(), index.kind(),
          index.fieldId(), todo, dataset.allocator());
      return dataset.moveTo(m.commit(base, new Operation.UpdateIndices(Operation.UpdateIndices.Action.OPTIMIZE,
          index.withSegments(List.of(segment))), dataset.options().commitOptions()));
    });
    return committed(name, version);
  }

  /**
   * Drops the index named {@code name} and returns the committed version. Its files stay while older versions
   * reference them; {@link Dataset#cleanup} removes them with those versions.
   */
  public long drop(String name) {
    Manifest base = dataset.base();
    ScalarIndex index = require(base, name);
    return dataset.commit(base, new Operation.UpdateIndices(Operation.UpdateIndices.Action.DROP, index));
  }

  // ---------------------------------------------------------------- distributed builds

  /**
   * Plans the build of a new index named {@code name} of {@code kind} on {@code column} at this handle's version,
   * split into tasks for workers: runs of adjacent fragments (every fragment of the version, as {@link #create}
   * indexes) of up to {@link IndexBuildOptions#rowsPerTask} physical rows, one {@link IndexBuildTask} each. Reads
   * nothing but the manifest. Workers {@link IndexBuildTask#build build} the tasks; {@link #commit} publishes
   * their segments as the new index in one commit. A table without fragments plans no task (its commit creates
   * an empty index).
   *
   * @throws InvalidArgumentException as {@link #create} does (an invalid or taken name, an unknown column, a
   *     column that cannot be indexed), or if {@code options} is null
   */
  public IndexBuildPlan planBuild(String name, ScalarIndex.Kind kind, String column, IndexBuildOptions options) {
    requireOptions(options);
    Manifest base = dataset.base();
    Field field = checkNew(base, name, kind, column);
    ScalarIndex index = new ScalarIndex(UUID.randomUUID().toString(), name, kind, field.id(), base.version(),
        List.of());
    return plan(base, IndexBuildPlan.Action.CREATE, index, base.fragments(), options);
  }

  /**
   * Plans an {@link #optimize} of {@code name} at this handle's version, split into tasks for workers: the
   * fragments no segment covers in their current state, grouped as {@link #planBuild} groups. Empty when every
   * fragment is covered (its commit commits nothing).
   *
   * @throws NotFoundException if the version has no index named {@code name}
   * @throws InvalidArgumentException if {@code options} is null
   */
  public IndexBuildPlan planOptimize(String name, IndexBuildOptions options) {
    requireOptions(options);
    Manifest base = dataset.base();
    ScalarIndex index = require(base, name);
    return plan(base, IndexBuildPlan.Action.OPTIMIZE, index, uncovered(base, index), options);
  }

  /**
   * Publishes the segments workers built for {@code plan}'s tasks in one commit computed from the plan's version
   * (creating the index, or adding them to it), and moves this handle to it. {@code segments} holds exactly one
   * segment per task, in any order. Each segment's file is checked to exist with its recorded size first. A
   * segment covers its fragments in the state the plan's version has them: a fragment compacted, replaced or
   * updated in the indexed column since is scanned instead (docs/format.md §13), so data committed after the plan
   * never makes the commit wrong and never fails it.
   *
   * <p>A commit that fails publishes nothing and deletes nothing: the segment files stay, referenced by no
   * version, until {@link Dataset#cleanup} removes them once they are older than its safety window. The same
   * segments can be committed again after a failure that was not about them (a store error), within that window.
   *
   * @return the committed version and the index it holds; for an empty optimize plan, the plan's version and the
   *     index as planned (nothing committed)
   * @throws InvalidArgumentException if the plan is of another table; a segment is of another plan, table,
   *     version or index, or does not cover its task's fragments; two segments are for one task; or a task has no
   *     segment
   * @throws NotFoundException if a segment's file is missing or has another size (removed by a cleanup): build
   *     its task again
   * @throws IncompatibleTransactionException if a version committed after the plan created an index of the same
   *     name (a create), dropped or re-created the index (an optimize), or dropped the indexed column, or if the
   *     plan's segments were already published by an earlier commit of it: nothing is committed
   */
  public IndexBuildResult commit(IndexBuildPlan plan, List<BuiltIndexSegment> segments) {
    List<IndexSegment> checked = check(plan, segments);
    long fragments = checked.stream().mapToLong(s -> s.fragments().size()).sum();
    long rows = checked.stream().mapToLong(IndexSegment::rows).sum();
    ScalarIndex index = plan.index();
    if (plan.action() == IndexBuildPlan.Action.OPTIMIZE && checked.isEmpty()) {
      return new IndexBuildResult(plan.version(), index, plan.column(), 0, 0, 0);
    }
    if (plan.action() == IndexBuildPlan.Action.CREATE) {
      refuseRecreate(plan);
    }
    Operation.UpdateIndices op = plan.action() == IndexBuildPlan.Action.CREATE
        ? new Operation.UpdateIndices(Operation.UpdateIndices.Action.CREATE, new ScalarIndex(index.uuid(),
            index.name(), index.kind(), index.fieldId(), plan.version(), checked))
        : new Operation.UpdateIndices(Operation.UpdateIndices.Action.OPTIMIZE, index.withSegments(checked));
    long version = dataset.mutate(m -> dataset.moveTo(m.commit(plan.manifest(), op,
        dataset.options().commitOptions())));
    ScalarIndex committed = committed(index.name(), version);
    return new IndexBuildResult(version, committed, dataset.base().schema().pathOf(committed.fieldId()),
        checked.size(), fragments, rows);
  }

  private IndexBuildPlan plan(Manifest base, IndexBuildPlan.Action action, ScalarIndex index,
      List<Fragment> fragments, IndexBuildOptions options) {
    String planId = UUID.randomUUID().toString();
    String location = dataset.io().location();
    List<IndexBuildTask> tasks = new ArrayList<>();
    List<Long> group = new ArrayList<>();
    long rows = 0;
    for (Fragment f : fragments) {
      if (!group.isEmpty() && rows + f.physicalRows() > options.rowsPerTask()) {
        tasks.add(task(planId, tasks.size(), location, base, index, group));
        group = new ArrayList<>();
        rows = 0;
      }
      group.add(f.id());
      rows += f.physicalRows();
    }
    if (!group.isEmpty()) {
      tasks.add(task(planId, tasks.size(), location, base, index, group));
    }
    return new IndexBuildPlan(planId, dataset.uri(), location, action, index,
        base.schema().pathOf(index.fieldId()), options, tasks, base);
  }

  private IndexBuildTask task(String planId, int taskIndex, String location, Manifest base, ScalarIndex index,
      List<Long> fragmentIds) {
    return new IndexBuildTask(new IndexBuildCodec.Task(planId, taskIndex, dataset.uri(), location, base.version(),
        index.uuid(), index.name(), index.kind(), index.fieldId(), fragmentIds));
  }

  /** The segments, checked against the plan and this table, in task order. */
  private List<IndexSegment> check(IndexBuildPlan plan, List<BuiltIndexSegment> segments) {
    if (plan == null || segments == null) {
      throw new InvalidArgumentException("the plan and the built segments must not be null");
    }
    String location = dataset.io().location();
    if (!plan.tableLocation().equals(location)) {
      throw new InvalidArgumentException("the index build plan " + plan.planId() + " was made on table "
          + plan.tableLocation() + ", not " + location + "; commit it through a handle on its own table");
    }
    TreeMap<Integer, BuiltIndexSegment> byTask = new TreeMap<>();
    for (BuiltIndexSegment s : segments) {
      if (s == null) {
        throw new InvalidArgumentException("a built index segment is null; pass only segments IndexBuildTask.build"
            + " returned");
      }
      String which = "built index segment " + s.path() + " (task " + s.taskIndex() + " of plan " + s.planId() + ")";
      if (!s.tableLocation().equals(location)) {
        throw new InvalidArgumentException(which + " was written for table " + s.tableLocation() + ", not "
            + location + "; commit it on its own table");
      }
      if (!s.planId().equals(plan.planId())) {
        throw new InvalidArgumentException(which + " belongs to another index build plan than " + plan.planId()
            + " being committed; commit each plan's segments with that plan");
      }
      if (s.version() != plan.version() || !s.indexUuid().equals(plan.index().uuid())) {
        throw new InvalidArgumentException(which + " was built at version " + s.version() + " for index uuid "
            + s.indexUuid() + ", but plan " + plan.planId() + " builds index '" + plan.index().name() + "' (uuid "
            + plan.index().uuid() + ") at version " + plan.version() + "; build the plan's task again");
      }
      if (s.taskIndex() >= plan.tasks().size()) {
        throw new InvalidArgumentException(which + " is for task " + s.taskIndex() + ", but plan " + plan.planId()
            + " has only " + plan.tasks().size() + " tasks; pass the segments the plan's tasks returned");
      }
      IndexBuildTask task = plan.tasks().get(s.taskIndex());
      if (!s.fragmentIds().equals(task.fragmentIds())) {
        throw new InvalidArgumentException(which + " covers fragments " + s.fragmentIds() + ", but task "
            + s.taskIndex() + " indexes " + task.fragmentIds() + "; build the task again");
      }
      if (byTask.putIfAbsent(s.taskIndex(), s) != null) {
        throw new InvalidArgumentException("two built index segments for task " + s.taskIndex() + " of plan "
            + plan.planId() + " (" + byTask.get(s.taskIndex()).path() + " and " + s.path() + "); pass one per task"
            + " (the one to publish; the other is left to cleanup)");
      }
    }
    if (byTask.size() != plan.tasks().size()) {
      List<Integer> missing = new ArrayList<>();
      for (int i = 0; i < plan.tasks().size(); i++) {
        if (!byTask.containsKey(i)) {
          missing.add(i);
        }
      }
      throw new InvalidArgumentException("no built segment for tasks " + missing + " of index build plan "
          + plan.planId() + " (" + plan.tasks().size() + " tasks); build every task of the plan and pass all their"
          + " segments: nothing was committed");
    }
    List<IndexSegment> out = new ArrayList<>();
    for (BuiltIndexSegment s : byTask.values()) {
      IndexSegment segment = s.segment();
      Optional<ObjectInfo> info = dataset.io().store().head(segment.path());
      if (info.isEmpty() || info.get().size() != segment.sizeBytes()) {
        throw new NotFoundException("index segment file " + segment.path() + " of task " + s.taskIndex() + " of plan "
            + s.planId() + " is " + info.map(i -> i.size() + " bytes").orElse("missing") + " but the segment records "
            + segment.sizeBytes() + " bytes (removed by a cleanup, or replaced); nothing was committed. Build the"
            + " task again, and commit within the cleanup safety window");
      }
      out.add(segment);
    }
    return out;
  }

  /**
   * Refuses, saying so, a create plan committed again after a commit of it landed (a driver that lost the answer
   * of its commit): the conflict rules refuse it anyway (two creates of one name), but not with that explanation.
   */
  private void refuseRecreate(IndexBuildPlan plan) {
    Optional<Long> latest = dataset.io().commitStore().latestVersion();
    if (latest.isEmpty() || latest.get() <= plan.version()) {
      return;
    }
    Manifest now = dataset.io().load(latest.get()).manifest();
    for (ScalarIndex index : now.indices()) {
      if (index.uuid().equals(plan.index().uuid())) {
        throw new IncompatibleTransactionException("index build plan " + plan.planId() + " was already committed:"
            + " index '" + index.name() + "' (uuid " + index.uuid() + ") was created at version "
            + index.createdVersion() + " and is in the latest version " + latest.get() + "; nothing was committed."
            + " Do not commit the build again");
      }
    }
  }

  private static void requireOptions(IndexBuildOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("index build options must not be null; use IndexBuildOptions.defaults()");
    }
  }

  /** The field a new index {@code name} of {@code kind} on {@code column} indexes; checks all three. */
  private Field checkNew(Manifest base, String name, ScalarIndex.Kind kind, String column) {
    if (!ScalarIndex.isValidName(name)) {
      throw new InvalidArgumentException("index name '" + name + "' must match [A-Za-z0-9_.-]{1,128}");
    }
    if (kind == null) {
      throw new InvalidArgumentException("index kind must be btree or bitmap, got null");
    }
    base.index(name).ifPresent(existing -> {
      throw new InvalidArgumentException("table " + dataset.uri() + " already has an index named '" + name + "' (on "
          + base.schema().pathOf(existing.fieldId()) + ", created at version " + existing.createdVersion()
          + "); drop it first or choose another name");
    });
    return indexable(base, column);
  }

  private ScalarIndex committed(String name, long version) {
    return dataset.base().index(name).orElseThrow(() -> new IllegalStateException(
        "index '" + name + "' is not in version " + version + " that committed it"));
  }

  private ScalarIndex require(Manifest base, String name) {
    return base.index(name).orElseThrow(() -> new NotFoundException("table " + dataset.uri() + " has no index named '"
        + name + "' at version " + base.version() + "; it has " + base.indices().stream().map(ScalarIndex::name).toList()));
  }

  /** Fragments with rows that no segment of {@code index} covers in their current state. */
  static List<Fragment> uncovered(Manifest base, ScalarIndex index) {
    Set<Integer> column = IndexedColumns.of(base.schema(), index.fieldId());
    Map<Long, List<IndexedFragment>> covered = new HashMap<>();
    for (IndexSegment s : index.segments()) {
      for (IndexedFragment f : s.fragments()) {
        covered.computeIfAbsent(f.fragmentId(), x -> new ArrayList<>()).add(f);
      }
    }
    List<Fragment> out = new ArrayList<>();
    for (Fragment f : base.fragments()) {
      if (f.liveRows() == 0) {
        continue;
      }
      List<IndexedFragment> entries = covered.getOrDefault(f.id(), List.of());
      if (entries.stream().noneMatch(e -> e.matches(f, column))) {
        out.add(f);
      }
    }
    return out;
  }

  private Field indexable(Manifest base, String column) {
    if (column == null || column.isEmpty()) {
      throw new InvalidArgumentException("the column to index must be named");
    }
    Field field = base.schema().findField(column).orElseThrow(() -> new InvalidArgumentException(
        "table " + dataset.uri() + " has no column '" + column + "' at version " + base.version()
            + " (nested members are named with dots, e.g. a.b)"));
    if (field.isStruct() || !field.isAtomic() || !CellValues.isKeyType(field.type())) {
      throw new InvalidArgumentException("column '" + column + "' of type " + field.type() + " cannot be indexed:"
          + " scalar indices take integer, date, time, timestamp, duration, boolean, decimal, string and binary"
          + " columns (top-level or struct members), not floating point, lists or structs");
    }
    return field;
  }
}
