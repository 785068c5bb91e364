package io.quiver.scenario;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.ListPage;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Views of a scenario's store that one handle sees while the others see the store as it is: a listing that
 * lags behind the newest version files, reads that come back truncated, and conditional creates whose answer
 * is lost. Each is switched on and off by the scenario, so the interleaving stays explicit.
 */
public final class StoreViews {
  private StoreViews() {}

  /**
   * A listing that lags: while {@link #hide(int) hiding} n, a listing of {@code _versions/} leaves out the n
   * newest version files (the listing is newest first), as an eventually consistent listing or a stale
   * cache of it would. Reads, heads and conditional creates see everything.
   */
  public static final class LaggingListing extends ForwardingObjectStore {
    private volatile int hidden;

    public LaggingListing(ObjectStore delegate) {
      super(delegate);
    }

    public LaggingListing hide(int newest) {
      hidden = newest;
      return this;
    }

    @Override
    public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
      int hide = hidden;
      if (hide == 0 || !prefix.startsWith(ObjectStoreCommitStore.VERSIONS_PREFIX)) {
        return super.list(prefix, startAfter, maxKeys);
      }
      // The n newest of the whole listing, whatever page is asked for.
      List<String> newest = super.list(prefix, Optional.empty(), hide).objects().stream().map(ObjectInfo::key).toList();
      ListPage page = super.list(prefix, startAfter, maxKeys + hide);
      List<ObjectInfo> shown = page.objects().stream().filter(o -> !newest.contains(o.key())).toList();
      boolean more = page.hasMore() || shown.size() > maxKeys;
      return new ListPage(shown.subList(0, Math.min(maxKeys, shown.size())), more);
    }

    @Override
    public List<ObjectInfo> listAll(String prefix) {
      // Page through this view, not the delegate's listAll, so that the lag shows there too.
      List<ObjectInfo> all = new java.util.ArrayList<>();
      Optional<String> after = Optional.empty();
      while (true) {
        ListPage page = list(prefix, after, 1000);
        all.addAll(page.objects());
        if (!page.hasMore() || page.objects().isEmpty()) {
          return all;
        }
        after = Optional.of(page.objects().get(page.objects().size() - 1).key());
      }
    }
  }

  /**
   * Reads that come back short: while {@link #truncate armed}, a whole-object read of a matching key returns
   * its first half, and a range read of one returns half the bytes asked for, as a connection cut mid-body
   * that the client did not notice would.
   */
  public static class TruncatingReads extends ForwardingObjectStore {
    private volatile Predicate<String> truncated = k -> false;

    public TruncatingReads(ObjectStore delegate) {
      super(delegate);
    }

    public TruncatingReads truncate(Predicate<String> keys) {
      truncated = keys;
      return this;
    }

    /** What a read of {@code key} returns in place of {@code whole}, the bytes the store holds: the first half. */
    protected byte[] cut(String key, byte[] whole) {
      return Arrays.copyOf(whole, whole.length / 2);
    }

    @Override
    public byte[] read(String key) {
      byte[] all = super.read(key);
      return truncated.test(key) ? cut(key, all) : all;
    }

    @Override
    public byte[] readRange(String key, long offset, int length) {
      byte[] got = super.readRange(key, offset, length);
      return truncated.test(key) ? cut(key, got) : got;
    }

    @Override
    public List<byte[]> readRanges(String key, List<io.quiver.store.ByteRange> ranges) {
      return ranges.stream().map(r -> readRange(key, r.offset(), r.length())).toList();
    }

    @Override
    public int readRangeInto(String key, long offset, ByteBuffer target) {
      if (!truncated.test(key)) {
        return super.readRangeInto(key, offset, target);
      }
      byte[] got = readRange(key, offset, target.remaining());
      target.put(got);
      return got.length;
    }
  }

  /**
   * Reads that come back well formed but partial: while {@link #drop armed}, a read of a matching metadata file
   * returns it re-encoded without its last entry, behind the original magic and checksum, as a store, cache or
   * client that lost the tail of the object at a protobuf field boundary would. A single-file version file or
   * a root loses its last inline fragment ({@link Entry#FRAGMENT}) or its last segment ({@link Entry#SEGMENT}); a
   * segment file loses its last fragment. The payload still parses: only the checksum, the sizes a file records
   * for the files it names and a segment's agreement with its root tell.
   */
  public static final class PartialManifests extends TruncatingReads {
    /** What a root loses. */
    public enum Entry { FRAGMENT, SEGMENT }

    private volatile Entry entry = Entry.FRAGMENT;
    private final java.util.Set<String> cut = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public PartialManifests(ObjectStore delegate) {
      super(delegate);
    }

    /** Arms the view for the keys {@code keys}: their reads lose {@code what}. */
    public PartialManifests drop(Entry what, Predicate<String> keys) {
      entry = what;
      truncate(keys);
      return this;
    }

    /** The keys whose reads this view has cut so far (a scenario checks that its target was read). */
    public java.util.Set<String> cutKeys() {
      return java.util.Set.copyOf(cut);
    }

    @Override
    protected byte[] cut(String key, byte[] whole) {
      String magic = new String(whole, 0, 4, java.nio.charset.StandardCharsets.US_ASCII);
      byte[] payload = Arrays.copyOfRange(whole, 8, whole.length);
      byte[] shorter;
      try {
        shorter = switch (magic) {
          case "QVM1" -> {
            io.quiver.internal.proto.ManifestFile f = io.quiver.internal.proto.ManifestFile.parseFrom(payload);
            yield f.toBuilder().setManifest(shorter(key, f.getManifest())).build().toByteArray();
          }
          case "QVR1" -> shorter(key, io.quiver.internal.proto.Manifest.parseFrom(payload)).toByteArray();
          case "QVS1" -> {
            io.quiver.internal.proto.ManifestSegment m = io.quiver.internal.proto.ManifestSegment.parseFrom(payload);
            requireSome(key, m.getFragmentsCount(), "fragment");
            yield m.toBuilder().removeFragments(m.getFragmentsCount() - 1).build().toByteArray();
          }
          default -> throw new AssertionError("the scenario armed a partial read of " + key + ", a " + magic
              + " file, which is not a version file, root or segment");
        };
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw new AssertionError(key + " does not decode", e);
      }
      cut.add(key);
      byte[] out = Arrays.copyOf(whole, 8 + shorter.length);
      System.arraycopy(shorter, 0, out, 8, shorter.length);
      return out;
    }

    private io.quiver.internal.proto.Manifest shorter(String key, io.quiver.internal.proto.Manifest m) {
      if (entry == Entry.FRAGMENT) {
        requireSome(key, m.getFragmentsCount(), "inline fragment");
        return m.toBuilder().removeFragments(m.getFragmentsCount() - 1).build();
      }
      requireSome(key, m.getSegmentsCount(), "segment");
      return m.toBuilder().removeSegments(m.getSegmentsCount() - 1).build();
    }

    private static void requireSome(String key, int count, String what) {
      if (count == 0) {
        throw new AssertionError("the scenario armed a partial read of " + key + ", which has no " + what);
      }
    }
  }

  /**
   * Conditional creates whose answer is lost: the next {@link #loseNext armed} {@code putIfAbsent} of a
   * version file throws a {@link CommitStateUnknownException} (a timeout, a 5xx or a 429 with no answer),
   * either after the create took effect or without it ever reaching the store; {@code meanwhile} runs
   * between the two (another writer's work), so the read-back that settles the claim sees it.
   */
  public static final class AmbiguousClaims extends ForwardingObjectStore {
    private boolean armed;
    private boolean written;
    private Runnable meanwhile = () -> { };

    public AmbiguousClaims(ObjectStore delegate) {
      super(delegate);
    }

    /** Loses the answer of the next claim; {@code writes} says whether the create happened. */
    public synchronized AmbiguousClaims loseNext(boolean writes, Runnable meanwhile) {
      this.armed = true;
      this.written = writes;
      this.meanwhile = meanwhile;
      return this;
    }

    public synchronized boolean pending() {
      return armed;
    }

    @Override
    public PutResult putIfAbsent(String key, byte[] data) {
      boolean lose;
      boolean writes;
      Runnable between;
      synchronized (this) {
        lose = armed && key.startsWith(ObjectStoreCommitStore.VERSIONS_PREFIX);
        writes = written;
        between = meanwhile;
        if (lose) {
          armed = false;
        }
      }
      if (!lose) {
        return super.putIfAbsent(key, data);
      }
      if (writes) {
        super.putIfAbsent(key, data);
      }
      between.run();
      throw new CommitStateUnknownException(location(), key,
          (writes ? "timed out after the create took effect" : "429 with no answer; the create never arrived"), null);
    }
  }
}
