package io.quiver.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quiver.exceptions.StoreException;
import io.quiver.store.FaultInjectingObjectStore.CrashedException;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore.PutResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schedule hook of {@link FaultInjectingObjectStore}: per-call faults, crash, interleaving. */
class ScheduledFaultsTest {
  private final MemoryObjectStore memory = new MemoryObjectStore("memory://scheduled");
  private final FaultInjectingObjectStore store = new FaultInjectingObjectStore(memory);

  @Test
  void failBeforeAndAfterAreDecidedByCallIndex() {
    store.schedule((i, op, key) -> i == 0 ? Fault.FAIL_BEFORE : i == 1 ? Fault.FAIL_AFTER : null, () -> {});
    StoreException before = assertThrows(StoreException.class, () -> store.write("a", new byte[] {1}));
    assertThat(before.isTransient()).isTrue();
    assertFalse(memory.head("a").isPresent(), "refused before it happened");
    assertThrows(StoreException.class, () -> store.write("a", new byte[] {2}));
    assertArrayEquals(new byte[] {2}, memory.read("a"), "happened, acknowledgement lost");
    assertArrayEquals(new byte[] {2}, store.read("a"));
  }

  @Test
  void aCrashRefusesThatCallAndEveryLaterOneIncludingAnOpenWritersClose() throws Exception {
    store.schedule((i, op, key) -> i == 2 ? Fault.CRASH : null, () -> {});
    ObjectWriter w = store.openWriter("streamed"); // call 0
    w.write(new byte[] {1, 2, 3});
    store.write("before", new byte[] {1}); // call 1
    CrashedException crash = assertThrows(CrashedException.class, () -> store.write("at", new byte[] {1}));
    assertThat(crash.getMessage()).contains("WRITE at");
    assertFalse(memory.head("at").isPresent());
    assertThrows(CrashedException.class, () -> store.read("before"));
    assertThrows(CrashedException.class, () -> store.putIfAbsent("p", new byte[] {1}));
    assertThrows(CrashedException.class, w::close);
    assertFalse(memory.head("streamed").isPresent(), "the open stream died with the writer");
    assertEquals("WRITE at", store.crashedAt().orElseThrow());
  }

  @Test
  void interleaveRunsAnotherHandlesWorkBeforeTheCall() {
    List<String> order = new ArrayList<>();
    store.schedule((i, op, key) -> op == Op.PUT_IF_ABSENT ? Fault.INTERLEAVE : null, () -> {
      order.add("other");
      memory.putIfAbsent("v1", new byte[] {9});
    });
    assertEquals(PutResult.ALREADY_EXISTS, store.putIfAbsent("v1", new byte[] {1}));
    order.add("mine");
    assertEquals(List.of("other", "mine"), order);
    assertArrayEquals(new byte[] {9}, memory.read("v1"));
  }
}
