package io.quiver.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
    StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> store.putIfAbsent("k", new byte[]{1})).actual();
    assertThat(e.isTransient()).isTrue();
    assertThat(memory.head("k").isEmpty()).isTrue();
    assertThat(store.putIfAbsent("k", new byte[]{2})).as("one-shot fault is spent").isEqualTo(PutResult.CREATED);
  }

  @Test
  void failAfterTakesEffectThenThrows() {
    store.armOnce(Op.PUT_IF_ABSENT, "k", Fault.FAIL_AFTER);
    StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> store.putIfAbsent("k", new byte[]{1})).actual();
    assertThat(e.isTransient()).as("the outcome is unknown to the caller").isFalse();
    assertThat(e).as("typed as an adapter would: " + e).isInstanceOf(io.quiver.exceptions.CommitStateUnknownException.class);
    assertThat(memory.read("k")).containsExactly(new byte[]{1});
    assertThat(store.putIfAbsent("k", new byte[]{2})).isEqualTo(PutResult.ALREADY_EXISTS);
  }

  @Test
  void countedFaultsMatchByPredicateAndOtherKeysPass() {
    store.arm(Op.WRITE, k -> k.startsWith("data/"), Fault.FAIL_BEFORE, 2);
    store.write("other", new byte[0]);
    assertThatExceptionOfType(StoreException.class).isThrownBy(() -> store.write("data/a", new byte[0]));
    assertThatExceptionOfType(StoreException.class).isThrownBy(() -> store.write("data/b", new byte[0]));
    assertThat(store.pendingFaults()).isEqualTo(0);
    store.write("data/c", new byte[0]);
    assertThat(store.calls(Op.WRITE)).isEqualTo(List.of("other", "data/a", "data/b", "data/c"));
    assertThat(memory.listAll("").stream().map(ObjectInfo::key).toList()).isEqualTo(List.of("data/c", "other"));
  }

  @Test
  void writerFaultsFireAtClose() throws Exception {
    store.armOnce(Op.OPEN_WRITER, "before", Fault.FAIL_BEFORE);
    store.armOnce(Op.OPEN_WRITER, "after", Fault.FAIL_AFTER);
    ObjectWriter before = store.openWriter("before");
    before.write(new byte[] {1, 2});
    assertThatExceptionOfType(StoreException.class).isThrownBy(before::close);
    assertThat(memory.head("before").isEmpty()).isTrue();
    ObjectWriter after = store.openWriter("after");
    after.write(new byte[] {1, 2});
    assertThatExceptionOfType(StoreException.class).isThrownBy(after::close);
    assertThat(memory.read("after")).containsExactly(new byte[]{1, 2});
  }

  @Test
  void logsEveryCallIncludingDeleteAllAndList() {
    store.arm(Op.DELETE, "b"::equals, Fault.FAIL_BEFORE, 1);
    assertThat(store.deleteAll(List.of("a", "b"))).isEqualTo(List.of("b"));
    store.list("p/", java.util.Optional.empty(), 10);
    assertThat(store.calls()).isEqualTo(List.of(new Call(Op.DELETE, "a"), new Call(Op.DELETE, "b"), new Call(Op.LIST, "p/")));
    store.clearCalls();
    assertThat(store.calls().isEmpty()).isTrue();
  }
}
