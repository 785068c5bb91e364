package io.quiver.internal.index;

import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/** Which atomic fields decide an indexed field's values: every atomic field of its top-level column. */
public final class IndexedColumns {
  private IndexedColumns() {}

  /**
   * The atomic field ids of the top-level column holding {@code fieldId} (the field itself when top-level): a
   * struct member's value is null where an ancestor is, and an ancestor's validity may come from any member's
   * files (docs/format.md §3), so all of them are part of the state an index segment records.
   */
  public static Set<Integer> of(Schema schema, int fieldId) {
    Field top = schema.field(fieldId);
    Optional<Field> parent = schema.parentOf(fieldId);
    while (parent.isPresent()) {
      top = parent.get();
      parent = schema.parentOf(top.id());
    }
    Set<Integer> out = new HashSet<>();
    for (Field f : top.preorder()) {
      if (!f.isStruct()) {
        out.add(f.id());
      }
    }
    return out;
  }
}
