package io.quiver.internal.txn;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.internal.predicate.CellValues;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.IndexedFragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.ScalarIndex;
import io.quiver.schema.Field;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The scalar indices of the version a transaction builds (docs/format.md §13.3): the base version's, carried
 * forward, with the transaction's own index change applied, coverage of fragments the transaction removed by
 * compaction or overwrite pruned (a rewritten fragment gets a new id; its rows are scanned until an optimize
 * indexes them), and indices of fields the new schema no longer has dropped. Everything else needs no upkeep:
 * a reader uses a segment for a fragment only while the fragment is in the state the segment records.
 */
final class IndexUpdate {
  private IndexUpdate() {}

  static List<ScalarIndex> next(Optional<Manifest> current, Transaction txn, Manifest built) {
    Map<String, ScalarIndex> byName = new TreeMap<>();
    current.ifPresent(m -> m.indices().forEach(i -> byName.put(i.name(), i)));
    Operation op = txn.operation();
    if (op instanceof Operation.UpdateIndices u) {
      apply(byName, u, built.version(), txn);
    } else if (op instanceof Operation.Overwrite || op instanceof Operation.Restore) {
      // Every fragment is replaced (a restore brings back old ones, which a segment still matches only if it
      // recorded them; keep nothing rather than reason about it): definitions stay, to be optimized again.
      byName.replaceAll((name, index) -> index.withSegments(List.of()));
    } else if (op instanceof Operation.Rewrite r) {
      Set<Long> removed = new HashSet<>();
      r.groups().forEach(g -> removed.addAll(g.oldFragmentIds()));
      byName.replaceAll((name, index) -> without(index, removed));
    }
    List<ScalarIndex> out = new ArrayList<>();
    for (ScalarIndex index : byName.values()) {
      Optional<Field> field = built.schema().findField(index.fieldId());
      if (field.isEmpty() || !field.get().isAtomic() || !CellValues.isKeyType(field.get().type())) {
        continue; // the column was dropped (or replaced by a field of another id): so is its index
      }
      out.add(index);
    }
    return out;
  }

  private static void apply(Map<String, ScalarIndex> byName, Operation.UpdateIndices u, long version,
      Transaction txn) {
    ScalarIndex asked = u.index();
    ScalarIndex existing = byName.get(asked.name());
    switch (u.action()) {
      case CREATE -> {
        if (existing != null && existing.uuid().equals(asked.uuid())) {
          throw new IncompatibleTransactionException("index '" + asked.name() + "' (uuid " + asked.uuid() + ") was"
              + " already created, at version " + existing.createdVersion() + ", by an earlier commit of the same"
              + " build; transaction " + txn.uuid() + " committed nothing. It is there: do not commit the build again");
        }
        if (existing != null) {
          throw new IncompatibleTransactionException("index '" + asked.name() + "' already exists (created at version "
              + existing.createdVersion() + "); transaction " + txn.uuid() + " committed nothing. Drop it first or"
              + " choose another name");
        }
        byName.put(asked.name(), new ScalarIndex(asked.uuid(), asked.name(), asked.kind(), asked.fieldId(), version,
            asked.segments()));
      }
      case OPTIMIZE -> {
        requireSame(existing, asked, txn);
        Set<String> present = new HashSet<>();
        existing.segments().forEach(seg -> present.add(seg.path()));
        for (IndexSegment seg : asked.segments()) {
          if (present.contains(seg.path())) {
            throw new IncompatibleTransactionException("segment " + seg.path() + " is already in index '"
                + asked.name() + "', added by an earlier commit of the same build; transaction " + txn.uuid()
                + " committed nothing. It is there: do not commit the build again");
          }
        }
        List<IndexSegment> segments = new ArrayList<>(existing.segments());
        segments.addAll(asked.segments());
        byName.put(asked.name(), existing.withSegments(segments));
      }
      case DROP -> {
        requireSame(existing, asked, txn);
        byName.remove(asked.name());
      }
    }
  }

  private static void requireSame(ScalarIndex existing, ScalarIndex asked, Transaction txn) {
    if (existing == null || !existing.uuid().equals(asked.uuid())) {
      throw new IncompatibleTransactionException("index '" + asked.name() + "' (uuid " + asked.uuid() + ") is no"
          + " longer the table's" + (existing == null ? "" : " (it was re-created as " + existing.uuid() + ")")
          + "; transaction " + txn.uuid() + " committed nothing. List the indices and try again");
    }
  }

  private static ScalarIndex without(ScalarIndex index, Set<Long> removed) {
    List<IndexSegment> segments = new ArrayList<>();
    for (IndexSegment s : index.segments()) {
      List<IndexedFragment> kept = s.fragments().stream().filter(f -> !removed.contains(f.fragmentId())).toList();
      if (!kept.isEmpty()) {
        segments.add(kept.size() == s.fragments().size() ? s : s.withFragments(kept));
      }
    }
    return index.withSegments(segments);
  }
}
