package io.quiver.spark;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.VersionInfo;
import io.quiver.exceptions.VersionNotFoundException;
import java.io.Serializable;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Which version of a table a read names: the latest, a version number, a tag, or the latest version
 * committed at or before an instant ({@code VERSION AS OF}, {@code TIMESTAMP AS OF}, or the reader options
 * {@code versionAsOf}, {@code tag}, {@code timestampAsOf}). Resolved once on the driver: the whole query
 * then reads the one version it resolved to.
 */
public sealed interface VersionRef extends Serializable {
  /** Reader option naming a version number (as Delta's {@code versionAsOf}). */
  String VERSION_OPTION = "versionAsOf";
  /** Reader option naming a tag. */
  String TAG_OPTION = "tag";
  /** Reader option naming an instant (ISO-8601, e.g. {@code 2026-12-01T10:15:30Z}, or epoch milliseconds). */
  String TIMESTAMP_OPTION = "timestampAsOf";

  /** The latest version when the table is loaded. */
  record Latest() implements VersionRef {}

  /** A version number. */
  record Number(long version) implements VersionRef {}

  /** A tag's version. */
  record Tag(String name) implements VersionRef {}

  /** The latest version committed at or before {@code instant}. */
  record AsOf(Instant instant) implements VersionRef {}

  /**
   * From Spark's {@code VERSION AS OF x}: a number is a version, anything else a tag.
   */
  static VersionRef ofVersionString(String version) {
    String v = version.trim();
    if (!v.isEmpty() && v.chars().allMatch(Character::isDigit)) {
      return new Number(Long.parseLong(v));
    }
    return new Tag(v);
  }

  /** From reader options (case-insensitive keys as Spark gives them); latest when none is set. */
  static VersionRef fromOptions(Map<String, String> options) {
    Optional<String> version = option(options, VERSION_OPTION);
    Optional<String> tag = option(options, TAG_OPTION);
    Optional<String> ts = option(options, TIMESTAMP_OPTION);
    int set = (version.isPresent() ? 1 : 0) + (tag.isPresent() ? 1 : 0) + (ts.isPresent() ? 1 : 0);
    if (set > 1) {
      throw new io.quiver.exceptions.InvalidArgumentException("set at most one of the options '" + VERSION_OPTION
          + "', '" + TAG_OPTION + "' and '" + TIMESTAMP_OPTION + "'; found " + options.keySet());
    }
    if (version.isPresent()) {
      try {
        return new Number(Long.parseLong(version.get().trim()));
      } catch (NumberFormatException e) {
        throw new io.quiver.exceptions.InvalidArgumentException("option '" + VERSION_OPTION
            + "' must be a version number; found '" + version.get() + "' (name a tag with option '" + TAG_OPTION
            + "')");
      }
    }
    if (tag.isPresent()) {
      return new Tag(tag.get());
    }
    if (ts.isPresent()) {
      return new AsOf(parseInstant(ts.get()));
    }
    return new Latest();
  }

  private static Optional<String> option(Map<String, String> options, String key) {
    for (Map.Entry<String, String> e : options.entrySet()) {
      if (e.getKey().equalsIgnoreCase(key) && e.getValue() != null && !e.getValue().isBlank()) {
        return Optional.of(e.getValue());
      }
    }
    return Optional.empty();
  }

  private static Instant parseInstant(String text) {
    String t = text.trim();
    try {
      if (t.chars().allMatch(Character::isDigit)) {
        return Instant.ofEpochMilli(Long.parseLong(t));
      }
      return Instant.parse(t);
    } catch (RuntimeException e) {
      throw new io.quiver.exceptions.InvalidArgumentException("option '" + TIMESTAMP_OPTION
          + "' must be an ISO-8601 instant such as 2026-12-01T10:15:30Z or epoch milliseconds; found '" + text + "'");
    }
  }

  /**
   * Opens this version of {@code table}: a handle that owns its resources (the caller closes it), whatever
   * handle was used to find the version.
   */
  default Dataset open(TableRef table) {
    if (this instanceof Latest) {
      return table.open();
    }
    if (this instanceof Number n) {
      return Dataset.open(table.uri(), table.datasetOptions(), n.version());
    }
    long version;
    try (Dataset latest = table.open()) {
      version = resolve(latest);
    }
    return Dataset.open(table.uri(), table.datasetOptions(), version);
  }

  /** The version number this reference names, found through {@code latest}. */
  private long resolve(Dataset latest) {
    if (this instanceof Tag t) {
      return latest.tags().version(t.name());
    }
    Instant instant = ((AsOf) this).instant();
    long found = -1;
    for (VersionInfo info : latest.versions()) {
      if (!info.timestamp().isAfter(instant) && info.version() > found) {
        found = info.version();
      }
    }
    if (found < 0) {
      throw new VersionNotFoundException(-1, "no version of " + latest.uri() + " was committed at or before " + instant
          + "; the oldest version still present is " + latest.versions().stream().mapToLong(VersionInfo::version)
              .min().orElse(latest.version()) + " (see its history with `quiver log`)");
    }
    return found;
  }
}
