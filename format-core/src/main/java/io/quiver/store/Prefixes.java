package io.quiver.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The layout an engine's catalog reads a warehouse by: the direct child prefixes of a store, each either a table
 * (it holds {@code _versions/}) or a plain prefix (a database, a namespace). Names starting with {@code _} are
 * Quiver's own and are never children.
 */
public final class Prefixes {
  private Prefixes() {}

  /** A direct child prefix of a store, and whether it is a Quiver table. */
  public record Child(String name, boolean table) {}

  /**
   * The direct children of {@code store}'s root, in key order. Costs one small listing per child (plus one per
   * object directly under the root): listing skips over each child's keys instead of reading them.
   */
  public static List<Child> children(ObjectStore store) {
    List<Child> out = new ArrayList<>();
    Optional<String> after = Optional.empty();
    while (true) {
      ListPage page = store.list("", after, 1);
      if (page.objects().isEmpty()) {
        return out;
      }
      String key = page.objects().get(0).key();
      int slash = key.indexOf('/');
      if (slash < 0) {
        after = Optional.of(key);
        continue;
      }
      String child = key.substring(0, slash);
      if (!child.startsWith("_")) {
        out.add(new Child(child, isTable(store, child + "/")));
      }
      // '0' follows '/': every key under child + "/" sorts before child + "0".
      after = Optional.of(child + "0");
    }
  }

  /** Whether {@code prefix} (empty, or ending in '/') of {@code store} holds a Quiver table's versions. */
  public static boolean isTable(ObjectStore store, String prefix) {
    return !store.list(prefix + "_versions/", Optional.empty(), 1).objects().isEmpty();
  }
}
