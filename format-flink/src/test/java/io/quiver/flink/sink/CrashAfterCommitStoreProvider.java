package io.quiver.flink.sink;

import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code crash-after-commit+file:///path} and {@code crash-after-commit+s3://bucket/path}: the store at the
 * URI after the prefix ({@link #wrap}), except that once {@link #ARMED}, the next put of a version's manifest
 * succeeds and then throws — a committer that dies after the table commit, before it could acknowledge it.
 * Registered in META-INF/services for the tests' JVM.
 */
public final class CrashAfterCommitStoreProvider implements ObjectStoreProvider {
  static final String PREFIX = "crash-after-commit+";
  static final AtomicBoolean ARMED = new AtomicBoolean();
  static final AtomicInteger CRASHES = new AtomicInteger();

  /** {@code uri} (a {@code file} or {@code s3} URI) behind this provider. */
  static String wrap(String uri) {
    return PREFIX + uri;
  }

  static void reset() {
    ARMED.set(false);
    CRASHES.set(0);
  }

  @Override
  public Set<String> schemes() {
    return Set.of(PREFIX + "file", PREFIX + "s3");
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    ObjectStore inner = ObjectStores.defaultRegistry().open(uri.toString().substring(PREFIX.length()), options);
    return new ForwardingObjectStore(inner) {
      @Override
      public PutResult putIfAbsent(String key, byte[] data) {
        PutResult r = super.putIfAbsent(key, data);
        if (r == PutResult.CREATED && key.startsWith(ObjectStoreCommitStore.VERSIONS_PREFIX) && ARMED.compareAndSet(true, false)) {
          CRASHES.incrementAndGet();
          throw new IllegalStateException("injected: the committer's process died after writing " + key);
        }
        return r;
      }
    };
  }
}
