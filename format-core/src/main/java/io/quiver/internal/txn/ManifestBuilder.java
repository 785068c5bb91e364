package io.quiver.internal.txn;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.FragmentList;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Manifest + transaction → next manifest, its idempotence ledger included ({@link LedgerUpdate}). Pure: the clock reading and the writer string come in as
 * parameters, so every transformation is testable without storage. Called once per commit attempt, on
 * the latest manifest at that attempt, after the {@link ConflictResolver} accepted the transaction.
 *
 * <p>The builder re-checks every precondition a transaction relies on against the manifest it builds
 * on (the fragment still exists with the deletion file the transaction saw, the fields it writes are
 * still atomic fields of the schema, ...). A failed precondition is a {@link RetryableConflictException},
 * never a manifest built on a state the transaction did not see.
 */
public final class ManifestBuilder {
  private final String writerVersion;
  private final FragmentList.Loader loader;

  /** A builder for tests and tools: segments it lays out are read back only from the manifests it built. */
  public ManifestBuilder(String writerVersion) {
    this(writerVersion, segment -> {
      throw new IllegalStateException("segment " + segment.path() + " cannot be read: this builder has no store");
    });
  }

  /** @param loader reads a table's written segments (for laying out a table that was not segmented before) */
  public ManifestBuilder(String writerVersion, FragmentList.Loader loader) {
    this(writerVersion, loader, LineageSpill.NONE);
  }

  /**
   * @param loader reads a table's written segments (for laying out a table that was not segmented before)
   * @param spill stores the lineage of each fragment the version changes in a lineage file when it is large
   */
  public ManifestBuilder(String writerVersion, FragmentList.Loader loader, LineageSpill spill) {
    this.writerVersion = writerVersion;
    this.loader = loader;
    this.spill = spill;
  }

  private final LineageSpill spill;

  /**
   * Stores a fragment's resolved row lineage in a lineage file when it encodes above the table's threshold
   * (docs/format.md section 14.1); the commit loop writes the files, which are part of its attempt.
   */
  @FunctionalInterface
  public interface LineageSpill {
    /** Keeps every lineage inline. */
    LineageSpill NONE = (f, config) -> f;

    /** {@code f}, with its lineage in a file if it is inline and large under {@code config}. */
    Fragment apply(Fragment f, Map<String, String> config);
  }

  /**
   * {@code built} with {@link Manifest#LINEAGE_FILES_FEATURE} among its reader and writer features when it or the
   * version it builds on references a lineage file. Once on it stays on: finding the last lineage file would mean
   * reading every segment of the table.
   */
  private static Manifest withLineageFilesFeature(Optional<Manifest> current, Manifest built) {
    boolean on = current.isPresent() && current.get().writerFeatures().contains(Manifest.LINEAGE_FILES_FEATURE)
        && built.hasRowIds();
    if (!on && built.hasRowIds()) {
      List<Fragment> written = built.fragments();
      if (built.fragments() instanceof FragmentList list) {
        written = new ArrayList<>(list.inline());
        for (FragmentList.Unwritten u : list.unwritten().values()) {
          written.addAll(u.fragments());
        }
      }
      on = written.stream().anyMatch(f -> f.lineage().isPresent() && f.lineage().get().file().isPresent());
    }
    Set<String> reader = new java.util.TreeSet<>(built.readerFeatures());
    Set<String> writer = new java.util.TreeSet<>(built.writerFeatures());
    if (on) {
      reader.add(Manifest.LINEAGE_FILES_FEATURE);
      writer.add(Manifest.LINEAGE_FILES_FEATURE);
    } else {
      reader.remove(Manifest.LINEAGE_FILES_FEATURE);
      writer.remove(Manifest.LINEAGE_FILES_FEATURE);
    }
    return built.withReaderFeatures(reader).withWriterFeatures(writer);
  }

  /**
   * Builds the manifest that committing {@code txn} on top of {@code current} produces.
   *
   * @param current the latest manifest, empty when the table has no version yet
   * @param txn the transaction
   * @param timestamp the commit time to record
   */
  public Manifest build(Optional<Manifest> current, Transaction txn, Instant timestamp) {
    Manifest built = withLineageFilesFeature(current, withDerivedReaderFeatures(
        withLayout(buildContent(current, txn, timestamp), current.map(Manifest::segmented).orElse(true))));
    // Every operation carries the ledger forward: a restore or overwrite replaces the content, never the
    // record of what was committed.
    return built.withLedger(LedgerUpdate.next(current, txn, built, timestamp))
        .withIndices(IndexUpdate.next(current, txn, built));
  }

  /**
   * {@code built} in the layout its configuration asks for ({@link Segmenter}), with {@link
   * Manifest#SEGMENTED_FEATURE} among its reader and writer features exactly when it is segmented. A creation,
   * an overwrite, a restore or a change of layout lays the fragments out afresh; other commits on a segmented
   * version reuse its segments (the {@code State} does).
   */
  private Manifest withLayout(Manifest built, boolean baseSegmented) {
    Segmenter.Policy policy = Segmenter.Policy.of(built.config(), baseSegmented);
    Manifest laidOut = built;
    if (policy.segmented() && !built.segmented()) {
      laidOut = built.withFragments(Segmenter.layOut(built.fragments(), policy, built.schema(), loader));
    } else if (!policy.segmented() && built.segmented()) {
      laidOut = built.withFragments(((FragmentList) built.fragments()).materialize());
    }
    Set<String> reader = new java.util.TreeSet<>(laidOut.readerFeatures());
    Set<String> writer = new java.util.TreeSet<>(laidOut.writerFeatures());
    if (policy.segmented()) {
      reader.add(Manifest.SEGMENTED_FEATURE);
      writer.add(Manifest.SEGMENTED_FEATURE);
    } else {
      reader.remove(Manifest.SEGMENTED_FEATURE);
      writer.remove(Manifest.SEGMENTED_FEATURE);
    }
    if (laidOut.fragments() instanceof FragmentList list && !list.lists().isEmpty()) {
      reader.add(Manifest.SEGMENT_LISTS_FEATURE);
      writer.add(Manifest.SEGMENT_LISTS_FEATURE);
    } else {
      reader.remove(Manifest.SEGMENT_LISTS_FEATURE);
      writer.remove(Manifest.SEGMENT_LISTS_FEATURE);
    }
    return laidOut.withReaderFeatures(reader).withWriterFeatures(writer);
  }

  /**
   * {@link Manifest#COMPRESSION_FEATURE} exactly when the version references a compressed (1.1) data file:
   * older readers refuse such a version by its feature, and read the table again once compaction (with
   * compression off) has rewritten every compressed file.
   */
  static Manifest withDerivedReaderFeatures(Manifest built) {
    Set<String> features = new java.util.TreeSet<>(built.readerFeatures());
    if (built.referencesCompressedFiles()) {
      features.add(Manifest.COMPRESSION_FEATURE);
    } else {
      features.remove(Manifest.COMPRESSION_FEATURE);
    }
    return features.equals(built.readerFeatures()) ? built : built.withReaderFeatures(features);
  }

  private Manifest buildContent(Optional<Manifest> current, Transaction txn, Instant timestamp) {
    Operation op = txn.operation();
    if (current.isEmpty()) {
      if (op instanceof Operation.Overwrite overwrite) {
        return overwrite(null, txn, overwrite.schema(), overwrite.fragments(), overwrite.configUpserts(), timestamp);
      }
      throw new InvalidArgumentException(
          "cannot " + op.name() + " a table that has no version; create it first");
    }
    Manifest base = current.get();
    if (!(op instanceof Operation.WriteColumns)) {
      // Staged column writes check their inputs themselves, naming the input and the fragment.
      checkReadFields(base.schema(), op.readFieldIds(), txn);
    }
    State s = new State(base);
    long version = base.version() + 1;
    if (op instanceof Operation.Append a) {
      checkAtomicFields(base.schema(), Operation.storedFieldIds(a.fragments()), txn);
      a.fragments().forEach(s::addNew);
    } else if (op instanceof Operation.Overwrite o) {
      return overwrite(base, txn, o.schema(), o.fragments(), o.configUpserts(), timestamp);
    } else if (op instanceof Operation.Delete d) {
      for (Operation.FragmentDeletion fd : d.deletions()) {
        applyDeletion(s, fd, txn);
      }
    } else if (op instanceof Operation.Update u) {
      checkAtomicFields(base.schema(), u.writtenFieldIds(), txn);
      for (Operation.FragmentOverlays fo : u.overlays()) {
        addOverlays(s, s.require(fo.fragmentId(), txn), fo, version);
      }
    } else if (op instanceof Operation.MergeInsert mi) {
      // Deletions as a delete applies them (never rebased: the resolver retries a merge whose fragments a
      // concurrent delete touched), overlays as an update, new fragments as an append.
      checkAtomicFields(base.schema(), mi.writtenFieldIds(), txn);
      for (Operation.FragmentDeletion fd : mi.deletions()) {
        applyDeletion(s, fd, txn);
      }
      for (Operation.FragmentOverlays fo : mi.overlays()) {
        // A fragment with overlays keeps its matched rows live, so this merge's deletions never removed it.
        addOverlays(s, s.require(fo.fragmentId(), txn), fo, version);
      }
      mi.newFragments().forEach(s::addNew);
    } else if (op instanceof Operation.RowDelta rd) {
      // Deletions as a delete applies them (never rebased: the resolver retries a delta whose fragments a
      // concurrent commit touched), new fragments as an append.
      checkAtomicFields(base.schema(), rd.writtenFieldIds(), txn);
      for (Operation.FragmentDeletion fd : rd.deletions()) {
        applyDeletion(s, fd, txn);
      }
      rd.newFragments().forEach(s::addNew);
    } else if (op instanceof Operation.AddColumns a) {
      return addColumns(base, s, txn, a, timestamp);
    } else if (op instanceof Operation.WriteColumns w) {
      return ColumnWriteCheck.apply(base, s.fragmentMap(), txn, w, this::replace,
          (fragments, schema, maxFieldId) -> {
            fragments.values().forEach(s::put);
            return s.build(version, schema, maxFieldId, base.config(), txn, timestamp);
          });
    } else if (op instanceof Operation.Project p) {
      return project(base, s, txn, p, timestamp);
    } else if (op instanceof Operation.DataReplacement r) {
      checkAtomicFields(base.schema(), r.writtenFieldIds(), txn);
      for (Operation.Replacement rep : r.replacements()) {
        Fragment f = s.require(rep.fragmentId(), txn);
        s.put(replace(f, rep.fieldIds(), List.of(rep.file()), txn.readVersion()));
      }
    } else if (op instanceof Operation.Rewrite r) {
      checkAtomicFields(base.schema(), r.writtenFieldIds(), txn);
      for (Operation.RewriteGroup g : r.groups()) {
        for (long old : g.oldFragmentIds()) {
          s.require(old, txn);
          s.remove(old);
        }
        g.newFragments().forEach(s::addNew);
      }
    } else if (op instanceof Operation.Restore r) {
      Manifest restored = overwrite(base, txn, r.schema(), List.of(), r.config(), timestamp);
      long maxFragment = Math.max(restored.maxFragmentId().orElse(-1),
          r.fragments().stream().mapToLong(Fragment::id).max().orElse(-1));
      Map<String, String> config = new HashMap<>(r.config());
      // A restore brings back content, not an older layout: the table keeps the layout it has now, and its row
      // ids (an id is never reused, so the counter never goes back).
      List<String> kept = new ArrayList<>(Segmenter.LAYOUT_KEYS);
      kept.add(RowIds.CONFIG_KEY);
      for (String key : kept) {
        if (base.config().containsKey(key)) {
          config.put(key, base.config().get(key));
        } else {
          config.remove(key);
        }
      }
      List<Fragment> fragments = r.fragments();
      long[] next = {base.nextRowId().orElse(0)};
      if (RowIds.on(base, config)) {
        // Restored rows keep the ids they had at the restored version; rows of a version from before the table
        // had ids take those of the same fragment now, else fresh ones.
        List<Fragment> withIds = new ArrayList<>();
        for (Fragment f : fragments) {
          withIds.add(spill.apply(RowIds.resolve(f, s.get(f.id()), txn, version, next), config));
        }
        fragments = withIds;
      } else {
        fragments = RowIds.withoutLineage(fragments);
      }
      Manifest m = new Manifest(version, r.schema(), fragments,
          maxFragment < 0 ? OptionalLong.empty() : OptionalLong.of(maxFragment), restored.maxFieldId(), timestamp,
          writerVersion, config, txn.uuid(), txn.path(), base.readerFeatures(), RowIds.withoutFeature(base.writerFeatures()));
      return RowIds.on(base, config) ? m.withNextRowId(next[0]) : m;
    } else if (op instanceof Operation.UpdateIndices) {
      return s.build(version, base.schema(), base.maxFieldId(), base.config(), txn, timestamp); // see IndexUpdate
    } else if (op instanceof Operation.UpdateConfig c) {
      Map<String, String> config = new HashMap<>(base.config());
      config.putAll(c.upserts());
      c.deletes().forEach(config::remove);
      return s.build(version, base.schema(), base.maxFieldId(), config, txn, timestamp);
    } else {
      throw new IllegalStateException("no manifest transformation for operation " + op.name());
    }
    return s.build(version, base.schema(), base.maxFieldId(), base.config(), txn, timestamp);
  }

  /** One fragment's new deletion file, while the fragment still has the one the transaction saw. */
  private static void applyDeletion(State s, Operation.FragmentDeletion fd, Transaction txn) {
    Fragment f = s.require(fd.fragmentId(), txn);
    if (!f.deletionFile().equals(fd.previous())) {
      throw new RetryableConflictException(
          "fragment " + f.id() + " has deletion file " + f.deletionFile().map(x -> x.path()).orElse("(none)")
              + " but transaction " + txn.uuid() + " was computed against "
              + fd.previous().map(x -> x.path()).orElse("(none)") + "; re-read and delete again");
    }
    if (fd.deletionFile().deletedRows() >= f.physicalRows()) {
      s.remove(f.id());
    } else {
      s.put(f.with(f.files(), Optional.of(fd.deletionFile()), f.overlays()));
    }
  }

  /** Appends the overlays to the fragment's, stamped with the version being built. */
  private static void addOverlays(State s, Fragment f, Operation.FragmentOverlays fo, long version) {
    List<Overlay> overlays = new ArrayList<>(f.overlays());
    fo.overlays().forEach(o -> overlays.add(o.withCommittedVersion(version)));
    s.put(f.with(f.files(), f.deletionFile(), overlays));
  }

  private Manifest overwrite(Manifest base, Transaction txn, Schema schema, List<Fragment> fragments,
      Map<String, String> configUpserts, Instant timestamp) {
    checkAtomicFields(schema, Operation.storedFieldIds(fragments), txn);
    long nextId = base == null ? 0 : base.nextFragmentId();
    List<Fragment> numbered = new ArrayList<>();
    for (Fragment f : fragments) {
      numbered.add(f.withId(nextId++));
    }
    OptionalLong maxFragmentId = nextId == 0 ? OptionalLong.empty() : OptionalLong.of(nextId - 1);
    int maxFieldId = Math.max(Math.max(0, schema.maxFieldId()), base == null ? 0 : base.maxFieldId());
    Map<String, String> config = new HashMap<>(base == null ? Map.of() : base.config());
    config.putAll(configUpserts);
    long version = base == null ? 1 : base.version() + 1;
    Manifest built = new Manifest(version, schema, numbered, maxFragmentId, maxFieldId, timestamp, writerVersion,
        config, txn.uuid(), txn.path(), Set.of(), Set.of());
    if (!RowIds.on(base, config)) {
      return built.withFragments(RowIds.withoutLineage(numbered));
    }
    // An overwrite replaces every row: each is new, with a fresh id (ids are never reused).
    long[] next = {base == null ? 0 : base.nextRowId().orElse(0)};
    List<Fragment> withIds = new ArrayList<>();
    for (Fragment f : numbered) {
      withIds.add(spill.apply(RowIds.resolve(f.withLineage(Optional.empty()), null, txn, version, next), config));
    }
    return built.withFragments(withIds).withNextRowId(next[0]);
  }

  private Manifest addColumns(Manifest base, State s, Transaction txn, Operation.AddColumns a, Instant timestamp) {
    Schema current = base.schema();
    Schema next = a.schema();
    // Existing fields must be exactly as they are now; new ones must have fresh ids.
    Set<Integer> currentIds = new HashSet<>();
    current.allFields().forEach(f -> currentIds.add(f.id()));
    Set<Integer> existingInNext = new HashSet<>();
    next.allFields().forEach(f -> {
      if (currentIds.contains(f.id())) {
        existingInNext.add(f.id());
      }
    });
    if (!existingInNext.equals(currentIds) || !next.project(currentIds).sameStructure(current)) {
      throw new RetryableConflictException(
          "add-columns " + txn.uuid() + " extends a schema that has changed since version " + txn.readVersion()
              + "; re-read and add the columns again");
    }
    List<Field> added = next.allFields().stream().filter(f -> !currentIds.contains(f.id())).toList();
    for (Field f : added) {
      if (f.id() <= base.maxFieldId()) {
        throw new RetryableConflictException(
            "add-columns " + txn.uuid() + " gives new field '" + next.pathOf(f.id()) + "' id " + f.id()
                + ", but ids up to " + base.maxFieldId() + " are already allocated; re-read and add the columns again");
      }
    }
    checkAtomicFields(next, a.writtenFieldIds(), txn);
    Map<Long, List<DataFile>> byFragment = new HashMap<>();
    for (Operation.FragmentFile ff : a.files()) {
      s.require(ff.fragmentId(), txn);
      byFragment.computeIfAbsent(ff.fragmentId(), k -> new ArrayList<>()).add(ff.file());
    }
    byFragment.forEach((id, files) -> {
      Fragment f = s.get(id);
      List<DataFile> all = new ArrayList<>(f.files());
      all.addAll(files);
      s.put(f.with(all, f.deletionFile(), f.overlays()));
    });
    // A non-nullable new atomic field must be stored in every fragment.
    for (Field f : next.atomicFields()) {
      if (!currentIds.contains(f.id()) && !nullableFromRoot(next, f)) {
        for (Fragment fragment : s.fragments()) {
          if (fragment.fileOf(f.id()).isEmpty()) {
            throw new RetryableConflictException(
                "new non-nullable column '" + next.pathOf(f.id()) + "' has no values in fragment " + fragment.id()
                    + " (added after version " + txn.readVersion() + "); re-read and compute it for every fragment");
          }
        }
      }
    }
    int maxFieldId = Math.max(base.maxFieldId(), next.maxFieldId());
    return s.build(base.version() + 1, next, maxFieldId, base.config(), txn, timestamp);
  }

  /**
   * {@code f} with the given fields' old data tombstoned (base columns, and overlays committed at or
   * before {@code overlaysUpTo}) and {@code files} added: the replacement path shared by data
   * replacement and staged column writes.
   */
  Fragment replace(Fragment f, java.util.Collection<Integer> fieldIds, List<DataFile> newFiles, long overlaysUpTo) {
    Fragment cleared = f.withTombstones(fieldIds, overlaysUpTo);
    List<DataFile> files = new ArrayList<>(cleared.files());
    files.addAll(newFiles);
    return cleared.with(files, cleared.deletionFile(), cleared.overlays());
  }

  /** False when the field and all its ancestors are non-nullable (so a missing value is not allowed). */
  public static boolean nullableFromRoot(Schema schema, Field field) {
    Field f = field;
    while (true) {
      if (f.nullable()) {
        return true;
      }
      if (f.parentId() < 0) {
        return false;
      }
      f = schema.field(f.parentId());
    }
  }

  private Manifest project(Manifest base, State s, Transaction txn, Operation.Project p, Instant timestamp) {
    Set<Integer> currentIds = new HashSet<>();
    base.schema().allFields().forEach(f -> currentIds.add(f.id()));
    for (Field f : p.schema().allFields()) {
      if (!currentIds.contains(f.id())) {
        throw new RetryableConflictException(
            "projection " + txn.uuid() + " names field id " + f.id() + ", which the table no longer has; re-read");
      }
    }
    Set<Integer> dropped = new HashSet<>(currentIds);
    p.schema().allFields().forEach(f -> dropped.remove(f.id()));
    if (!dropped.isEmpty()) {
      for (Fragment f : s.fragments()) {
        s.put(f.withTombstones(dropped, Long.MAX_VALUE));
      }
    }
    return s.build(base.version() + 1, p.schema(), base.maxFieldId(), base.config(), txn, timestamp);
  }

  /**
   * Every field the operation read (a predicate's columns, an update's or added column's inputs) is still
   * a field of the schema built on: values computed from a column that no longer exists mean nothing.
   * The resolver refuses this already for every projection committed since the read version; this is
   * the builder's own check of the same precondition.
   */
  private static void checkReadFields(Schema schema, Set<Integer> ids, Transaction txn) {
    for (int id : ids) {
      if (schema.findField(id).isEmpty()) {
        throw new RetryableConflictException(
            "transaction " + txn.uuid() + " (" + txn.operation().name() + ") read field id " + id
                + ", which is not a field of the table schema at the version being built; it was dropped since"
                + " version " + txn.readVersion() + ". Nothing was committed; re-open the latest version and redo"
                + " the change.");
      }
    }
  }

  private static void checkAtomicFields(Schema schema, Set<Integer> ids, Transaction txn) {
    Set<Integer> atomic = new HashSet<>();
    for (Field f : schema.atomicFields()) {
      atomic.add(f.id());
    }
    for (int id : ids) {
      if (!atomic.contains(id)) {
        throw new IncompatibleTransactionException(
            "transaction " + txn.uuid() + " (" + txn.operation().name() + ") writes field id " + id
                + ", which is not an atomic field of the table schema at the version being built; the schema"
                + " changed since version " + txn.readVersion() + ". Recompute the write.");
      }
    }
  }

  /**
   * The fragment list being transformed: the base's fragments (read from its segments only where asked for)
   * and the changes to them, in id order. A segmented base stays segmented: {@link #build} reuses every segment
   * the changes do not touch.
   */
  private final class State {
    private final Manifest base;
    private final FragmentList segmented;
    private TreeMap<Long, Fragment> all;
    /** Changed fragments by id; null marks a removed one. */
    private final TreeMap<Long, Fragment> changes = new TreeMap<>();
    private long nextId;

    State(Manifest base) {
      this.base = base;
      this.segmented = base.fragments() instanceof FragmentList list ? list : null;
      nextId = base.nextFragmentId();
    }

    private Fragment baseFragment(long id) {
      if (segmented != null) {
        return segmented.find(id).orElse(null);
      }
      if (all == null) {
        all = new TreeMap<>();
        base.fragments().forEach(f -> all.put(f.id(), f));
      }
      return all.get(id);
    }

    Fragment require(long id, Transaction txn) {
      Fragment f = get(id);
      if (f == null) {
        throw new RetryableConflictException(
            txn.operation().name() + " " + txn.uuid() + " targets fragment " + id
                + ", which a commit after version " + txn.readVersion()
                + " removed (deleted, compacted or overwritten); re-read and redo the change");
      }
      return f;
    }

    Fragment get(long id) {
      return changes.containsKey(id) ? changes.get(id) : baseFragment(id);
    }

    void put(Fragment f) {
      if (!changes.containsKey(f.id()) && baseFragment(f.id()) == f) {
        return; // unchanged: keeps its segment as it is
      }
      changes.put(f.id(), f);
    }

    void remove(long id) {
      changes.put(id, null);
    }

    void addNew(Fragment f) {
      changes.put(nextId, f.withId(nextId));
      nextId++;
    }

    List<Fragment> fragments() {
      List<Fragment> out = new ArrayList<>();
      java.util.Iterator<Map.Entry<Long, Fragment>> pending = changes.entrySet().iterator();
      Map.Entry<Long, Fragment> next = pending.hasNext() ? pending.next() : null;
      for (Fragment f : base.fragments()) {
        while (next != null && next.getKey() < f.id()) {
          if (next.getValue() != null) {
            out.add(next.getValue());
          }
          next = pending.hasNext() ? pending.next() : null;
        }
        if (next != null && next.getKey() == f.id()) {
          if (next.getValue() != null) {
            out.add(next.getValue());
          }
          next = pending.hasNext() ? pending.next() : null;
        } else {
          out.add(f);
        }
      }
      while (next != null) {
        if (next.getValue() != null) {
          out.add(next.getValue());
        }
        next = pending.hasNext() ? pending.next() : null;
      }
      return out;
    }

    Map<Long, Fragment> fragmentMap() {
      TreeMap<Long, Fragment> map = new TreeMap<>();
      fragments().forEach(f -> map.put(f.id(), f));
      return map;
    }

    Manifest build(long version, Schema schema, int maxFieldId, Map<String, String> config, Transaction txn,
        Instant timestamp) {
      boolean rowIds = RowIds.on(base, config);
      long[] nextRowId = {base.nextRowId().orElse(0)};
      if (rowIds && !base.hasRowIds()) {
        // Row ids are turned on: every row there is gets one now (their earlier history is unknown).
        for (Fragment f : base.fragments()) {
          changes.putIfAbsent(f.id(), f);
        }
      }
      for (Map.Entry<Long, Fragment> e : changes.entrySet()) {
        Fragment f = e.getValue();
        if (f != null) {
          e.setValue(rowIds ? spill.apply(RowIds.resolve(f, baseFragment(f.id()), txn, version, nextRowId), config)
              : f.withLineage(Optional.empty()));
        }
      }
      OptionalLong maxFragmentId = nextId == 0 ? OptionalLong.empty() : OptionalLong.of(nextId - 1);
      Segmenter.Policy policy = Segmenter.Policy.of(config, segmented != null);
      List<Fragment> fragments = segmented != null && policy.segmented()
          ? Segmenter.update(segmented, changes, policy, schema)
          : fragments();
      Manifest m = new Manifest(version, schema, fragments, maxFragmentId, maxFieldId, timestamp, writerVersion,
          config, txn.uuid(), txn.path(), base.readerFeatures(), RowIds.withoutFeature(base.writerFeatures()));
      return rowIds ? m.withNextRowId(nextRowId[0]) : m;
    }
  }

}
