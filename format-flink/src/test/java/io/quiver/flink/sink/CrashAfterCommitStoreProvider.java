package io.quiver.flink.sink;

import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.local.LocalObjectStoreProvider;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code crash-after-commit:///path}: the local store at {@code file:///path}, except that once {@link #ARMED},
 * the next put of a version's manifest succeeds and then throws — a committer that dies after the table
 * commit, before it could acknowledge it. Registered in META-INF/services for the tests' JVM.
 */
public final class CrashAfterCommitStoreProvider implements ObjectStoreProvider {
  static final String SCHEME = "crash-after-commit";
  static final AtomicBoolean ARMED = new AtomicBoolean();
  static final AtomicInteger CRASHES = new AtomicInteger();

  @Override
  public Set<String> schemes() {
    return Set.of(SCHEME);
  }

  @Override
  public ObjectStore open(URI uri, Map<String, String> options) {
    ObjectStore local = new LocalObjectStoreProvider().open(URI.create("file" + uri.toString().substring(SCHEME.length())),
        options);
    return new ForwardingObjectStore(local) {
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
