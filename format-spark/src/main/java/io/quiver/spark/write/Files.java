package io.quiver.spark.write;

import io.quiver.dataset.WriteResult;
import io.quiver.spark.TableRef;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Deletes data files no commit references (aborted attempts, never-committed results). */
final class Files {
  private Files() {}

  static void delete(TableRef ref, Collection<String> files) {
    if (files.isEmpty()) {
      return;
    }
    try (ObjectStore store = ObjectStores.defaultRegistry().open(ref.uri(), ref.storeOptions())) {
      store.deleteAll(files);
    }
  }

  static List<String> of(List<WriteResult> results) {
    List<String> out = new ArrayList<>();
    for (WriteResult r : results) {
      out.addAll(r.files());
    }
    return out;
  }
}
