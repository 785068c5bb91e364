package io.quiver.conformance;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SampleTable;
import io.quiver.exceptions.IdempotenceKeyConflictException;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A driver process for {@link KeyedAppendAcrossProcessesContract}: opens the table at {@code args[0]} (store
 * options {@code key=value} from {@code args[4]} on) at its latest version, appends the sample rows {@code
 * [args[1], args[1] + args[2])} under the idempotence key {@code args[3]}, prints {@code VERSION n} or {@code
 * CONFLICT n} and exits — no state survives it.
 */
public final class KeyedAppendChild {
  private KeyedAppendChild() {}

  private static java.util.Map<String, String> options(String[] args) {
    java.util.Map<String, String> options = new java.util.HashMap<>();
    for (int i = 4; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      options.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    return options;
  }

  public static void main(String[] args) {
    long from = Long.parseLong(args[1]);
    int rows = Integer.parseInt(args[2]);
    try (RootAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.open(args[0], DatasetOptions.builder().allocator(allocator).storeOptions(options(args))
            .build());
        VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      try {
        long v = ds.append(List.of(b), CommitOptions.defaults().withIdempotenceKey(args[3]));
        System.out.println("VERSION " + v);
      } catch (IdempotenceKeyConflictException e) {
        System.out.println("CONFLICT " + e.committedVersion());
      }
    }
  }
}
