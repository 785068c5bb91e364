package io.quiver.internal.read;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.internal.file.DataFileMetadata;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.HashSet;
import java.util.Set;

/**
 * What every reader of a fragment checks and looks up the same way ({@link FragmentReader}, {@link
 * PointTake}): that a data file is the one the manifest recorded and holds the rows it must, which batch
 * holds a row, and how a struct's validity is found (its depth, its atomic members).
 */
final class FragmentFiles {
  private FragmentFiles() {}

  /** The file's metadata, refused when its size is not the one the manifest records. */
  static DataFileMetadata checked(TableIo io, Fragment fragment, DataFile file) {
    DataFileMetadata md = io.dataFiles().metadata(file.path());
    if (md.fileSize() != file.sizeBytes()) {
      throw new CorruptFileException(
          io.store().locationOf(file.path()),
          "is " + md.fileSize() + " bytes but the manifest of fragment " + fragment.id() + " records "
              + file.sizeBytes() + "; the file was truncated or replaced");
    }
    return md;
  }

  /** A base file's metadata: {@link #checked}, and one row per physical row of the fragment. */
  static DataFileMetadata base(TableIo io, Fragment fragment, DataFile file) {
    DataFileMetadata md = checked(io, fragment, file);
    if (md.rowCount() != fragment.physicalRows()) {
      throw new CorruptFileException(
          io.store().locationOf(file.path()),
          "holds " + md.rowCount() + " rows but fragment " + fragment.id() + " has " + fragment.physicalRows()
              + " physical rows");
    }
    return md;
  }

  /** An overlay file's metadata: {@link #checked}, and as many rows as its largest per-field coverage. */
  static DataFileMetadata overlay(TableIo io, Fragment fragment, Overlay overlay) {
    DataFile file = overlay.dataFile();
    DataFileMetadata md = checked(io, fragment, file);
    long expectedRows = 0;
    for (int i = 0; i < file.fieldIds().size(); i++) {
      expectedRows = Math.max(expectedRows, overlay.coverage().offsetsFor(i).getLongCardinality());
    }
    if (md.rowCount() != expectedRows) {
      throw new CorruptFileException(
          io.store().locationOf(file.path()),
          "holds " + md.rowCount() + " rows but overlay coverage in fragment " + fragment.id()
              + " needs " + expectedRows + " (the largest per-field coverage)");
    }
    return md;
  }

  /** The batch of the file holding row {@code row}. */
  static int batchOf(DataFileMetadata md, long row) {
    int lo = 0;
    int hi = md.batchCount() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (md.batchStart(mid) <= row) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** How many ancestors {@code field} has in the table schema (0 for a top-level field). */
  static int depthOf(Schema table, Field field) {
    int depth = 0;
    int parent = field.parentId();
    while (parent >= 0) {
      depth++;
      parent = table.field(parent).parentId();
    }
    return depth;
  }

  /** A struct's base validity source: the file and atomic column of its first live atomic descendant. */
  record StructSource(DataFile file, int column) {}

  /**
   * Where a struct's base validity comes from: the base file storing its first live atomic descendant in
   * table-schema order, whichever members are projected (docs/format.md §5); null when no base file of the
   * fragment stores one (the struct is null there).
   */
  static StructSource validitySource(Schema table, Fragment fragment, Field struct) {
    Field full = table.findField(struct.id()).orElse(struct);
    for (Field member : full.preorder()) {
      if (member.isStruct()) {
        continue;
      }
      for (DataFile file : fragment.files()) {
        int column = file.columnOf(member.id());
        if (column >= 0) {
          return new StructSource(file, column);
        }
      }
    }
    return null;
  }

  /** The ids of a struct's atomic descendants in the table schema, projected or not. */
  static Set<Integer> atomicMembers(Schema table, Field struct) {
    Set<Integer> members = new HashSet<>();
    Field full = table.findField(struct.id()).orElse(struct);
    for (Field d : full.preorder()) {
      if (d.isAtomic()) {
        members.add(d.id());
      }
    }
    return members;
  }
}
