package io.quiver.conformance.broken;

import io.quiver.scenario.StoreViews;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;

/**
 * Deliberately broken stores and store views for the F scenarios: each is the shape of an adapter bug another
 * format shipped, for {@link BrokenDataLossIsCaughtTest} to check that the scenario catches it.
 */
final class BrokenDataLossStores {
  private BrokenDataLossStores() {}

  /**
   * F9, F11: a conditional create that becomes unconditional above {@code threshold} bytes, as when the large
   * object path (multipart, block list, resumable upload) is taken without the condition on its commit: the
   * later writer silently replaces the earlier. With threshold -1 every conditional create is a plain write.
   */
  static final class UnconditionalAbove extends ForwardingObjectStore {
    private final int threshold;

    UnconditionalAbove(ObjectStore delegate, int threshold) {
      super(delegate);
      this.threshold = threshold;
    }

    @Override
    public PutResult putIfAbsent(String key, byte[] data) {
      if (data.length > threshold) {
        delegate().write(key, data);
        return PutResult.CREATED;
      }
      return super.putIfAbsent(key, data);
    }
  }

  /**
   * F12: an adapter that settles an ambiguous conditional create by assuming it won: the claim of {@code
   * version} times out before reaching the store, and the adapter reports it created (once).
   */
  static final class AssumesWonOnTimeout extends ForwardingObjectStore {
    private final String key;
    private boolean timedOut;

    AssumesWonOnTimeout(ObjectStore delegate, long version) {
      super(delegate);
      this.key = ObjectStoreCommitStore.manifestKey(version);
    }

    @Override
    public synchronized PutResult putIfAbsent(String k, byte[] data) {
      if (k.equals(key) && !timedOut) {
        timedOut = true;
        return PutResult.CREATED;
      }
      return super.putIfAbsent(k, data);
    }
  }

  /**
   * F10: an adapter that notices a short body and reports it untyped (an {@link IllegalStateException} out of
   * its HTTP client) instead of a store error a caller can handle.
   */
  static final class UntypedShortReads extends StoreViews.TruncatingReads {
    UntypedShortReads(ObjectStore delegate) {
      super(delegate);
    }

    @Override
    protected byte[] cut(String key, byte[] whole) {
      throw new IllegalStateException("premature end of body: " + (whole.length / 2) + " of " + whole.length + " bytes");
    }
  }
}
