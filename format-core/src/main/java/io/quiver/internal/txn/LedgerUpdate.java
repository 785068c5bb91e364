package io.quiver.internal.txn;

import io.quiver.dataset.ApplicationSequence;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.manifest.CommitLedger.KeyEntry;
import io.quiver.manifest.CommitLedger.SequenceWatermark;
import io.quiver.manifest.CommitLedger;
import io.quiver.manifest.Manifest;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How one commit changes the idempotence ledger: carry the base version's ledger forward, drop what
 * expired or exceeds the bound (moving the completeness mark past it), add this commit's key and sequence.
 * Pure; {@link ManifestBuilder} applies it to every manifest it builds, whatever the operation.
 */
public final class LedgerUpdate {
  /** Table configuration: how long keys and watermarks are kept (ISO-8601 or {@code 7d}, {@code 12h} ...). */
  public static final String RETENTION_CONFIG = "idempotence.retention";

  /** Table configuration: the most idempotence keys one manifest keeps. */
  public static final String MAX_KEYS_CONFIG = "idempotence.max-keys";

  /** Table configuration: the most application watermarks one manifest keeps. */
  public static final String MAX_APPLICATIONS_CONFIG = "idempotence.max-applications";

  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
  public static final int DEFAULT_MAX_KEYS = 1000;
  public static final int DEFAULT_MAX_APPLICATIONS = 1000;

  /** Upper bound of both maxima: the ledger is rewritten by every commit, so it must stay small. */
  public static final int LIMIT = 100_000;

  /** Reserved transaction property: the commit's idempotence key. */
  public static final String KEY_PROPERTY = "quiver.idempotence-key";

  /** Reserved transaction property: SHA-256 (hex) of what an idempotent commit commits. */
  public static final String DIGEST_PROPERTY = "quiver.operation-digest";

  /** Reserved transaction property: the application whose sequence the commit advances. */
  public static final String APPLICATION_PROPERTY = "quiver.application-id";

  /** Reserved transaction property: the sequence number the commit records for its application. */
  public static final String SEQUENCE_PROPERTY = "quiver.application-sequence";

  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private LedgerUpdate() {}

  /** Retention and bounds, from a table configuration. */
  public record Policy(Duration retention, int maxKeys, int maxApplications) {
    /** The policy {@code config} sets, defaults for absent keys. */
    public static Policy of(Map<String, String> config) {
      return new Policy(
          duration(config.get(RETENTION_CONFIG)),
          count(config, MAX_KEYS_CONFIG, DEFAULT_MAX_KEYS),
          count(config, MAX_APPLICATIONS_CONFIG, DEFAULT_MAX_APPLICATIONS));
    }

    /** Checks the ledger's configuration keys among {@code upserts}. */
    public static void check(Map<String, String> upserts) {
      Map<String, String> known = new TreeMap<>();
      for (String key : List.of(RETENTION_CONFIG, MAX_KEYS_CONFIG, MAX_APPLICATIONS_CONFIG)) {
        if (upserts.containsKey(key)) {
          known.put(key, upserts.get(key));
        }
      }
      of(known);
    }
  }

  /**
   * The ledger of {@code built}, the manifest that committing {@code txn} on {@code base} produced.
   *
   * @param base the version built upon (empty when the table is created); a base without a ledger (format
   *     1.0) starts one that is complete only from {@code built}'s version
   */
  public static CommitLedger next(Optional<Manifest> base, Transaction txn, Manifest built, Instant timestamp) {
    long version = built.version();
    CommitLedger previous = base.isEmpty()
        ? new CommitLedger(Map.of(), Map.of(), version, version)
        : base.get().ledger().orElseGet(() -> new CommitLedger(Map.of(), Map.of(), version, base.get().version()));
    Policy policy = Policy.of(built.config());
    long now = timestamp.toEpochMilli();
    long cutoff = now - policy.retention().toMillis();
    long completeFrom = previous.completeFromVersion();

    List<KeyEntry> keys = new ArrayList<>(previous.keys().values()); // ascending versions
    List<KeyEntry> kept = new ArrayList<>();
    for (KeyEntry e : keys) {
      if (e.timestampMillis() < cutoff) {
        completeFrom = Math.max(completeFrom, e.version() + 1);
      } else {
        kept.add(e);
      }
    }
    String key = txn.properties().get(KEY_PROPERTY);
    if (key != null) {
      String digest = txn.properties().get(DIGEST_PROPERTY);
      if (digest == null) {
        throw new IllegalStateException("keyed transaction " + txn.uuid() + " has no operation digest");
      }
      kept.removeIf(e -> e.key().equals(key));
      kept.add(new KeyEntry(key, version, txn.operation().name(), digest, now, txn.uuid()));
    }
    while (kept.size() > policy.maxKeys()) {
      KeyEntry oldest = kept.remove(0);
      completeFrom = Math.max(completeFrom, oldest.version() + 1);
    }

    List<SequenceWatermark> marks = new ArrayList<>();
    for (SequenceWatermark w : previous.sequences().values()) {
      if (w.timestampMillis() < cutoff) {
        completeFrom = Math.max(completeFrom, w.version() + 1);
      } else {
        marks.add(w);
      }
    }
    Optional<ApplicationSequence> sequence = applicationSequence(txn);
    if (sequence.isPresent()) {
      String app = sequence.get().applicationId();
      marks.removeIf(w -> w.applicationId().equals(app));
      marks.add(new SequenceWatermark(app, sequence.get().sequence(), version, now));
    }
    marks.sort(Comparator.comparingLong(SequenceWatermark::version).thenComparing(SequenceWatermark::applicationId));
    while (marks.size() > policy.maxApplications()) {
      SequenceWatermark oldest = marks.remove(0);
      completeFrom = Math.max(completeFrom, oldest.version() + 1);
    }

    Map<String, KeyEntry> byKey = new LinkedHashMap<>();
    kept.forEach(e -> byKey.put(e.key(), e));
    Map<String, SequenceWatermark> byApp = new TreeMap<>();
    marks.forEach(w -> byApp.put(w.applicationId(), w));
    Operation op = txn.operation();
    long lastReplace = op instanceof Operation.Overwrite || op instanceof Operation.Restore
        ? version : previous.lastReplaceVersion();
    return new CommitLedger(byKey, byApp, completeFrom, lastReplace);
  }

  /** An application id and the sequence number a transaction records for it. */
  /** The application sequence {@code txn} carries in its reserved properties, if any. */
  public static Optional<ApplicationSequence> applicationSequence(Transaction txn) {
    String app = txn.properties().get(APPLICATION_PROPERTY);
    String seq = txn.properties().get(SEQUENCE_PROPERTY);
    if (app == null || seq == null) {
      return Optional.empty();
    }
    return Optional.of(new ApplicationSequence(app, Long.parseLong(seq)));
  }

  static Duration duration(String value) {
    if (value == null) {
      return DEFAULT_RETENTION;
    }
    String v = value.trim().toLowerCase(Locale.ROOT);
    Duration d;
    Matcher m = SHORT_DURATION.matcher(v);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        d = switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
      } else {
        d = Duration.parse(value.trim());
      }
    } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
      d = null;
    }
    if (d == null || d.isNegative()) {
      throw new InvalidArgumentException(
          "table configuration " + RETENTION_CONFIG + " = '" + value + "' is not a duration; expected for example"
              + " '7d', '36h', '90m' or an ISO-8601 duration such as 'P7D'. Set a valid value with updateConfig.");
    }
    return d;
  }

  private static int count(Map<String, String> config, String key, int defaultValue) {
    String value = config.get(key);
    if (value == null) {
      return defaultValue;
    }
    try {
      int n = Integer.parseInt(value.trim());
      if (n >= 1 && n <= LIMIT) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new InvalidArgumentException(
        "table configuration " + key + " = '" + value + "' must be a whole number from 1 to " + LIMIT
            + " (default " + defaultValue + "). Set a valid value with updateConfig.");
  }
}
