package io.quiver.flink.source;

import java.util.ArrayList;
import java.util.List;

/**
 * Column paths as Quiver names them: top-level names or struct members joined by {@code '.'}, a name holding
 * {@code '.'} or {@code '`'} written between backticks (a backtick in it doubled).
 */
public final class ColumnPaths {
  private ColumnPaths() {}

  /** The names of a dotted path; a name holding {@code '.'} or {@code '`'} is between backticks. */
  public static List<String> split(String path) {
    List<String> names = new ArrayList<>();
    StringBuilder name = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == '`') {
        if (quoted && i + 1 < path.length() && path.charAt(i + 1) == '`') {
          name.append('`');
          i++;
        } else {
          quoted = !quoted;
        }
      } else if (c == '.' && !quoted) {
        names.add(name.toString());
        name.setLength(0);
      } else {
        name.append(c);
      }
    }
    names.add(name.toString());
    return names;
  }

  /** The path of {@code names}, quoting a name that holds {@code '.'} or {@code '`'}. */
  public static String join(List<String> names) {
    StringBuilder sb = new StringBuilder();
    for (String n : names) {
      if (sb.length() > 0) {
        sb.append('.');
      }
      sb.append(n.contains(".") || n.contains("`") ? "`" + n.replace("`", "``") + "`" : n);
    }
    return sb.toString();
  }
}
