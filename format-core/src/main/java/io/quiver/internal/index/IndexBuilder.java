package io.quiver.internal.index;

import io.quiver.dataset.RowAddress;
import io.quiver.internal.predicate.CellValues;
import io.quiver.internal.read.FragmentReader;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.IndexSegment;
import io.quiver.manifest.IndexedFragment;
import io.quiver.manifest.ScalarIndex;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.roaringbitmap.RoaringBitmap;

/**
 * Builds one index segment: reads the indexed field of every physical row of the given fragments (overlays
 * merged, deleted rows included, so the segment stays right whatever rows are deleted later: readers apply the
 * current deletion file), sorts the keys and writes the segment file.
 */
public final class IndexBuilder {
  private static final int BATCH_ROWS = 65_536;

  private IndexBuilder() {}

  /**
   * Writes a segment of {@code index}'s kind for {@code fragments} (in the state {@code table} at {@code
   * version} has them) and returns its entry; nothing is committed.
   */
  public static IndexSegment build(TableIo io, Schema table, long version, String indexUuid, ScalarIndex.Kind kind,
      int fieldId, List<Fragment> fragments, BufferAllocator allocator) {
    Schema projected = table.project(List.of(fieldId));
    List<String> path = pathNames(table, fieldId);
    Set<Integer> column = IndexedColumns.of(table, fieldId);
    IndexEntries entries = new IndexEntries();
    Map<Long, RoaringBitmap> nulls = new HashMap<>();
    List<IndexedFragment> covered = new ArrayList<>();
    for (Fragment fragment : fragments) {
      covered.add(new IndexedFragment(fragment.id(), fragment.physicalRows(),
          IndexedFragment.sourceFilesOf(fragment, column)));
      try (FragmentReader reader = new FragmentReader(io, fragment, projected, table, allocator)) {
        for (FragmentReader.Chunk chunk : reader.plan(BATCH_ROWS)) {
          try (VectorSchemaRoot rows = reader.read(chunk)) {
            List<FieldVector> chain = chain(rows, path);
            FieldVector leaf = chain.get(chain.size() - 1);
            for (int r = 0; r < chunk.length(); r++) {
              long offset = chunk.start() + r;
              if (isNull(chain, r)) {
                nulls.computeIfAbsent(fragment.id(), f -> new RoaringBitmap()).add((int) offset);
              } else {
                entries.add(CellValues.of(leaf, r), RowAddress.of(fragment.id(), offset));
              }
            }
          }
        }
      }
    }
    entries.sort();
    SegmentFile.Written written = SegmentFile.write(kind, fieldId, entries, nulls);
    String file = "_indices/" + indexUuid + "/" + UUID.randomUUID() + ".idx";
    io.store().write(file, written.bytes());
    return new IndexSegment(file, written.bytes().length, written.footerOffset(), written.footerLength(), version,
        written.rows(), covered);
  }

  private static List<String> pathNames(Schema table, int fieldId) {
    List<String> names = new ArrayList<>();
    Field f = table.field(fieldId);
    names.add(0, f.name());
    while (f.parentId() != -1) {
      f = table.field(f.parentId());
      names.add(0, f.name());
    }
    return names;
  }

  /** The vectors from the top-level column down to the indexed field. */
  private static List<FieldVector> chain(VectorSchemaRoot rows, List<String> path) {
    List<FieldVector> out = new ArrayList<>();
    FieldVector v = rows.getVector(path.get(0));
    out.add(v);
    for (int i = 1; i < path.size(); i++) {
      v = ((StructVector) v).getChild(path.get(i));
      out.add(v);
    }
    return out;
  }

  /** Null where the field or any struct ancestor is, as the predicate evaluator reads a member. */
  private static boolean isNull(List<FieldVector> chain, int row) {
    for (FieldVector v : chain) {
      if (v.isNull(row)) {
        return true;
      }
    }
    return false;
  }
}
