package io.quiver.internal.txn;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.exceptions.StaleColumnWriteException;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Field;
import io.quiver.schema.ReservedNames;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Applies {@link Operation.WriteColumns} to a manifest — pure, once per commit attempt, on the manifest
 * the attempt builds on. Every staged write is first compared with that manifest: the new fields' ids
 * must still be unallocated and their names free, every existing field the contract names must have
 * exactly the contract it had, the fragment must still exist with the same physical rows, every
 * witness must equal the field's backing now, and so must the witness of every input field the values
 * were computed from (which must still exist). Only then are the files added and the old backing of
 * replaced fields tombstoned. Nothing here depends on which operation changed the table: the check
 * compares states, so no kind of concurrent commit can slip through. The same per-write checks run
 * without a commit in {@link #check} (one result per stale write), for a caller that recomputes only
 * what is stale.
 */
final public class ColumnWriteCheck {
  private ColumnWriteCheck() {}

  /**
   * TEST ONLY, off by default: while set on a thread, commits on that thread skip the witness comparison
   * (every other check still runs), a deliberately broken commit path the conformance suite must catch.
   * Package-private and per thread; set only by {@link #skippingWitnessCheck}, whose only caller is the
   * test-jar's {@code io.quiver.internal.txn.BrokenWitnessCheck}. Nothing in the public API reaches it.
   */
  private static final ThreadLocal<Boolean> SKIP_WITNESS_CHECK_FOR_TESTS = new ThreadLocal<>();

  /** TEST ONLY: runs {@code body} with the witness check skipped on this thread, and restores it after. */
  static void skippingWitnessCheck(Runnable body) {
    if (SKIP_WITNESS_CHECK_FOR_TESTS.get() != null) {
      throw new IllegalStateException("the witness check is already being skipped on this thread");
    }
    SKIP_WITNESS_CHECK_FOR_TESTS.set(Boolean.TRUE);
    try {
      body.run();
    } finally {
      SKIP_WITNESS_CHECK_FOR_TESTS.remove();
    }
  }

  /** Whether commits on this thread skip the witness comparison (only inside {@link #skippingWitnessCheck}). */
  static boolean witnessCheckSkipped() {
    return SKIP_WITNESS_CHECK_FOR_TESTS.get() != null;
  }

  interface Replacer {
    Fragment replace(Fragment f, Collection<Integer> fieldIds, List<DataFile> files, long overlaysUpTo);
  }

  interface Finisher {
    Manifest finish(Map<Long, Fragment> fragments, Schema schema, int maxFieldId);
  }

  static Manifest apply(Manifest base, Map<Long, Fragment> fragments, Transaction txn, Operation.WriteColumns op,
      Replacer replacer, Finisher finisher) {
    if (op.writes().isEmpty()) {
      throw new InvalidArgumentException("write-columns " + txn.uuid() + " has no staged write to commit");
    }
    Schema current = base.schema();
    long read = txn.readVersion();
    Map<Integer, Field> added = declaredNewFields(op.writes());
    staleSchema(base, added, read).stream().findFirst().ifPresent(e -> {
      throw e;
    });
    Map<Long, List<Operation.ColumnWrite>> byFragment = new TreeMap<>();
    for (Operation.ColumnWrite w : op.writes()) {
      stale(current, fragments, w, read).ifPresent(e -> {
        throw e;
      });
      byFragment.computeIfAbsent(w.fragmentId(), k -> new ArrayList<>()).add(w);
    }
    for (Map.Entry<Long, List<Operation.ColumnWrite>> e : byFragment.entrySet()) {
      Set<Integer> stored = new HashSet<>();
      Set<Integer> replaced = new TreeSet<>();
      List<DataFile> files = new ArrayList<>();
      for (Operation.ColumnWrite w : e.getValue()) {
        for (int id : w.file().liveFieldIds()) {
          if (!stored.add(id)) {
            throw new InvalidArgumentException(
                "two staged writes for fragment " + e.getKey() + " both store field id " + id
                    + "; commit at most one value per field and fragment");
          }
        }
        replaced.addAll(w.replacedFieldIds());
        files.add(w.file());
      }
      // Every overlay on a replaced field is one the writer saw (the witness says so): tombstone them all.
      fragments.put(e.getKey(), replacer.replace(fragments.get(e.getKey()), replaced, files, Long.MAX_VALUE));
    }
    List<Field> top = new ArrayList<>(current.fields());
    top.addAll(added.values());
    Schema next = new Schema(top, current.metadata());
    // A new non-nullable column must have values in every fragment now in the table.
    Set<Integer> newIds = op.newFieldIds();
    for (Field f : next.atomicFields()) {
      if (newIds.contains(f.id()) && !ManifestBuilder.nullableFromRoot(next, f)) {
        for (Fragment fragment : fragments.values()) {
          if (fragment.physicalRows() > 0 && fragment.fileOf(f.id()).isEmpty()) {
            throw new StaleColumnWriteException(fragment.id(), next.pathOf(f.id()),
                "new non-nullable column '" + next.pathOf(f.id()) + "' would have no values in fragment "
                    + fragment.id() + " (no staged write covers it; it may have been appended after version " + read
                    + ")"
                    + "; nothing was committed. Stage the column for every fragment of the latest version and"
                    + " commit again.");
          }
        }
      }
    }
    return finisher.finish(fragments, next, Math.max(base.maxFieldId(), next.maxFieldId()));
  }

  /**
   * Checks staged writes one by one against {@code latest}, as a commit building on it would, without
   * committing: every problem a commit would refuse with a {@link StaleColumnWriteException}. Problems of
   * the column schema as a whole (a new field id allocated since, a new name taken since) come first, each
   * once, with fragment id -1; then one exception per stale write, naming its fragment (the first problem
   * found for that write). Does not check that every fragment is covered (the caller compares the writes'
   * fragments with {@code latest}'s).
   *
   * @param writes each write with the version it was staged at
   * @throws InvalidArgumentException for writes that declare one new field id differently, or a write whose
   *     witness does not match its file (caller bugs, as at commit)
   * @throws InvalidSchemaException for two new columns of one name or a reserved name (as at commit)
   */
  public static List<StaleColumnWriteException> check(Manifest latest, List<StagedWrite> writes) {
    List<Operation.ColumnWrite> plain = writes.stream().map(StagedWrite::write).toList();
    long oldest = writes.stream().mapToLong(StagedWrite::readVersion).min().orElse(latest.version());
    List<StaleColumnWriteException> out = new ArrayList<>(staleSchema(latest, declaredNewFields(plain), oldest));
    Map<Long, Fragment> fragments = new TreeMap<>();
    latest.fragments().forEach(f -> fragments.put(f.id(), f));
    for (StagedWrite w : writes) {
      stale(latest.schema(), fragments, w.write(), w.readVersion()).ifPresent(out::add);
    }
    return out;
  }

  /** A staged write and the version it was staged at. */
  public record StagedWrite(Operation.ColumnWrite write, long readVersion) {}

  /** The new top-level fields the writes declare: consistent across writes, names distinct, not reserved. */
  private static Map<Integer, Field> declaredNewFields(List<Operation.ColumnWrite> writes) {
    Map<Integer, Field> added = new TreeMap<>();
    Set<String> names = new HashSet<>();
    for (Operation.ColumnWrite w : writes) {
      for (Field f : w.contract().fields()) {
        if (!w.newFieldIds().contains(f.id())) {
          continue;
        }
        Field previous = added.putIfAbsent(f.id(), f);
        if (previous != null && !previous.equals(f)) {
          throw new InvalidArgumentException(
              "staged writes declare new field id " + f.id() + " differently: " + previous + " and " + f
                  + "; stage every fragment from the same ColumnSchema");
        }
        if (previous == null && !names.add(f.name())) {
          throw new InvalidSchemaException(
              "staged writes add two different columns named '" + f.name() + "'; give them distinct names");
        }
      }
    }
    for (Field f : added.values()) {
      if (ReservedNames.isReserved(f.name())) {
        throw new InvalidSchemaException(
            "column name '" + f.name() + "' is reserved for Quiver's system columns " + ReservedNames.NAMES
                + "; nothing was committed. Choose another name and stage the column again.");
      }
    }
    return added;
  }

  /** What makes the new fields stale on {@code base}, one problem per field: ids allocated since, names taken. */
  private static List<StaleColumnWriteException> staleSchema(Manifest base, Map<Integer, Field> added, long read) {
    List<StaleColumnWriteException> out = new ArrayList<>();
    Schema current = base.schema();
    for (Field f : added.values()) {
      Optional<Field> allocated = f.preorder().stream().filter(node -> node.id() <= base.maxFieldId()).findFirst();
      if (allocated.isPresent()) {
        int id = allocated.get().id();
        Optional<Field> taken = current.findField(id);
        out.add(new StaleColumnWriteException(-1, f.name(),
            "new column '" + f.name() + "' was given field id " + id + " when it was staged at version "
                + read + ", but a commit since allocated ids up to " + base.maxFieldId()
                + taken.map(t -> " (id " + id + " is now '" + current.pathOf(t.id()) + "' " + t.type() + ")")
                    .orElse("")
                + "; nothing was committed. Create a new ColumnSchema on the latest version and stage the"
                + " column again."));
      } else if (current.findTopLevel(f.name()).isPresent()) {
        out.add(new StaleColumnWriteException(-1, f.name(),
            "new column '" + f.name() + "' staged at version " + read + " collides with column '" + f.name()
                + "' (id " + current.findTopLevel(f.name()).get().id() + ") committed since; nothing was committed."
                + " Choose another name or recompute against the latest version."));
      }
    }
    return out;
  }

  /**
   * The first reason the commit would refuse {@code w} on a manifest with this schema and these
   * fragments (its contract, then its fragment, witness and inputs), or empty when it is fresh.
   *
   * @throws InvalidArgumentException if the write's witness does not cover exactly the fields its file stores
   */
  static Optional<StaleColumnWriteException> stale(Schema current, Map<Long, Fragment> fragments,
      Operation.ColumnWrite w, long read) {
    Optional<StaleColumnWriteException> contract = staleContract(current, w, read);
    return contract.isPresent() ? contract : staleFragment(current, fragments, w, read);
  }

  /** Every existing field named by the contract still has exactly the contract the writer saw. */
  private static Optional<StaleColumnWriteException> staleContract(Schema current, Operation.ColumnWrite w,
      long read) {
    Set<Integer> fresh = w.newFieldNodeIds();
    for (Field declared : w.contract().allFields()) {
      if (fresh.contains(declared.id())) {
        continue;
      }
      Optional<Field> now = current.findField(declared.id());
      String path = w.contract().pathOf(declared.id());
      if (now.isEmpty()) {
        return Optional.of(new StaleColumnWriteException(w.fragmentId(), path,
            "field '" + path + "' (id " + declared.id() + ") that the write for fragment " + w.fragmentId()
                + " targets was dropped after version " + read + "; nothing was committed. Recompute against the"
                + " latest version."));
      }
      Field cur = now.get();
      boolean same = declared.isStruct()
          ? cur.id() == declared.id() && cur.parentId() == declared.parentId() && cur.name().equals(declared.name())
              && cur.type().equals(declared.type()) && cur.nullable() == declared.nullable()
              && cur.metadata().equals(declared.metadata())
          : cur.equals(declared);
      if (!same) {
        return Optional.of(new StaleColumnWriteException(w.fragmentId(), path,
            "field '" + path + "' (id " + declared.id() + ") was " + describe(declared) + " when the write for"
                + " fragment " + w.fragmentId() + " was staged at version " + read + ", and is now "
                + describe(cur) + "; nothing was committed. Recompute against the latest version."));
      }
    }    return Optional.empty();
  }

  private static String describe(Field f) {
    return "'" + f.name() + "' " + f.type() + (f.nullable() ? " nullable" : " non-nullable")
        + (f.children().isEmpty() ? "" : " with children " + f.children().stream().map(ColumnWriteCheck::describe).toList());
  }

  /** The fragment is still there with the same physical rows, and every witness still holds. */
  private static Optional<StaleColumnWriteException> staleFragment(Schema current, Map<Long, Fragment> fragments,
      Operation.ColumnWrite w, long read) {
    Fragment f = fragments.get(w.fragmentId());
    if (f == null) {
      return Optional.of(new StaleColumnWriteException(w.fragmentId(), fieldNames(w),
          "fragment " + w.fragmentId() + " that values of " + fieldNames(w) + " were staged for at version " + read
              + " is gone (compacted, fully deleted or overwritten); nothing was committed. Recompute the columns for"
              + " the fragments of the latest version."));
    }
    if (f.physicalRows() != w.physicalRows()) {
      return Optional.of(new StaleColumnWriteException(w.fragmentId(), fieldNames(w),
          "fragment " + w.fragmentId() + " had " + w.physicalRows() + " physical rows when the write was staged and"
              + " has " + f.physicalRows() + " now; nothing was committed. Recompute against the latest version."));
    }
    Set<Integer> witnessed = new TreeSet<>();
    boolean skip = witnessCheckSkipped();
    for (FieldBacking then : w.witness()) {
      witnessed.add(then.fieldId());
      if (skip) {
        continue;
      }
      FieldBacking now = FieldBacking.of(f, then.fieldId());
      Optional<String> diff = then.difference(now);
      if (diff.isPresent()) {
        String path = current.findField(then.fieldId()).map(x -> current.pathOf(x.id()))
            .orElse(w.contract().findField(then.fieldId()).map(x -> w.contract().pathOf(x.id()))
                .orElse("id " + then.fieldId()));
        return Optional.of(new StaleColumnWriteException(w.fragmentId(), path,
            "the values of '" + path + "' staged for fragment " + w.fragmentId() + " at version " + read
                + " are stale: " + diff.get() + ". A commit since changed what they replace; nothing was committed."
                + " Recompute the column for this fragment against the latest version."));
      }
    }
    if (!witnessed.equals(new TreeSet<>(w.file().liveFieldIds()))) {
      throw new InvalidArgumentException(
          "the staged write for fragment " + w.fragmentId() + " stores fields " + w.file().liveFieldIds()
              + " but carries a witness for " + witnessed + "; every stored field needs exactly one witness");
    }
    return staleInputs(current, f, w, read, skip);
  }

  /**
   * Every field the values were computed from is still in the schema, with the backing it had. A rename
   * is not a change (the values are the same; the id is what is compared), nor is a deletion of rows
   * (deletions are not part of a field's backing, and a deleted row's staged value is never read).
   */
  private static Optional<StaleColumnWriteException> staleInputs(Schema current, Fragment f, Operation.ColumnWrite w,
      long read, boolean skip) {
    for (Operation.ColumnInput in : w.inputs()) {
      int id = in.backing().fieldId();
      Optional<Field> field = current.findField(id);
      if (field.isEmpty()) {
        return Optional.of(new StaleColumnWriteException(w.fragmentId(), in.path(),
            "input field '" + in.path() + "' (id " + id + ") that the values of " + fieldNames(w) + " staged for"
                + " fragment " + w.fragmentId() + " at version " + read + " were computed from was dropped since;"
                + " nothing was committed. Recompute the columns from the latest version's fields, and stage"
                + " them again."));
      }
      if (skip) {
        continue;
      }
      Optional<String> diff = in.backing().difference(FieldBacking.of(f, id));
      if (diff.isPresent()) {
        String path = current.pathOf(id);
        String renamed = path.equals(in.path()) ? "" : " (named '" + in.path() + "' when the write was staged)";
        return Optional.of(new StaleColumnWriteException(w.fragmentId(), path,
            "input field '" + path + "' (id " + id + ")" + renamed + " that the values of " + fieldNames(w)
                + " staged for fragment " + w.fragmentId() + " at version " + read + " were computed from changed"
                + " in that fragment: " + diff.get() + ". The staged values may be computed from old cells;"
                + " nothing was committed. Recompute the columns for this fragment from the latest version and"
                + " stage them again."));
      }
    }    return Optional.empty();
  }

  private static String fieldNames(Operation.ColumnWrite w) {
    return w.contract().fields().stream().map(Field::name).toList().toString();
  }
}
