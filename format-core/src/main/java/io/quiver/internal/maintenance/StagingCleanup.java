package io.quiver.internal.maintenance;

import io.quiver.internal.checkpoint.StagingLayout;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What cleanup does with {@code _staging/}: the data files of sealed, uncommitted checkpoints (and of open
 * checkpoints staged within the safety window) are protected whatever their age; the staging objects of
 * committed checkpoints and of abandoned open ones (nothing staged within the safety window) are removed.
 */
final public class StagingCleanup {
  /** Files to keep, and staging objects to remove. */
  record Plan(Set<String> protectedFiles, List<ObjectInfo> removable) {}

  private StagingCleanup() {}

  /** Reads every staged checkpoint; an unreadable staged object stops the cleanup (its files are unknown). */
  static Plan plan(ObjectStore store, Instant youngAfter) {
    Set<String> protectedFiles = new HashSet<>();
    List<ObjectInfo> removable = new ArrayList<>();
    for (StagingLayout.Checkpoint c : StagingLayout.inventory(store, StagingLayout.PREFIX)) {
      if (c.committed().isPresent()) {
        if (c.committed().get().lastModified().isBefore(youngAfter)) {
          removable.addAll(c.objects()); // its files are the table's now
        }
      } else if (c.sealed().isPresent()) {
        for (String task : StagingLayout.sealedTasks(store, c)) {
          ObjectInfo info = c.tasks().get(task);
          if (info != null) {
            StagingLayout.taskResults(store, info.key()).forEach(r -> protectedFiles.addAll(r.files()));
          }
        }
      } else if (c.lastModified().isBefore(youngAfter)) {
        removable.addAll(c.objects()); // abandoned: never sealed within the safety window
      } else {
        for (ObjectInfo info : c.tasks().values()) {
          StagingLayout.taskResults(store, info.key()).forEach(r -> protectedFiles.addAll(r.files()));
        }
      }
    }
    return new Plan(protectedFiles, removable);
  }
}
