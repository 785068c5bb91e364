package io.quiver.store;

import io.quiver.exceptions.ObjectNotFoundException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * {@link CommitStore} on any {@link ObjectStore} with an atomic {@link ObjectStore#putIfAbsent}. Its key
 * layout is its own: core code names versions through the {@link CommitStore} port only.
 *
 * <p>Version {@code v} lives at {@code _versions/} followed by {@code Long.MAX_VALUE - v} zero-padded to
 * 19 digits and {@code .manifest}. The inversion makes an ascending lexical listing return the newest
 * version first, so finding the latest costs one page.
 */
public final class ObjectStoreCommitStore implements CommitStore {
  /** Prefix under which version manifests live. */
  public static final String VERSIONS_PREFIX = "_versions/";

  private static final String SUFFIX = ".manifest";
  private static final int DIGITS = 19;

  private final ObjectStore store;

  public ObjectStoreCommitStore(ObjectStore store) {
    this.store = store;
  }

  /** The key of a version's manifest. */
  public static String manifestKey(long version) {
    if (version < 0) {
      throw new IllegalArgumentException("version must be >= 0, got " + version);
    }
    String inverted = Long.toString(Long.MAX_VALUE - version);
    return VERSIONS_PREFIX + "0".repeat(DIGITS - inverted.length()) + inverted + SUFFIX;
  }

  /** The version a manifest key names, or empty if the key is not a manifest key. */
  public static Optional<Long> versionOf(String key) {
    if (!key.startsWith(VERSIONS_PREFIX) || !key.endsWith(SUFFIX)) {
      return Optional.empty();
    }
    String digits = key.substring(VERSIONS_PREFIX.length(), key.length() - SUFFIX.length());
    if (digits.length() != DIGITS || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return Optional.empty();
    }
    long inverted = Long.parseLong(digits);
    return Optional.of(Long.MAX_VALUE - inverted);
  }

  @Override
  public ClaimResult claim(long version, byte[] manifestBytes) {
    return switch (store.putIfAbsent(manifestKey(version), manifestBytes)) {
      case CREATED -> ClaimResult.CLAIMED;
      case ALREADY_EXISTS -> ClaimResult.ALREADY_CLAIMED;
    };
  }

  @Override
  public Optional<byte[]> read(long version) {
    String key = manifestKey(version);
    try {
      return Optional.of(store.read(key));
    } catch (ObjectNotFoundException e) {
      return Optional.empty();
    }
  }

  @Override
  public Optional<Long> latestVersion() {
    List<Long> newest = listVersions(1);
    return newest.isEmpty() ? Optional.empty() : Optional.of(newest.get(0));
  }

  @Override
  public List<Long> listVersions(int limit) {
    List<Long> versions = new ArrayList<>();
    Optional<String> after = Optional.empty();
    while (versions.size() < limit) {
      ListPage page = store.list(VERSIONS_PREFIX, after, Math.min(1000, Math.max(1, limit - versions.size())));
      for (ObjectInfo info : page.objects()) {
        versionOf(info.key()).ifPresent(versions::add);
        if (versions.size() == limit) {
          break;
        }
      }
      if (!page.hasMore() || page.objects().isEmpty()) {
        break;
      }
      after = Optional.of(page.objects().get(page.objects().size() - 1).key());
    }
    return versions;
  }

  @Override
  public List<Long> versionsAfter(long afterVersion) {
    // Newest first; stop at the first key at or below afterVersion.
    List<Long> newer = new ArrayList<>();
    Optional<String> after = Optional.empty();
    // Keys sort newest first and a writer is usually a few versions behind: start with a small page
    // (a store may stat every object it returns) and grow it when the history is longer.
    int pageSize = 2;
    outer:
    while (true) {
      ListPage page = store.list(VERSIONS_PREFIX, after, pageSize);
      pageSize = Math.min(1000, pageSize * 8);
      for (ObjectInfo info : page.objects()) {
        Optional<Long> v = versionOf(info.key());
        if (v.isEmpty()) {
          continue;
        }
        if (v.get() <= afterVersion) {
          break outer;
        }
        newer.add(v.get());
      }
      if (!page.hasMore() || page.objects().isEmpty()) {
        break;
      }
      after = Optional.of(page.objects().get(page.objects().size() - 1).key());
    }
    Collections.reverse(newer);
    return newer;
  }

  @Override
  public void remove(long version) {
    store.delete(manifestKey(version));
  }

  @Override
  public String locationOf(long version) {
    return store.locationOf(manifestKey(version));
  }

  @Override
  public String location() {
    return store.locationOf(VERSIONS_PREFIX);
  }

  @Override
  public String toString() {
    return "ObjectStoreCommitStore[" + location() + "]";
  }
}
