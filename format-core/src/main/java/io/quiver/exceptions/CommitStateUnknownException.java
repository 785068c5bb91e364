package io.quiver.exceptions;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A store call that creates something failed in a way that leaves its outcome unknown: it may have taken
 * effect before the error, and nothing could tell. Thrown in two places:
 *
 * <ul>
 *   <li>by a store adapter, when a conditional create ({@code ObjectStore.putIfAbsent}) failed ambiguously
 *       and could not be settled (the adapter's own read-back of its upload token failed, or its attempts
 *       ran out): the object under {@link #key()} may or may not exist, and if it exists it may be this
 *       caller's. {@link #version()}, {@link #transactionUuid()} and {@link #idempotenceKey()} are empty:
 *       an adapter does not know what the object is for. The commit loop catches this and reads the version
 *       back itself;
 *   <li>by the commit loop, when claiming a version failed ambiguously (the adapter's exception above, or
 *       any other store failure of the claim) and the check that would have told (reading the version back)
 *       failed too. The transaction may be committed, or not; the store will say once it answers again.
 *       {@link #version()} and {@link #transactionUuid()} are present, {@link #idempotenceKey()} when the
 *       commit had one, and {@link #key()} when the claim's failure named the object.
 * </ul>
 *
 * <p>What to do after a commit: <b>look the commit up before retrying</b>, by its idempotence key ({@code
 * dataset.distributed().findCommit(key, 0)}) if it had one, or by its {@link #transactionUuid() transaction uuid} in the
 * table's history ({@code Dataset.versions()}, {@code quiver log --transaction}). Found: it committed, do
 * not run it again. Not found: it did not, and it is safe to retry (a retry under the same idempotence key
 * is safe either way). Never delete the files the commit wrote (data files, staged write results) by hand:
 * the committed version may reference them; {@code cleanup} removes them once it is known they are
 * unreferenced. After a bare {@code putIfAbsent}: read the key back; never report "not created" without
 * having done so.
 *
 * <p>A subclass of {@link StoreException} (never {@link #isTransient() transient}: repeating the call is
 * not known to be harmless), so code that catches store failures still catches it; catch it first to tell
 * "maybe committed" from "not committed".
 */
public class CommitStateUnknownException extends StoreException {
  private static final long serialVersionUID = 1L;

  private final String location;
  private final String key;
  private final Long version;
  private final String transactionUuid;
  private final String idempotenceKey;
  private final String detail;

  /**
   * An adapter's unsettled conditional create.
   *
   * @param location the store's location ({@code ObjectStore.location()})
   * @param key the key whose creation is in doubt
   * @param detail what failed and how often it was tried, without advice (the message adds what to do)
   * @param cause the last ambiguous failure (earlier ones, and a failed read-back, suppressed on it)
   */
  public CommitStateUnknownException(String location, String key, String detail, Throwable cause) {
    super(objectMessage(location, key, detail), cause, false);
    this.location = Objects.requireNonNull(location, "location");
    this.key = Objects.requireNonNull(key, "key");
    this.version = null;
    this.transactionUuid = null;
    this.idempotenceKey = null;
    this.detail = detail;
  }

  /**
   * A commit whose claim failed ambiguously and whose read-back failed too.
   *
   * @param location the table's location
   * @param version the version the commit tried to claim
   * @param transactionUuid the uuid of the transaction whose outcome is unknown
   * @param idempotenceKey the commit's idempotence key, or null if it had none
   * @param detail what failed, without advice (the message adds what to do)
   * @param cause the failure of the check, with the ambiguous failure suppressed on it
   */
  public CommitStateUnknownException(
      String location, long version, String transactionUuid, String idempotenceKey, String detail, Throwable cause) {
    this(location, Optional.empty(), version, transactionUuid, idempotenceKey, detail, cause);
  }

  /**
   * A commit whose claim failed ambiguously and whose read-back failed too, naming the object key the
   * claim was creating when the commit store is object-based.
   */
  public CommitStateUnknownException(String location, Optional<String> key, long version, String transactionUuid,
      String idempotenceKey, String detail, Throwable cause) {
    super(commitMessage(location, version, transactionUuid, idempotenceKey, detail), cause, false);
    this.location = Objects.requireNonNull(location, "location");
    this.key = key.orElse(null);
    this.version = version;
    this.transactionUuid = Objects.requireNonNull(transactionUuid, "transactionUuid");
    this.idempotenceKey = idempotenceKey;
    this.detail = detail;
  }

  private static String objectMessage(String location, String key, String detail) {
    String where = location.endsWith("/") ? location + key : location + "/" + key;
    return "creating " + where + " (if absent) failed and its outcome is unknown: " + detail + ". The object may or"
        + " may not have been created (and if it exists it may be this caller's): read the key back before"
        + " retrying or reporting that it was not created.";
  }

  private static String commitMessage(String location, long version, String uuid, String key, String detail) {
    String lookUp = key != null
        ? "look idempotence key '" + key + "' up (findCommit) or transaction " + uuid + " in the table's history"
        : "look for transaction " + uuid + " in the table's history";
    return "the outcome of the commit of transaction " + uuid + (key != null ? " (idempotence key '" + key + "')" : "")
        + " as version " + version + " of " + location + " is unknown: " + detail + ". Before retrying, " + lookUp
        + ": found means it committed, absent means it did not. Do not delete the files it wrote; cleanup"
        + " removes them if they are unreferenced.";
  }

  /** What failed, without the advice the message adds (for quoting in an enclosing message). */
  public String detail() {
    return detail;
  }

  /** The location of the table (for a commit) or of the store (for an adapter's conditional create). */
  public String location() {
    return location;
  }

  /** The object key whose creation is in doubt; empty for a commit whose claim did not name one. */
  public Optional<String> key() {
    return Optional.ofNullable(key);
  }

  /** The version the commit tried to claim (if it committed, it is this version); empty from an adapter. */
  public OptionalLong version() {
    return version == null ? OptionalLong.empty() : OptionalLong.of(version);
  }

  /** The uuid of the transaction, as recorded in the table's history if it committed; empty from an adapter. */
  public Optional<String> transactionUuid() {
    return Optional.ofNullable(transactionUuid);
  }

  /** The commit's idempotence key, if it had one; empty from an adapter. */
  public Optional<String> idempotenceKey() {
    return Optional.ofNullable(idempotenceKey);
  }
}
