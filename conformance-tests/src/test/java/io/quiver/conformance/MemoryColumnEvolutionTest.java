package io.quiver.conformance;

import java.util.UUID;

class MemoryColumnEvolutionTest extends ColumnEvolutionContract {
  @Override
  protected String newTableUri() {
    return "memory://evolution-" + UUID.randomUUID() + "/table";
  }
}
