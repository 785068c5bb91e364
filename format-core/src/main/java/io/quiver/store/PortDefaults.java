package io.quiver.store;

import io.quiver.exceptions.StoreException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The bodies of {@link ObjectStore}'s default methods, written once so that a decorator which must run them
 * through its own {@code list}/{@code delete} ({@link ForwardingObjectStore#listAllByPages}) uses the same
 * code as the interface.
 */
final class PortDefaults {
  private PortDefaults() {}

  static List<ObjectInfo> listAll(ObjectStore store, String prefix) {
    StoreArgs.prefix(prefix);
    List<ObjectInfo> all = new ArrayList<>();
    Optional<String> after = Optional.empty();
    while (true) {
      ListPage page = store.list(prefix, after, 1000);
      all.addAll(page.objects());
      if (!page.hasMore() || page.objects().isEmpty()) {
        return all;
      }
      after = Optional.of(page.objects().get(page.objects().size() - 1).key());
    }
  }

  static List<byte[]> readEach(ObjectStore store, String key, List<ByteRange> ranges) {
    StoreArgs.key(key);
    List<ByteRange> checked = StoreArgs.ranges(ranges);
    List<byte[]> out = new ArrayList<>(checked.size());
    for (ByteRange range : checked) {
      out.add(store.readRange(key, range.offset(), range.length()));
    }
    return out;
  }

  static List<String> deleteEach(ObjectStore store, Collection<String> keys) {
    List<String> checked = StoreArgs.keys(keys);
    List<String> failed = new ArrayList<>();
    for (String key : checked) {
      try {
        store.delete(key);
      } catch (StoreException e) {
        failed.add(key);
      }
    }
    return failed;
  }
}
