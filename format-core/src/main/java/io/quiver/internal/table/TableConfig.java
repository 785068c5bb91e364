package io.quiver.internal.table;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.txn.Operation;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Checks a configuration update before it becomes an operation. */
final public class TableConfig {
  private TableConfig() {}

  static public Operation.UpdateConfig update(Map<String, String> upserts, Set<String> deletes) {
    Map<String, String> set = new HashMap<>();
    if (upserts != null) {
      for (Map.Entry<String, String> e : upserts.entrySet()) {
        checkKey(e.getKey());
        if (e.getValue() == null) {
          throw new InvalidArgumentException(
              "configuration key '" + e.getKey() + "' has a null value; pass it in deletes to remove the key");
        }
        set.put(e.getKey(), e.getValue());
      }
    }
    Set<String> removed = new TreeSet<>();
    if (deletes != null) {
      for (String key : deletes) {
        checkKey(key);
        if (set.containsKey(key)) {
          throw new InvalidArgumentException(
              "configuration key '" + key + "' is both set and removed; pass it in one of upserts or deletes");
        }
        removed.add(key);
      }
    }
    io.quiver.internal.txn.LedgerUpdate.Policy.check(set);
    io.quiver.internal.write.CompressionConfig.check(set);
    io.quiver.internal.txn.Segmenter.Policy.check(set);
    io.quiver.dataset.RowDelta.Isolation.of(set);
    io.quiver.internal.txn.RowIds.check(set);
    LineageFiles.check(set);
    return new Operation.UpdateConfig(set, removed);
  }

  private static void checkKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new InvalidArgumentException(
          "configuration keys must be non-empty strings, got " + (key == null ? "null" : "''"));
    }
  }
}
