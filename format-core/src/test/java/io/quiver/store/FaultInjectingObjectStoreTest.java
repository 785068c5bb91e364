package io.quiver.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.StoreException;
import io.quiver.store.FaultInjectingObjectStore.Call;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore.PutResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class FaultInjectingObjectStoreTest {
  private final MemoryObjectStore memory = new MemoryObjectStore("memory://fault");
  private final FaultInjectingObjectStore store = new FaultInjectingObjectStore(memory);

  @Test
  void failBeforeDoesNotReachTheStoreAndIsTransient() {
    store.armOnce(Op.PUT_IF_ABSENT, "k", Fault.FAIL_BEFORE);
    StoreException e = assertThrows(StoreException.class, () -> store.putIfAbsent("k", new byte[] {1}));
    assertTrue(e.isTransient());
    assertTrue(memory.head("k").isEmpty());
    assertEquals(PutResult.CREATED, store.putIfAbsent("k", new byte[] {2}), "one-shot fault is spent");
  }

  @Test
  void failAfterTakesEffectThenThrows() {
    store.armOnce(Op.PUT_IF_ABSENT, "k", Fault.FAIL_AFTER);
    StoreException e = assertThrows(StoreException.class, () -> store.putIfAbsent("k", new byte[] {1}));
    assertFalse(e.isTransient(), "the outcome is unknown to the caller");
    assertTrue(e instanceof io.quiver.exceptions.CommitStateUnknownException, "typed as an adapter would: " + e);
    assertArrayEquals(new byte[] {1}, memory.read("k"));
    assertEquals(PutResult.ALREADY_EXISTS, store.putIfAbsent("k", new byte[] {2}));
  }

  @Test
  void countedFaultsMatchByPredicateAndOtherKeysPass() {
    store.arm(Op.WRITE, k -> k.startsWith("data/"), Fault.FAIL_BEFORE, 2);
    store.write("other", new byte[0]);
    assertThrows(StoreException.class, () -> store.write("data/a", new byte[0]));
    assertThrows(StoreException.class, () -> store.write("data/b", new byte[0]));
    assertEquals(0, store.pendingFaults());
    store.write("data/c", new byte[0]);
    assertEquals(List.of("other", "data/a", "data/b", "data/c"), store.calls(Op.WRITE));
    assertEquals(List.of("data/c", "other"), memory.listAll("").stream().map(ObjectInfo::key).toList());
  }

  @Test
  void writerFaultsFireAtClose() throws Exception {
    store.armOnce(Op.OPEN_WRITER, "before", Fault.FAIL_BEFORE);
    store.armOnce(Op.OPEN_WRITER, "after", Fault.FAIL_AFTER);
    ObjectWriter before = store.openWriter("before");
    before.write(new byte[] {1, 2});
    assertThrows(StoreException.class, before::close);
    assertTrue(memory.head("before").isEmpty());
    ObjectWriter after = store.openWriter("after");
    after.write(new byte[] {1, 2});
    assertThrows(StoreException.class, after::close);
    assertArrayEquals(new byte[] {1, 2}, memory.read("after"));
  }

  @Test
  void logsEveryCallIncludingDeleteAllAndList() {
    store.arm(Op.DELETE, "b"::equals, Fault.FAIL_BEFORE, 1);
    assertEquals(List.of("b"), store.deleteAll(List.of("a", "b")));
    store.list("p/", java.util.Optional.empty(), 10);
    assertEquals(
        List.of(new Call(Op.DELETE, "a"), new Call(Op.DELETE, "b"), new Call(Op.LIST, "p/")), store.calls());
    store.clearCalls();
    assertTrue(store.calls().isEmpty());
  }
}
