package io.quiver.store;

import io.quiver.exceptions.StoreException;
import java.util.List;
import java.util.Optional;

/**
 * Port through which versions are claimed. Separate from {@link ObjectStore} so that a store without
 * an atomic conditional put can commit through an external database instead, without touching the core.
 *
 * <p>The default implementation, {@link ObjectStoreCommitStore}, keeps each version's manifest at
 * {@code _versions/{20-digit inverted version}.manifest} and claims with {@link
 * ObjectStore#putIfAbsent}.
 */
public interface CommitStore {

  /**
   * Atomically claims {@code version} with the given manifest bytes.
   *
   * @return {@link ClaimResult#CLAIMED} if this call published the version, {@link
   *     ClaimResult#ALREADY_CLAIMED} if another writer holds it
   * @throws StoreException if the outcome is unknown; the caller must read the version back to decide
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
   * Removes a version's manifest (maintenance only: never the latest version).
   */
  void remove(long version);

  /** Result of {@link #claim}. */
  enum ClaimResult {
    CLAIMED,
    ALREADY_CLAIMED
  }
}
