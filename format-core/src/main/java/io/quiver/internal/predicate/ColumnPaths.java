package io.quiver.internal.predicate;

import io.quiver.internal.schema.FieldPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Column paths over Arrow schemas, with the grammar of {@link io.quiver.schema.Schema#findField(String)}:
 * names separated by {@code '.'}; a name holding {@code '.'} or {@code '`'} between backticks, {@code '`'}
 * doubled.
 */
final public class ColumnPaths {
  private ColumnPaths() {}

  static String quote(String name) {
    return FieldPaths.quote(name);
  }

  /** Splits a path into names; empty when the path is malformed. */
  static Optional<List<String>> parse(String path) {
    return FieldPaths.parse(path);
  }

  /** Paths of every top-level column and struct member of an Arrow schema. */
  static List<String> addressable(Schema schema) {
    List<String> out = new ArrayList<>();
    addressable(schema.getFields(), "", out);
    return out;
  }

  private static void addressable(List<Field> level, String prefix, List<String> out) {
    for (Field f : level) {
      String path = FieldPaths.child(prefix, f.getName());
      out.add(path);
      if (f.getType() instanceof ArrowType.Struct) {
        addressable(f.getChildren(), path, out);
      }
    }
  }
}
