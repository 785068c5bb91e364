package io.quiver.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link ForwardingObjectStore} forwards every method of the port, default methods included, with the
 * caller's arguments: a decorator built on it can never lose a capability of the store it wraps (batch
 * deletes, zero-copy reads, temporaries) because a method fell back to the interface's generic body.
 */
class ForwardingObjectStoreTest {

  private static List<Method> portMethods() {
    return Arrays.stream(ObjectStore.class.getMethods()).filter(m -> !Modifier.isStatic(m.getModifiers())).toList();
  }

  @Test
  void declaresEveryMethodOfThePort() throws Exception {
    for (Method m : portMethods()) {
      Method declared = ForwardingObjectStore.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      assertThat(Modifier.isPublic(declared.getModifiers())).as(m.getName()).isTrue();
    }
  }

  @Test
  void forwardsEachCallWithItsArguments() throws Exception {
    List<String> received = new ArrayList<>();
    ObjectStore recorder = (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(),
        new Class<?>[] {ObjectStore.class}, (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return method.getName().equals("toString") ? "recorder" : method.invoke(this, args);
          }
          received.add(describe(method, args));
          return answer(method.getReturnType());
        });
    ForwardingObjectStore forwarding = new ForwardingObjectStore(recorder) {};
    for (Method m : portMethods()) {
      Object[] args = arguments(m);
      received.clear();
      m.invoke(forwarding, args);
      assertThat(received).as("forwarded exactly once, unchanged: " + m).isEqualTo(List.of(describe(m, args)));
    }
    assertThat(forwarding.toString()).contains("recorder");
  }

  private static String describe(Method m, Object[] args) {
    return m.getName() + Arrays.toString(m.getParameterTypes()) + Arrays.toString(args == null ? new Object[0] : args);
  }

  private static Object[] arguments(Method m) {
    Class<?>[] types = m.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      args[i] = sample(types[i], i);
    }
    return args;
  }

  private static Object sample(Class<?> type, int position) {
    if (type == String.class) {
      return "k" + position;
    }
    if (type == long.class) {
      return 7L + position;
    }
    if (type == int.class) {
      return 3 + position;
    }
    if (type == byte[].class) {
      return new byte[] {1, 2};
    }
    if (type == Optional.class) {
      return Optional.of("after");
    }
    if (type == ByteBuffer.class) {
      return ByteBuffer.allocate(4);
    }
    if (type == List.class) {
      return List.of(new ByteRange(1, 2), new ByteRange(5, 0));
    }
    if (type == Collection.class) {
      return List.of("a", "b");
    }
    if (type == Instant.class) {
      return Instant.EPOCH;
    }
    throw new AssertionError("no sample argument of " + type + "; extend the test for the new port method");
  }

  private static Object answer(Class<?> type) {
    if (type == void.class) {
      return null;
    }
    if (type == int.class) {
      return 0;
    }
    if (type == String.class) {
      return "";
    }
    if (type == byte[].class) {
      return new byte[0];
    }
    if (type == Optional.class) {
      return Optional.empty();
    }
    if (type == List.class) {
      return List.of();
    }
    if (type == ListPage.class) {
      return new ListPage(List.of(), false);
    }
    if (type == ObjectStore.PutResult.class) {
      return ObjectStore.PutResult.CREATED;
    }
    if (type == ObjectStore.ObjectWriter.class) {
      return null;
    }
    if (type == Map.class) {
      return Map.of();
    }
    if (type == FetchTuning.class) {
      return new FetchTuning(3, 5, 7, 9); // unlike any store's, so a decorator that does not forward is caught
    }
    throw new AssertionError("no answer of " + type + "; extend the test for the new port method");
  }
}
