package io.quiver.internal.txn;

import java.util.Map;
import java.util.Objects;

/**
 * A writer's intended change, relative to the version it read.
 *
 * @param uuid identifies the logical commit across retries; a commit that finds its own uuid in the
 *     history knows it already succeeded
 * @param readVersion the version the change was computed from (0 when creating a table)
 * @param operation the change
 * @param properties free-form properties; keys starting with {@code quiver.} are reserved
 */
public record Transaction(String uuid, long readVersion, Operation operation, Map<String, String> properties) {
  /** Prefix of reserved property keys. */
  public static final String RESERVED_PROPERTY_PREFIX = "quiver.";

  public Transaction {
    Objects.requireNonNull(uuid, "uuid");
    if (!isUuidText(uuid)) {
      throw new IllegalArgumentException("transaction uuid must be hex digits and dashes, got '" + uuid + "'");
    }
    if (readVersion < 0) {
      throw new IllegalArgumentException("read version must be >= 0, got " + readVersion);
    }
    Objects.requireNonNull(operation, "operation");
    properties = Map.copyOf(properties);
  }

  /**
   * Whether {@code s} is 1 to 64 hex digits and dashes. A loop, not a regular expression: every version
   * file read while catching up on a long history decodes one transaction, and {@code String.matches}
   * compiles its pattern on each call.
   */
  private static boolean isUuidText(String s) {
    if (s.isEmpty() || s.length() > 64) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-')) {
        return false;
      }
    }
    return true;
  }

  /** Relative path of this transaction's file: {@code _transactions/{readVersion}-{uuid}.txn}. */
  public String path() {
    return pathOf(readVersion, uuid);
  }

  /** Relative path of a transaction file. */
  public static String pathOf(long readVersion, String uuid) {
    return "_transactions/" + readVersion + "-" + uuid + ".txn";
  }
}
