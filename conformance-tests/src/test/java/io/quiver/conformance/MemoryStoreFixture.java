package io.quiver.conformance;

import java.util.UUID;

/** The in-memory store of format-core. */
public final class MemoryStoreFixture implements StoreFixture {
  public static final MemoryStoreFixture INSTANCE = new MemoryStoreFixture();

  private MemoryStoreFixture() {}

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public String newTableUri() {
    return "memory://conformance-" + UUID.randomUUID() + "/table";
  }
}
