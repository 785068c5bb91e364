package io.quiver.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrefixesTest {
  @Test
  void childrenAreTheDirectPrefixesInKeyOrderEachMarkedTableOrNot() {
    try (MemoryObjectStore store = new MemoryObjectStore("memory://prefixes")) {
      byte[] one = {1};
      store.putIfAbsent("top-level-object", one);
      store.putIfAbsent("db/_database", one);
      store.putIfAbsent("db/events/_versions/1.manifest", one);
      store.putIfAbsent("db/events/data/a.arrow", one);
      store.putIfAbsent("db.2/x", one); // "db.2/x" sorts before "db/…" ('.' < '/'): "db" must still be found
      store.putIfAbsent("events/_versions/1.manifest", one);
      store.putIfAbsent("events/_versions/2.manifest", one);
      store.putIfAbsent("_quiver/anything", one);
      store.putIfAbsent("zeta/only/deeper/keys", one);

      assertThat(Prefixes.children(store)).containsExactly(new Prefixes.Child("db.2", false),
          new Prefixes.Child("db", false), new Prefixes.Child("events", true), new Prefixes.Child("zeta", false));
      assertThat(Prefixes.isTable(store, "events/")).isTrue();
      assertThat(Prefixes.isTable(store, "db/")).isFalse();
      assertThat(Prefixes.isTable(store, "db/events/")).isTrue();
    }
  }

  @Test
  void anEmptyStoreHasNoChildren() {
    try (MemoryObjectStore store = new MemoryObjectStore("memory://empty")) {
      assertThat(Prefixes.children(store)).isEmpty();
      assertThat(Prefixes.isTable(store, "")).isFalse();
    }
  }
}
