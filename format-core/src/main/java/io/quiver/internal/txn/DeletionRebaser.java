package io.quiver.internal.txn;

import io.quiver.internal.ops.Deleter;
import io.quiver.internal.read.Deletions;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Rebases a delete onto concurrent deletes of the same fragments: for each such fragment whose deletion file
 * changed since the transaction read it, writes a new file holding the current deletions plus the
 * transaction's {@code added} offsets. A row deleted by both stays deleted; no row is ever resurrected,
 * because the new file is a superset of the current one.
 *
 * <p>A fragment that left the manifest meanwhile can only have been removed by a delete of all its rows
 * (every other operation that removes fragments conflicts with a delete before a rebase is attempted), so
 * its entry is dropped: its rows are deleted already.
 */
final public class DeletionRebaser implements TransactionRebaser {
  private final TableIo io;

  /** Writes the rebased deletion files through {@code io} (a mutation's, which records them). */
  public DeletionRebaser(TableIo io) {
    this.io = io;
  }

  @Override
  public Transaction rebase(Transaction txn, Manifest latest, Set<Long> fragments) {
    if (!(txn.operation() instanceof Operation.Delete delete)) {
      throw new IllegalStateException(
          txn.operation().name() + " cannot be rebased as a delete, but the resolver asked to rebase fragments "
              + fragments);
    }
    Map<Long, Fragment> current = new HashMap<>();
    latest.fragments().forEach(f -> current.put(f.id(), f));
    List<Operation.FragmentDeletion> rebased = new ArrayList<>();
    boolean changed = false;
    for (Operation.FragmentDeletion fd : delete.deletions()) {
      if (!fragments.contains(fd.fragmentId())) {
        rebased.add(fd);
        continue;
      }
      Fragment f = current.get(fd.fragmentId());
      if (f == null) {
        changed = true;
        continue;
      }
      Optional<DeletionFile> now = f.deletionFile();
      if (now.equals(fd.previous())) {
        rebased.add(fd);
        continue;
      }
      RoaringBitmap all = Deletions.of(io, f);
      all.or(fd.added().toRoaringBitmap());
      DeletionFile file = Deleter.writeDeletionFile(io, f.id(), latest.version(), all);
      rebased.add(new Operation.FragmentDeletion(f.id(), now, file, fd.added()));
      changed = true;
    }
    if (!changed) {
      return txn;
    }
    return new Transaction(txn.uuid(), txn.readVersion(),
        new Operation.Delete(rebased, delete.readFieldIds(), delete.predicate()), txn.properties());
  }
}
