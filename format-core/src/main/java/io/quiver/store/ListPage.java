package io.quiver.store;

import java.util.List;

/** One page of a prefix listing, in ascending lexical key order. */
public record ListPage(List<ObjectInfo> objects, boolean hasMore) {
  public ListPage {
    objects = List.copyOf(objects);
  }
}
