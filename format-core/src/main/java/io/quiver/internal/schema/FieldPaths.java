package io.quiver.internal.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Dotted field paths ({@code "a.b.c"}). Arrow allows any characters in names, so a name containing
 * {@code '.'} or {@code '`'} is written between backticks with {@code '`'} doubled, e.g. {@code
 * "`a.b`.c"}; this keeps every field addressable by exactly one path.
 */
public final class FieldPaths {
  private FieldPaths() {}

  /** A name as it appears in a path: between backticks when it holds {@code '.'} or {@code '`'}. */
  public static String quote(String name) {
    if (name.indexOf('.') < 0 && name.indexOf('`') < 0) {
      return name;
    }
    return "`" + name.replace("`", "``") + "`";
  }

  /** The path of a child given its parent's path (empty for a top-level field). */
  public static String child(String parentPath, String childName) {
    return parentPath == null || parentPath.isEmpty()
        ? quote(childName)
        : parentPath + "." + quote(childName);
  }

  /** Splits a path into names; empty when the path is malformed. */
  public static Optional<List<String>> parse(String path) {
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
}
