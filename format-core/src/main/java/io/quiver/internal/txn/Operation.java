package io.quiver.internal.txn;

import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Schema;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

/**
 * What a transaction changes. A closed set: the {@link ConflictResolver} decides every ordered pair, and
 * {@link ManifestBuilder} applies each one purely.
 */
public sealed interface Operation {

  /** A short name for messages, history listings and the conflict matrix. */
  String name();

  /** The operation's kind, for the conflict matrix. */
  default Kind kind() {
    return Kind.of(this);
  }

  /** Kinds of operation, in the order of the conflict matrix. */
  enum Kind {
    APPEND, OVERWRITE, DELETE, UPDATE, ADD_COLUMNS, PROJECT, REPLACE_DATA, REWRITE, RESTORE, UPDATE_CONFIG, WRITE_COLUMNS,
    MERGE_INSERT, ROW_DELTA, UPDATE_INDICES;

    static Kind of(Operation op) {
      if (op instanceof Append) {
        return APPEND;
      } else if (op instanceof Overwrite) {
        return OVERWRITE;
      } else if (op instanceof Delete) {
        return DELETE;
      } else if (op instanceof Update) {
        return UPDATE;
      } else if (op instanceof AddColumns) {
        return ADD_COLUMNS;
      } else if (op instanceof Project) {
        return PROJECT;
      } else if (op instanceof DataReplacement) {
        return REPLACE_DATA;
      } else if (op instanceof Rewrite) {
        return REWRITE;
      } else if (op instanceof Restore) {
        return RESTORE;
      } else if (op instanceof UpdateConfig) {
        return UPDATE_CONFIG;
      } else if (op instanceof WriteColumns) {
        return WRITE_COLUMNS;
      } else if (op instanceof MergeInsert) {
        return MERGE_INSERT;
      } else if (op instanceof RowDelta) {
        return ROW_DELTA;
      } else if (op instanceof UpdateIndices) {
        return UPDATE_INDICES;
      }
      throw new IllegalStateException("unknown operation " + op);
    }

    /** The name used in the conflict matrix and in history listings. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /** Field ids of the data this operation writes (for field-level conflict checks). */
  default Set<Integer> writtenFieldIds() {
    return Set.of();
  }

  /** Field ids whose values this operation read to decide what to write. */
  default Set<Integer> readFieldIds() {
    return Set.of();
  }

  /** Ids of existing fragments whose content this operation changes or removes. */
  default Set<Long> touchedFragments() {
    return Set.of();
  }

  /**
   * Adds fragments. Their ids are placeholders: the committed manifest numbers them from its max
   * fragment id + 1, in order, so concurrent appends never collide.
   */
  record Append(List<Fragment> fragments) implements Operation {
    public Append {
      fragments = List.copyOf(fragments);
    }

    @Override
    public String name() {
      return "append";
    }

    @Override
    public Set<Integer> writtenFieldIds() {
      return storedFieldIds(fragments);
    }
  }

  /** Live field ids stored by the data files of the given fragments. */
  /** The ids of the fragments {@code deletions} delete from (a new, mutable set). */
  static Set<Long> fragmentIds(List<FragmentDeletion> deletions) {
    Set<Long> ids = new HashSet<>();
    deletions.forEach(d -> ids.add(d.fragmentId()));
    return ids;
  }

  static Set<Integer> storedFieldIds(List<Fragment> fragments) {
    Set<Integer> ids = new TreeSet<>();
    for (Fragment f : fragments) {
      for (DataFile file : f.files()) {
        file.fieldIds().stream().filter(id -> id >= 0).forEach(ids::add);
      }
    }
    return ids;
  }

  /**
   * Replaces the schema and every fragment, and upserts configuration. Creating a table is an overwrite
   * read at version 0.
   */
  record Overwrite(Schema schema, List<Fragment> fragments, Map<String, String> configUpserts)
      implements Operation {
    public Overwrite {
      Objects.requireNonNull(schema, "schema");
      fragments = List.copyOf(fragments);
      configUpserts = Map.copyOf(configUpserts);
    }

    @Override
    public String name() {
      return "overwrite";
    }
  }

  /**
   * One fragment's new deletions.
   *
   * @param fragmentId the fragment
   * @param previous the deletion file the fragment had when the deletion file was written (absent if
   *     none); the commit applies only while the fragment still has exactly this one, and a rebase
   *     rewrites the entry against the current one
   * @param deletionFile the fragment's complete new deletion file (previous deletions included)
   * @param added offsets this transaction deletes (some may already have been deleted)
   */
  record FragmentDeletion(
      long fragmentId, Optional<DeletionFile> previous, DeletionFile deletionFile, ImmutableRoaringBitmap added) {
    public FragmentDeletion {
      Objects.requireNonNull(previous, "previous");
      Objects.requireNonNull(deletionFile, "deletionFile");
      added = added.clone();
    }
  }

  /**
   * Deletes rows. A fragment left with no live row leaves the manifest.
   *
   * @param deletions per fragment
   * @param readFieldIds fields the predicate read (empty for deletes by row address); a concurrent change
   *     to one of them in a touched fragment makes the delete retryable
   * @param predicate the predicate in readable form, for history listings (may be empty)
   */
  record Delete(List<FragmentDeletion> deletions, Set<Integer> readFieldIds, String predicate) implements Operation {
    public Delete {
      deletions = List.copyOf(deletions);
      readFieldIds = Set.copyOf(new TreeSet<>(readFieldIds));
      Objects.requireNonNull(predicate, "predicate");
    }

    @Override
    public String name() {
      return "delete";
    }

    @Override
    public Set<Long> touchedFragments() {
      Set<Long> ids = new HashSet<>();
      deletions.forEach(d -> ids.add(d.fragmentId()));
      return ids;
    }
  }

  /** New overlays for one fragment, in order (their committed version is stamped at build time). */
  record FragmentOverlays(long fragmentId, List<Overlay> overlays) {
    public FragmentOverlays {
      overlays = List.copyOf(overlays);
    }
  }

  /**
   * Updates cells by adding overlays.
   *
   * @param overlays per fragment
   * @param readFieldIds fields read to decide which rows change and to compute their values
   */
  record Update(List<FragmentOverlays> overlays, Set<Integer> readFieldIds) implements Operation {
    public Update {
      overlays = List.copyOf(overlays);
      readFieldIds = Set.copyOf(new TreeSet<>(readFieldIds));
    }

    @Override
    public String name() {
      return "update";
    }

    @Override
    public Set<Long> touchedFragments() {
      Set<Long> ids = new HashSet<>();
      overlays.forEach(o -> ids.add(o.fragmentId()));
      return ids;
    }

    @Override
    public Set<Integer> writtenFieldIds() {
      return overlayFieldIds(overlays);
    }
  }

  /** Live field ids stored by the given overlays' files. */
  static Set<Integer> overlayFieldIds(List<FragmentOverlays> overlays) {
    Set<Integer> ids = new TreeSet<>();
    for (FragmentOverlays f : overlays) {
      for (Overlay o : f.overlays()) {
        o.dataFile().fieldIds().stream().filter(id -> id >= 0).forEach(ids::add);
      }
    }
    return ids;
  }

  /** A new data file for one fragment. */
  record FragmentFile(long fragmentId, DataFile file) {
    public FragmentFile {
      Objects.requireNonNull(file, "file");
    }
  }

  /**
   * Adds columns: the new schema (existing fields unchanged, new fields with ids above the read
   * version's max field id) and, per fragment, a data file holding the new fields' values. A fragment
   * without a file reads the new fields as nulls; a non-nullable new field needs a file in every
   * fragment.
   *
   * @param readFieldIds fields read to compute the new values
   */
  record AddColumns(Schema schema, List<FragmentFile> files, Set<Integer> readFieldIds) implements Operation {
    public AddColumns {
      Objects.requireNonNull(schema, "schema");
      files = List.copyOf(files);
      readFieldIds = Set.copyOf(new TreeSet<>(readFieldIds));
    }

    @Override
    public String name() {
      return "add-columns";
    }

    @Override
    public Set<Integer> writtenFieldIds() {
      Set<Integer> ids = new TreeSet<>();
      files.forEach(f -> f.file().fieldIds().stream().filter(id -> id >= 0).forEach(ids::add));
      return ids;
    }
  }

  /**
   * Changes the schema without touching data: drops fields, renames them, changes nullability. Field
   * ids of dropped fields are tombstoned in data files and overlays; files left with no live field leave
   * the manifest.
   *
   * @param schema the new schema; every field id in it already exists
   * @param droppedFieldIds fields (any node) removed
   * @param tightenedFieldIds fields made non-nullable (the writer checked the data holds no null)
   */
  record Project(Schema schema, Set<Integer> droppedFieldIds, Set<Integer> tightenedFieldIds) implements Operation {
    public Project {
      Objects.requireNonNull(schema, "schema");
      droppedFieldIds = Set.copyOf(new TreeSet<>(droppedFieldIds));
      tightenedFieldIds = Set.copyOf(new TreeSet<>(tightenedFieldIds));
    }

    /** The projection from {@code before} to {@code after}: which fields go, which become non-nullable. */
    public static Project between(Schema before, Schema after) {
      Set<Integer> dropped = new TreeSet<>();
      Set<Integer> tightened = new TreeSet<>();
      for (io.quiver.schema.Field f : before.allFields()) {
        Optional<io.quiver.schema.Field> now = after.findField(f.id());
        if (now.isEmpty()) {
          dropped.add(f.id());
        } else if (f.nullable() && !now.get().nullable()) {
          tightened.add(f.id());
        }
      }
      return new Project(after, dropped, tightened);
    }

    @Override
    public String name() {
      return "project";
    }
  }

  /** Replaces fields' data in one fragment by a new file holding exactly those fields. */
  record Replacement(long fragmentId, DataFile file) {
    public Replacement {
      Objects.requireNonNull(file, "file");
    }

    public Set<Integer> fieldIds() {
      Set<Integer> ids = new TreeSet<>();
      file.fieldIds().stream().filter(id -> id >= 0).forEach(ids::add);
      return ids;
    }
  }

  /**
   * Replaces some fields' data for some fragments. The old columns are tombstoned in place (id -2) and
   * overlays on those fields committed at or before the read version are tombstoned too, so the
   * replacement is authoritative; files left with no live field leave the manifest.
   *
   * @param readFieldIds fields read to compute the new values
   */
  record DataReplacement(List<Replacement> replacements, Set<Integer> readFieldIds) implements Operation {
    public DataReplacement {
      replacements = List.copyOf(replacements);
      readFieldIds = Set.copyOf(new TreeSet<>(readFieldIds));
    }

    @Override
    public String name() {
      return "replace-data";
    }

    @Override
    public Set<Long> touchedFragments() {
      Set<Long> ids = new HashSet<>();
      replacements.forEach(r -> ids.add(r.fragmentId()));
      return ids;
    }

    @Override
    public Set<Integer> writtenFieldIds() {
      Set<Integer> ids = new TreeSet<>();
      replacements.forEach(r -> ids.addAll(r.fieldIds()));
      return ids;
    }
  }

  /** Old fragments replaced by new ones holding the same live rows (placeholder ids). */
  record RewriteGroup(List<Long> oldFragmentIds, List<Fragment> newFragments) {
    public RewriteGroup {
      oldFragmentIds = List.copyOf(oldFragmentIds);
      newFragments = List.copyOf(newFragments);
    }
  }

  /** Compaction: rewrites fragments with deletions and overlays materialised. Rows get new addresses. */
  record Rewrite(List<RewriteGroup> groups) implements Operation {
    public Rewrite {
      groups = List.copyOf(groups);
    }

    @Override
    public String name() {
      return "rewrite";
    }

    @Override
    public Set<Integer> writtenFieldIds() {
      Set<Integer> ids = new TreeSet<>();
      groups.forEach(g -> ids.addAll(storedFieldIds(g.newFragments())));
      return ids;
    }

    @Override
    public Set<Long> touchedFragments() {
      Set<Long> ids = new HashSet<>();
      groups.forEach(g -> ids.addAll(g.oldFragmentIds()));
      return ids;
    }
  }

  /**
   * Makes an old version's content the latest: its schema, fragments and configuration, carried in the
   * transaction so that applying it needs no I/O.
   */
  record Restore(long version, Schema schema, List<Fragment> fragments, Map<String, String> config)
      implements Operation {
    public Restore {
      Objects.requireNonNull(schema, "schema");
      fragments = List.copyOf(fragments);
      config = Map.copyOf(config);
    }

    @Override
    public String name() {
      return "restore";
    }
  }

  /**
   * Creates, extends (optimize) or drops one scalar index. Changes no data: an index segment answers for a
   * fragment only while the fragment is in the state the segment records, so the commit never has to be checked
   * against data changes committed since its read version.
   *
   * @param action what to do
   * @param index create: the new index with its segments; optimize: the index as read, holding only the segments
   *     to add; drop: the index as read
   */
  record UpdateIndices(Action action, io.quiver.manifest.ScalarIndex index) implements Operation {
    /** What an index commit does. */
    public enum Action {
      CREATE, OPTIMIZE, DROP;

      public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
      }

      public static Action of(String label) {
        for (Action a : values()) {
          if (a.label().equals(label)) {
            return a;
          }
        }
        throw new IllegalArgumentException("unknown index action '" + label + "'");
      }
    }

    public UpdateIndices {
      Objects.requireNonNull(action, "action");
      Objects.requireNonNull(index, "index");
    }

    @Override
    public String name() {
      return action.label() + "-index";
    }

    @Override
    public Set<Integer> readFieldIds() {
      return action == Action.DROP ? Set.of() : Set.of(index.fieldId());
    }
  }

  /** Sets and removes table configuration keys. */
  record UpdateConfig(Map<String, String> upserts, Set<String> deletes) implements Operation {
    public UpdateConfig {
      upserts = Map.copyOf(upserts);
      deletes = Set.copyOf(new TreeSet<>(deletes));
      for (String key : deletes) {
        if (upserts.containsKey(key)) {
          throw new IllegalArgumentException("config key '" + key + "' is both set and removed");
        }
      }
    }

    @Override
    public String name() {
      return "update-config";
    }

    public Set<String> keys() {
      Set<String> keys = new TreeSet<>(upserts.keySet());
      keys.addAll(deletes);
      return keys;
    }
  }

  /**
   * One staged column write: a data file holding some fields of one fragment, the contract it declares
   * and the witness it was computed against.
   *
   * @param fragmentId the fragment
   * @param physicalRows the fragment's physical rows when the write was prepared (the file holds exactly
   *     that many rows)
   * @param preparedFiles paths of the fragment's data files when the write was prepared (diagnostics)
   * @param contract the file's schema with ids: new top-level fields in full, existing targeted fields
   *     with their struct ancestors (holding only targeted members)
   * @param newFieldIds ids of the top-level fields of {@code contract} that are new columns
   * @param file the staged data file; stores the atomic fields of {@code contract} in order
   * @param witness for every atomic field the file stores, its prepare-time backing in the fragment
   * @param inputs the atomic fields the values were computed from, each with its prepare-time backing in
   *     the fragment, in field-id order (empty when the write declared none: it is then bound to the
   *     fields it writes only)
   */
  record ColumnWrite(long fragmentId, long physicalRows, List<String> preparedFiles, Schema contract,
      Set<Integer> newFieldIds, DataFile file, List<FieldBacking> witness, List<ColumnInput> inputs) {
    public ColumnWrite {
      preparedFiles = List.copyOf(preparedFiles);
      Objects.requireNonNull(contract, "contract");
      newFieldIds = Set.copyOf(new TreeSet<>(newFieldIds));
      Objects.requireNonNull(file, "file");
      witness = List.copyOf(witness);
      inputs = List.copyOf(inputs);
      Set<Integer> seen = new TreeSet<>();
      for (ColumnInput in : inputs) {
        if (!seen.add(in.backing().fieldId())) {
          throw new IllegalArgumentException(
              "column write for fragment " + fragmentId + " declares input field id " + in.backing().fieldId()
                  + " twice");
        }
      }
    }

    /** A write that declares no inputs (bound to the fields it writes only). */
    public ColumnWrite(long fragmentId, long physicalRows, List<String> preparedFiles, Schema contract,
        Set<Integer> newFieldIds, DataFile file, List<FieldBacking> witness) {
      this(fragmentId, physicalRows, preparedFiles, contract, newFieldIds, file, witness, List.of());
    }

    /** Atomic field ids of the declared inputs. */
    public Set<Integer> inputFieldIds() {
      Set<Integer> ids = new TreeSet<>();
      inputs.forEach(in -> ids.add(in.backing().fieldId()));
      return ids;
    }

    /** Ids of every node (any depth) of the new top-level fields. */
    public Set<Integer> newFieldNodeIds() {
      Set<Integer> ids = new TreeSet<>();
      for (io.quiver.schema.Field f : contract.fields()) {
        if (newFieldIds.contains(f.id())) {
          f.preorder().forEach(x -> ids.add(x.id()));
        }
      }
      return ids;
    }

    /** Atomic field ids of existing fields this write replaces in its fragment. */
    public Set<Integer> replacedFieldIds() {
      Set<Integer> ids = new TreeSet<>(file.liveFieldIds());
      ids.removeAll(newFieldNodeIds());
      return ids;
    }
  }

  /**
   * One input of a staged column write: an atomic field the values were computed from.
   *
   * @param path the field's dotted path when the write was prepared (for messages only: the commit
   *     checks the id, so a rename since does not matter)
   * @param backing the field's backing in the fragment when the write was prepared
   */
  record ColumnInput(String path, FieldBacking backing) {
    public ColumnInput {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(backing, "backing");
    }
  }

  /**
   * Publishes staged column writes in one commit: new columns (schema extended with the contracts'
   * new fields) and new values for existing columns (old base columns and overlays on them tombstoned,
   * as {@link DataReplacement} does). The manifest builder compares every write's witness with the
   * manifest it builds on, on every attempt, and refuses any difference with a {@link
   * io.quiver.exceptions.StaleColumnWriteException}.
   */
  record WriteColumns(List<ColumnWrite> writes) implements Operation {
    public WriteColumns {
      writes = List.copyOf(writes);
    }

    @Override
    public String name() {
      return "write-columns";
    }

    /** Ids of every node of the columns this operation adds. */
    public Set<Integer> newFieldIds() {
      Set<Integer> ids = new TreeSet<>();
      writes.forEach(w -> ids.addAll(w.newFieldNodeIds()));
      return ids;
    }

    @Override
    public Set<Long> touchedFragments() {
      Set<Long> ids = new HashSet<>();
      writes.forEach(w -> ids.add(w.fragmentId()));
      return ids;
    }

    @Override
    public Set<Integer> writtenFieldIds() {
      Set<Integer> ids = new TreeSet<>();
      writes.forEach(w -> ids.addAll(w.file().liveFieldIds()));
      return ids;
    }

    /** The declared inputs of every write (the witness check, not the matrix, enforces them). */
    @Override
    public Set<Integer> readFieldIds() {
      Set<Integer> ids = new TreeSet<>();
      writes.forEach(w -> ids.addAll(w.inputFieldIds()));
      return ids;
    }
  }

  /**
   * An upsert by key ({@code Dataset.mergeInsert}): matched rows' non-key cells updated through overlays,
   * not-matched source rows added as new fragments (placeholder ids, numbered at build time like {@link
   * Append}), not-matched-by-source rows deleted through deletion files (applied like {@link Delete}, without
   * rebase) — all in one transaction.
   *
   * @param keyFieldIds the key columns' atomic field ids, in key order
   * @param deletions per fragment, the rows deleted because no source row matched them
   * @param overlays per fragment, the matched rows' new cells
   * @param newFragments the inserted rows
   * @param readFieldIds key columns and every column a condition read
   * @param readFragments fragments whose rows decided the outcome: every fragment holding a matched row, and
   *     every fragment scanned when not-matched-by-source rows are deleted (a concurrent change to one of
   *     them makes the merge retryable)
   * @param insertedKeys the keys of the inserted rows (null keys are never recorded: they never match)
   * @param deletesBySource whether rows not matched by the source are deleted (a concurrent insert of any row
   *     then makes the merge retryable: serially, the merge would have deleted it)
   * @param description the clauses in readable form, for history listings
   */
  record MergeInsert(List<Integer> keyFieldIds, List<FragmentDeletion> deletions, List<FragmentOverlays> overlays,
      List<Fragment> newFragments, Set<Integer> readFieldIds, Set<Long> readFragments, MergeKeys insertedKeys,
      boolean deletesBySource, String description) implements Operation {
    public MergeInsert {
      keyFieldIds = List.copyOf(keyFieldIds);
      deletions = List.copyOf(deletions);
      overlays = List.copyOf(overlays);
      newFragments = List.copyOf(newFragments);
      readFieldIds = Set.copyOf(new TreeSet<>(readFieldIds));
      readFragments = Set.copyOf(new TreeSet<>(readFragments));
      Objects.requireNonNull(insertedKeys, "insertedKeys");
      Objects.requireNonNull(description, "description");
      if (keyFieldIds.isEmpty()) {
        throw new IllegalArgumentException("a merge-insert needs at least one key column");
      }
    }

    @Override
    public String name() {
      return "merge-insert";
    }

    /** Fragments that get overlays or deletions. */
    @Override
    public Set<Long> touchedFragments() {
      Set<Long> ids = new HashSet<>();
      deletions.forEach(d -> ids.add(d.fragmentId()));
      overlays.forEach(o -> ids.add(o.fragmentId()));
      return ids;
    }

    /** Fragments read or touched: what a concurrent change must not meet. */
    public Set<Long> usedFragments() {
      Set<Long> ids = new HashSet<>(touchedFragments());
      ids.addAll(readFragments);
      return ids;
    }

    @Override
    public Set<Integer> writtenFieldIds() {
      Set<Integer> ids = new TreeSet<>(storedFieldIds(newFragments));
      ids.addAll(overlayFieldIds(overlays));
      return ids;
    }

    /** Whether the merge inserts any row. */
    public boolean inserts() {
      return !newFragments.isEmpty();
    }
  }
  /**
   * Which rows added by a concurrent commit an engine's read would have seen, judged from the added fragments'
   * statistics (conservative: true whenever a row may match).
   */
  @FunctionalInterface
  interface RowFilter {
    boolean mayMatch(Fragment fragment);
  }

  /**
   * An engine's row-level change ({@code DistributedWrites.newRowDelta}: Spark's MERGE INTO, UPDATE and
   * DELETE): rows deleted by address, applied like {@link Delete} without rebase, and rows written by workers
   * added as new fragments (placeholder ids, numbered like {@link Append}) — one transaction, computed from
   * one version. An updated row is the deletion of its old version plus its new version among the new
   * fragments.
   *
   * @param deletions per fragment, the rows deleted (updated rows included)
   * @param newFragments the inserted rows and the new versions of updated rows
   * @param readFieldIds the columns the engine's read filtered on
   * @param readFragments fragments whose rows the engine read (a concurrent change to one makes the delta
   *     retryable)
   * @param serializable whether rows added concurrently that the read would have seen make the delta
   *     retryable (snapshot isolation ignores them)
   * @param conflictFilter which added rows the read would have seen (empty: every row). Only the committing
   *     side uses it: it is not stored, so a delta decoded from a file has none
   * @param description the command and its filter in readable form, for history listings
   */
  record RowDelta(List<FragmentDeletion> deletions, List<Fragment> newFragments, Set<Integer> readFieldIds,
      Set<Long> readFragments, boolean serializable, Optional<RowFilter> conflictFilter, String description)
      implements Operation {
    public RowDelta {
      deletions = List.copyOf(deletions);
      newFragments = List.copyOf(newFragments);
      readFieldIds = Set.copyOf(new TreeSet<>(readFieldIds));
      readFragments = Set.copyOf(new TreeSet<>(readFragments));
      Objects.requireNonNull(conflictFilter, "conflictFilter");
      Objects.requireNonNull(description, "description");
    }

    @Override
    public String name() {
      return "row-delta";
    }

    /** Fragments that get deletions. */
    @Override
    public Set<Long> touchedFragments() {
      return fragmentIds(deletions);
    }

    /** Fragments read or touched: what a concurrent change must not meet. */
    public Set<Long> usedFragments() {
      Set<Long> ids = fragmentIds(deletions);
      ids.addAll(readFragments);
      return ids;
    }

    @Override
    public Set<Integer> writtenFieldIds() {
      return storedFieldIds(newFragments);
    }

    /** Whether the delta adds any row. */
    public boolean inserts() {
      return !newFragments.isEmpty();
    }

    /** Whether, under serializable isolation, the engine's read would have seen a row of {@code added}. */
    public boolean wouldHaveRead(List<Fragment> added) {
      if (!serializable) {
        return false;
      }
      for (Fragment f : added) {
        if (f.physicalRows() > 0 && conflictFilter.map(c -> c.mayMatch(f)).orElse(true)) {
          return true;
        }
      }
      return false;
    }
  }
}
