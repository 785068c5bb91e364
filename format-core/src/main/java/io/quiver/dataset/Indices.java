package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The scalar indices of a table (docs/format.md §13), at a dataset handle's version: create, list, optimize and
 * drop. An index speeds up filters ({@code =}, {@code IN}, ranges, {@code IS NULL}) on one column; it never
 * changes what a scan returns. Each segment of an index covers fragments in the state they had when it was built,
 * and a scan uses it for a fragment only while the fragment is still in that state: rows appended, updated in the
 * indexed column, replaced or compacted since are scanned until {@link #optimize} indexes them. Deleted rows need
 * no upkeep (scans apply the current deletion files). Each commit moves the handle.
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
    if (!ScalarIndex.isValidName(name)) {
      throw new InvalidArgumentException("index name '" + name + "' must match [A-Za-z0-9_.-]{1,128}");
    }
    if (kind == null) {
      throw new InvalidArgumentException("index kind must be btree or bitmap, got null");
    }
    Manifest base = dataset.base();
    base.index(name).ifPresent(existing -> {
      throw new InvalidArgumentException("table " + dataset.uri() + " already has an index named '" + name + "' (on "
          + base.schema().pathOf(existing.fieldId()) + ", created at version " + existing.createdVersion()
          + "); drop it first or choose another name");
    });
    Field field = indexable(base, column);
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
