package io.quiver.store;

import io.quiver.exceptions.StoreException;
import java.util.List;
import java.util.Optional;

/**
 * Port through which versions are claimed, found, read and removed. Separate from {@link ObjectStore} so
 * that a store without an atomic conditional put can commit through an external database instead, without
 * touching the core: the core never assumes where or how versions are kept, and reaches them only through
 * this interface (messages and caches name a version by {@link #locationOf(long)}).
 *
 * <p>The default implementation ({@link #of(ObjectStore)}, {@link ObjectStoreCommitStore}) keeps each
 * version's manifest at {@code _versions/{19-digit inverted version}.manifest} and claims with {@link
 * ObjectStore#putIfAbsent}.
 */
public interface CommitStore {

  /** The default commit store: versions are objects of {@code store}, claimed with its {@code putIfAbsent}. */
  static CommitStore of(ObjectStore store) {
    return new ObjectStoreCommitStore(store);
  }

  /**
   * Atomically claims {@code version} with the given manifest bytes.
   *
   * @return {@link ClaimResult#CLAIMED} if this call published the version, {@link
   *     ClaimResult#ALREADY_CLAIMED} if another writer holds it
   * @throws io.quiver.exceptions.CommitStateUnknownException if the claim may or may not have happened (the
   *     store could not settle an ambiguous failure); the caller must read the version back to decide
   * @throws StoreException for any other failure, after which the outcome is unknown too unless {@link
   *     StoreException#isTransient()} says the store refused before acting; the caller reads back either way
   */
  ClaimResult claim(long version, byte[] manifestBytes);

  /** The manifest bytes of a version, or empty if it was never claimed (or has been removed). */
  Optional<byte[]> read(long version);

  /** The newest claimed version, or empty for a table with no versions. Costs one listing page. */
  Optional<Long> latestVersion();

  /** Claimed versions, newest first, at most {@code limit} of them. */
  List<Long> listVersions(int limit);

  /** Claimed versions strictly newer than {@code afterVersion}, oldest first. */
  List<Long> versionsAfter(long afterVersion);

  /**
   * Removes a version's manifest (maintenance only: never the latest version). Removing a version that is
   * not there is not an error.
   */
  void remove(long version);

  /**
   * Where {@code version} is (or would be) kept, for messages, reports and as the identity of its cached
   * manifest: for the default store, the location of its manifest object. Never contains credentials.
   */
  String locationOf(long version);

  /** Where this store keeps versions, for messages (for the default store, its {@code _versions/} prefix). */
  String location();

  /** Result of {@link #claim}. */
  enum ClaimResult {
    CLAIMED,
    ALREADY_CLAIMED
  }
}
