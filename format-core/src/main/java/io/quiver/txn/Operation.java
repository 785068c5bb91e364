package io.quiver.txn;

import io.quiver.manifest.Fragment;
import io.quiver.schema.Schema;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** What a transaction changes. A closed set: the conflict resolver decides every pair. */
public sealed interface Operation {

  /** A short name for messages and history listings. */
  String name();

  /**
   * Adds fragments. Their ids are placeholders: the committed manifest numbers them from its max
   * fragment id + 1, in order, so concurrent appends never collide.
   */
  record Append(List<Fragment> fragments) implements Operation {
    public Append {
      fragments = List.copyOf(fragments);
    }

    @Override
    public String name() {
      return "append";
    }
  }

  /**
   * Replaces the schema and every fragment, and upserts configuration. Creating a table is an overwrite
   * read at version 0.
   */
  record Overwrite(Schema schema, List<Fragment> fragments, Map<String, String> configUpserts)
      implements Operation {
    public Overwrite {
      Objects.requireNonNull(schema, "schema");
      fragments = List.copyOf(fragments);
      configUpserts = Map.copyOf(configUpserts);
    }

    @Override
    public String name() {
      return "overwrite";
    }
  }
}
