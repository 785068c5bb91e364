package io.quiver.predicate;

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
final class ColumnPaths {
  private ColumnPaths() {}

  static String quote(String name) {
    if (name.indexOf('.') < 0 && name.indexOf('`') < 0) {
      return name;
    }
    return "`" + name.replace("`", "``") + "`";
  }

  /** Splits a path into names; empty when the path is malformed. */
  static Optional<List<String>> parse(String path) {
    if (path == null || path.isEmpty()) {
      return Optional.empty();
    }
    List<String> names = new ArrayList<>();
    int i = 0;
    int n = path.length();
    while (true) {
      StringBuilder name = new StringBuilder();
      if (i < n && path.charAt(i) == '`') {
        i++;
        boolean closed = false;
        while (i < n) {
          char c = path.charAt(i);
          if (c == '`') {
            if (i + 1 < n && path.charAt(i + 1) == '`') {
              name.append('`');
              i += 2;
            } else {
              i++;
              closed = true;
              break;
            }
          } else {
            name.append(c);
            i++;
          }
        }
        if (!closed) {
          return Optional.empty();
        }
      } else {
        while (i < n && path.charAt(i) != '.') {
          char c = path.charAt(i);
          if (c == '`') {
            return Optional.empty();
          }
          name.append(c);
          i++;
        }
      }
      if (name.length() == 0) {
        return Optional.empty();
      }
      names.add(name.toString());
      if (i == n) {
        return Optional.of(names);
      }
      if (path.charAt(i) != '.') {
        return Optional.empty();
      }
      i++;
    }
  }

  /** Paths of every top-level column and struct member of an Arrow schema. */
  static List<String> addressable(Schema schema) {
    List<String> out = new ArrayList<>();
    addressable(schema.getFields(), "", out);
    return out;
  }

  private static void addressable(List<Field> level, String prefix, List<String> out) {
    for (Field f : level) {
      String path = prefix.isEmpty() ? quote(f.getName()) : prefix + "." + quote(f.getName());
      out.add(path);
      if (f.getType() instanceof ArrowType.Struct) {
        addressable(f.getChildren(), path, out);
      }
    }
  }
}
