package io.quiver.manifest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What every version remembers of the commits made under idempotence keys and application sequences, so
 * that "was this already committed?" is answered from one manifest, whatever the caller's read version and
 * whatever a cleanup removed. Every commit carries the ledger of the version it builds on forward, adds its
 * own key or sequence, and drops entries older than the table's retention ({@code idempotence.retention})
 * or beyond its bound ({@code idempotence.max-keys}, {@code idempotence.max-applications}). Pure value.
 *
 * <p>Completeness: every key and every sequence watermark committed at a version {@code >=
 * completeFromVersion} (and up to the version holding the ledger) is in the ledger. A key absent from a
 * ledger complete from version {@code c} was therefore not committed at any version {@code >= c}; before
 * {@code c} the ledger cannot tell (its entry may have expired).
 *
 * @param keys idempotence keys, by key, in ascending version order
 * @param sequences highest committed sequence per application id
 * @param completeFromVersion the first version from which the ledger is complete (see above)
 * @param lastReplaceVersion the version of the latest commit that replaced the table's content as a whole
 *     (creation, overwrite, restore); appends read at or after it cannot have been invalidated by one
 */
public record CommitLedger(
    Map<String, KeyEntry> keys, Map<String, SequenceWatermark> sequences, long completeFromVersion,
    long lastReplaceVersion) {

  /** Writer feature of tables whose manifests carry the ledger: a writer that does not maintain it must not commit. */
  public static final String WRITER_FEATURE = "idempotence-ledger";

  /**
   * A commit made under an idempotence key.
   *
   * @param key the key
   * @param version the version it committed
   * @param operation the operation's name ({@code append}, ...)
   * @param digest SHA-256 (hex) of what it committed: for appends and overwrites, of the rows' content
   * @param timestampMillis commit time, epoch milliseconds, as the committer's clock saw it
   * @param transactionUuid the committed transaction's uuid
   */
  public record KeyEntry(
      String key, long version, String operation, String digest, long timestampMillis, String transactionUuid) {
    public KeyEntry {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(operation, "operation");
      Objects.requireNonNull(digest, "digest");
      Objects.requireNonNull(transactionUuid, "transactionUuid");
      if (version < 1) {
        throw new IllegalArgumentException("ledger entry '" + key + "' has version " + version + "; versions start at 1");
      }
    }
  }

  /**
   * The highest sequence number an application committed (a streaming query's epoch, a job's checkpoint id).
   *
   * @param applicationId the application
   * @param sequence its highest committed sequence
   * @param version the version that committed it
   * @param timestampMillis that commit's time, epoch milliseconds
   */
  public record SequenceWatermark(String applicationId, long sequence, long version, long timestampMillis) {
    public SequenceWatermark {
      Objects.requireNonNull(applicationId, "applicationId");
      if (version < 1) {
        throw new IllegalArgumentException(
            "watermark of '" + applicationId + "' has version " + version + "; versions start at 1");
      }
    }
  }

  public CommitLedger {
    List<KeyEntry> ordered = new ArrayList<>(keys.values());
    ordered.sort(Comparator.comparingLong(KeyEntry::version).thenComparing(KeyEntry::key));
    Map<String, KeyEntry> byKey = new LinkedHashMap<>();
    for (KeyEntry e : ordered) {
      byKey.put(e.key(), e);
    }
    keys = java.util.Collections.unmodifiableMap(byKey);
    sequences = java.util.Collections.unmodifiableMap(new TreeMap<>(sequences));
    if (completeFromVersion < 1) {
      throw new IllegalArgumentException("a ledger is complete from version >= 1, got " + completeFromVersion);
    }
    if (lastReplaceVersion < 0) {
      throw new IllegalArgumentException("last replace version must be >= 0, got " + lastReplaceVersion);
    }
  }

  /** The ledger of a table's first version: complete from version 1, replaced at version 1. */
  public static CommitLedger ofNewTable() {
    return new CommitLedger(Map.of(), Map.of(), 1, 1);
  }

  /** The entry for {@code key}, if the ledger holds it. */
  public Optional<KeyEntry> find(String key) {
    return Optional.ofNullable(keys.get(key));
  }

  /** The watermark of {@code applicationId}, if the ledger holds it. */
  public Optional<SequenceWatermark> watermark(String applicationId) {
    return Optional.ofNullable(sequences.get(applicationId));
  }

  /**
   * Whether the ledger records every key committed after {@code readVersion}: an attempt computed at {@code
   * readVersion} can only have committed at a later version, so an absent key means "not committed".
   */
  public boolean coversCommitsAfter(long readVersion) {
    return completeFromVersion <= readVersion + 1;
  }
}
