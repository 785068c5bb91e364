package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.internal.codec.CompactionCodec;
import io.quiver.internal.ops.Compactor;
import io.quiver.internal.table.Mutation;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.store.ObjectInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Compaction split across processes ({@link Dataset#compaction()}): a driver {@link #plan plans} at its
 * handle's version, workers {@link CompactionTask#execute execute} one {@link CompactionTask} each (reading
 * the pinned version and writing the rewritten fragments' files), and the driver {@link #commit commits}
 * the {@link CompactedGroup}s they return as one version. {@link Dataset#compact} is this same path run
 * in one process.
 *
 * <p><b>Conflicts.</b> The commit has the conflict rules of {@link Dataset#compact}: a version committed
 * after the plan that deleted, updated or rewrote rows of a fragment being compacted, added columns, or
 * removed a compacted fragment fails it with a {@link io.quiver.exceptions.RetryableConflictException},
 * and nothing is committed; other concurrent commits (appends, changes of other fragments) are merged in.
 *
 * <p><b>Files.</b> The groups' files are the caller's until a commit publishes them. A commit that fails
 * (conflict, error) publishes nothing and leaves them in place: they are referenced by no version, and
 * {@link Dataset#cleanup} removes them once they are older than its safety window — as it does the files of
 * staged column writes. The same groups can be committed again after a failure that was not about them
 * (a store error), within that window.
 *
 * <p>Shares the handle's store and allocator: use it while the handle is open.
 */
public final class DistributedCompaction {
  private final Dataset dataset;

  DistributedCompaction(Dataset dataset) {
    this.dataset = dataset;
  }

  /**
   * Plans a compaction at this handle's version: the groups of adjacent fragments that qualify under
   * {@code options} (see {@link CompactionOptions}), one {@link CompactionTask} each, in manifest order.
   * Reads nothing but the manifest. The plan is empty when nothing qualifies.
   *
   * @throws InvalidArgumentException if {@code options} is null
   */
  public CompactionPlan plan(CompactionOptions options) {
    if (options == null) {
      throw new InvalidArgumentException("compaction options must not be null; use CompactionOptions.defaults()");
    }
    Manifest base = dataset.base();
    TableIo io = dataset.io();
    String planId = UUID.randomUUID().toString();
    List<CompactionTask> tasks = new ArrayList<>();
    for (List<Fragment> run : new Compactor(io, base, dataset.allocator(), dataset.options().rowsPerBatch())
        .plan(options)) {
      tasks.add(new CompactionTask(new CompactionCodec.Task(planId, tasks.size(), dataset.uri(), io.location(),
          base.version(), run.stream().map(Fragment::id).toList(), options)));
    }
    return new CompactionPlan(planId, dataset.uri(), io.location(), options, tasks, base);
  }

  /**
   * Commits the groups workers wrote for {@code plan}'s tasks as one version computed from the plan's
   * version, and moves this handle to it. {@code groups} holds one group per task to publish, in any order
   * (a subset of the plan's tasks is allowed: fragments of the others stay as they are). Each group's files
   * are checked to exist with their recorded sizes first. An empty plan commits nothing: the result holds
   * the plan's version and zeros.
   *
   * @return the committed version, fragments removed and added, rows rewritten
   * @throws io.quiver.exceptions.RetryableConflictException if a version committed after the plan deleted,
   *     updated or rewrote rows of a compacted fragment (or added columns, or removed one): nothing is
   *     committed; plan again at the latest version
   * @throws InvalidArgumentException if the plan is of another table, a group is of another plan or table,
   *     does not match its task, or two groups are for one task, or no group is given for a non-empty plan
   * @throws NotFoundException if a group's file is missing or has another size (removed by a cleanup):
   *     execute its task again
   */
  public CompactionResult commit(CompactionPlan plan, List<CompactedGroup> groups) {
    List<CompactedGroup> checked = check(plan, groups);
    if (checked.isEmpty()) {
      return new CompactionResult(plan.version(), 0, 0, 0);
    }
    for (CompactedGroup g : checked) {
      checkFiles(g);
    }
    return dataset.mutate(m -> commit(m, plan, checked));
  }

  /** Commits checked groups through the mutation {@code m} (whose files they may be) and moves the handle. */
  CompactionResult commit(Mutation m, CompactionPlan plan, List<CompactedGroup> groups) {
    List<Operation.RewriteGroup> rewrite = new ArrayList<>();
    int removed = 0;
    int added = 0;
    long rows = 0;
    for (CompactedGroup g : groups) {
      rewrite.add(new Operation.RewriteGroup(g.removedFragmentIds(), g.newFragments()));
      removed += g.removedFragmentIds().size();
      added += g.newFragments().size();
      rows += g.rowsWritten();
    }
    long version = dataset.moveTo(
        m.commit(plan.manifest(), new Operation.Rewrite(rewrite), dataset.options().commitOptions()));
    return new CompactionResult(version, removed, added, rows);
  }

  /** The groups, checked against the plan and this table, in task order. */
  List<CompactedGroup> check(CompactionPlan plan, List<CompactedGroup> groups) {
    if (plan == null || groups == null) {
      throw new InvalidArgumentException("the plan and the groups must not be null");
    }
    String location = dataset.io().location();
    if (!plan.tableLocation().equals(location)) {
      throw new InvalidArgumentException(
          "the compaction plan " + plan.planId() + " was made on table " + plan.tableLocation() + ", not "
              + location + "; commit it through a handle on its own table");
    }
    if (plan.isEmpty()) {
      if (!groups.isEmpty()) {
        throw new InvalidArgumentException(
            "the compaction plan " + plan.planId() + " has no task, but " + groups.size() + " groups were given;"
                + " pass the groups of this plan's tasks only");
      }
      return List.of();
    }
    if (groups.isEmpty()) {
      throw new InvalidArgumentException(
          "no compacted group to commit for plan " + plan.planId() + " (" + plan.tasks().size() + " tasks);"
              + " execute the plan's tasks and pass the groups they return");
    }
    TreeMap<Integer, CompactedGroup> byTask = new TreeMap<>();
    for (CompactedGroup g : groups) {
      if (g == null) {
        throw new InvalidArgumentException("a compacted group is null; pass only groups CompactionTask.execute returned");
      }
      if (!g.tableLocation().equals(location)) {
        throw new InvalidArgumentException(
            "compacted group " + g.taskIndex() + " of plan " + g.planId() + " was written for table "
                + g.tableLocation() + ", not " + location + "; commit it on its own table");
      }
      if (!g.planId().equals(plan.planId())) {
        throw new InvalidArgumentException(
            "compacted group " + g.taskIndex() + " belongs to compaction plan " + g.planId() + ", not to plan "
                + plan.planId() + " being committed; commit each plan's groups with that plan");
      }
      if (g.taskIndex() >= plan.tasks().size()) {
        throw new InvalidArgumentException(
            "compacted group for task " + g.taskIndex() + " of plan " + plan.planId() + ", which has only "
                + plan.tasks().size() + " tasks; pass the groups the plan's tasks returned");
      }
      CompactionTask task = plan.tasks().get(g.taskIndex());
      if (g.version() != plan.version() || !g.removedFragmentIds().equals(task.fragmentIds())) {
        throw new InvalidArgumentException(
            "compacted group " + g.taskIndex() + " replaces fragments " + g.removedFragmentIds() + " read at version "
                + g.version() + ", but task " + g.taskIndex() + " of plan " + plan.planId() + " rewrites "
                + task.fragmentIds() + " at version " + plan.version() + "; execute the task again");
      }
      if (byTask.putIfAbsent(g.taskIndex(), g) != null) {
        throw new InvalidArgumentException(
            "two compacted groups for task " + g.taskIndex() + " of plan " + plan.planId() + "; pass one group per"
                + " task (the one whose files should be published)");
      }
    }
    return List.copyOf(byTask.values());
  }

  /** Every file of the group exists with its recorded size. */
  private void checkFiles(CompactedGroup g) {
    for (Fragment f : g.newFragments()) {
      for (DataFile file : f.files()) {
        Optional<ObjectInfo> info = dataset.io().store().head(file.path());
        if (info.isEmpty() || info.get().size() != file.sizeBytes()) {
          throw new NotFoundException(
              "data file " + file.path() + " of compacted group " + g.taskIndex() + " of plan " + g.planId() + " is "
                  + info.map(i -> i.size() + " bytes").orElse("missing") + " but the group records "
                  + file.sizeBytes() + " bytes (removed by a cleanup, or replaced); nothing was committed. Execute"
                  + " the task again, and commit within the cleanup safety window");
        }
      }
    }
  }

  @Override
  public String toString() {
    return "DistributedCompaction[" + dataset + "]";
  }
}
