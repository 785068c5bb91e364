package io.quiver.conformance.example;

import io.quiver.conformance.Capability;
import io.quiver.conformance.StoreFixture;
import java.util.Optional;
import java.util.UUID;

/**
 * The fixture of docs/adapter-guide.md's example, as an adapter module would write it for its own store
 * (here the memory store, so that the example runs anywhere): a name, fresh table URIs, and what the store
 * cannot do.
 */
public final class ExampleStoreFixture implements StoreFixture {
  @Override
  public String name() {
    return "example";
  }

  @Override
  public String newTableUri() {
    return "memory://example-" + UUID.randomUUID() + "/table";
  }

  @Override
  public Optional<String> lacks(Capability capability) {
    return capability == Capability.SHARED_ACROSS_PROCESSES ? Optional.of("tables live in this JVM") : Optional.empty();
  }
}
