package io.quiver.internal.write;

import io.quiver.internal.read.FragmentReader;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.roaringbitmap.RoaringBitmap;

/**
 * The write side of the struct validity rule (docs/format.md §5): a file written for some but not all
 * of a struct's members stores the struct's current validity, read by the rule every reader applies, so
 * that all files of a fragment agree and rewriting a member never changes where its struct is null. A
 * file holding all of a struct's members writes the struct whole, with the caller's validity.
 */
final public class StructValidityWrites {
  private StructValidityWrites() {}

  /**
   * The structs of {@code columns} (reached from the top level through structs) whose validity a write
   * of {@code columns} must preserve: those that exist in {@code table} and hold only some of its
   * members there. Fields of {@code fresh} (new top-level columns) are written whole.
   */
  static List<Integer> partialStructs(Schema table, Schema columns, Set<Integer> fresh) {
    List<Integer> out = new ArrayList<>();
    for (Field top : columns.fields()) {
      if (!fresh.contains(top.id())) {
        collect(table, top, out);
      }
    }
    return out;
  }

  private static void collect(Schema table, Field written, List<Integer> out) {
    if (!written.isStruct()) {
      return;
    }
    Field current = table.findField(written.id()).orElse(null);
    if (current != null && !members(current).equals(members(written))) {
      out.add(written.id());
    }
    for (Field child : written.children()) {
      collect(table, child, out);
    }
  }

  /** Ids of the non-struct fields under a struct, reached through structs only (its stored members). */
  private static Set<Integer> members(Field struct) {
    Set<Integer> out = new HashSet<>();
    for (Field child : struct.children()) {
      if (child.isStruct()) {
        out.addAll(members(child));
      } else {
        out.add(child.id());
      }
    }
    return out;
  }

  /**
   * Where each partial struct of a write of {@code columns} to {@code fragment} is null now (at the
   * version of {@code table}), which the written file must store; empty when nothing is preserved.
   */
  static public Map<Integer, RoaringBitmap> preservedNulls(TableIo io, Fragment fragment, Schema table, Schema columns,
      Set<Integer> fresh, BufferAllocator allocator) {
    return FragmentReader.structNulls(io, fragment, table, partialStructs(table, columns, fresh), allocator);
  }
}
