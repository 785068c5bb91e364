package io.quiver.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
    StoreException before = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> store.write("a", new byte[]{1})).actual();
    assertThat(before.isTransient()).isTrue();
    assertThat(memory.head("a").isPresent()).as("refused before it happened").isFalse();
    assertThatExceptionOfType(StoreException.class).isThrownBy(() -> store.write("a", new byte[]{2}));
    assertThat(memory.read("a")).as("happened, acknowledgement lost").containsExactly(new byte[]{2});
    assertThat(store.read("a")).containsExactly(new byte[]{2});
  }

  @Test
  void aCrashRefusesThatCallAndEveryLaterOneIncludingAnOpenWritersClose() throws Exception {
    store.schedule((i, op, key) -> i == 2 ? Fault.CRASH : null, () -> {});
    ObjectWriter w = store.openWriter("streamed"); // call 0
    w.write(new byte[] {1, 2, 3});
    store.write("before", new byte[] {1}); // call 1
    CrashedException crash = assertThatExceptionOfType(CrashedException.class).isThrownBy(() -> store.write("at", new byte[]{1})).actual();
    assertThat(crash.getMessage()).contains("WRITE at");
    assertThat(memory.head("at").isPresent()).isFalse();
    assertThatExceptionOfType(CrashedException.class).isThrownBy(() -> store.read("before"));
    assertThatExceptionOfType(CrashedException.class).isThrownBy(() -> store.putIfAbsent("p", new byte[]{1}));
    assertThatExceptionOfType(CrashedException.class).isThrownBy(w::close);
    assertThat(memory.head("streamed").isPresent()).as("the open stream died with the writer").isFalse();
    assertThat(store.crashedAt().orElseThrow()).isEqualTo("WRITE at");
  }

  @Test
  void interleaveRunsAnotherHandlesWorkBeforeTheCall() {
    List<String> order = new ArrayList<>();
    store.schedule((i, op, key) -> op == Op.PUT_IF_ABSENT ? Fault.INTERLEAVE : null, () -> {
      order.add("other");
      memory.putIfAbsent("v1", new byte[] {9});
    });
    assertThat(store.putIfAbsent("v1", new byte[]{1})).isEqualTo(PutResult.ALREADY_EXISTS);
    order.add("mine");
    assertThat(order).isEqualTo(List.of("other", "mine"));
    assertThat(memory.read("v1")).containsExactly(new byte[]{9});
  }
}
