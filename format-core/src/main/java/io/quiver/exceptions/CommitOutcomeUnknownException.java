package io.quiver.exceptions;

import java.util.Optional;

/**
 * A commit failed in a way that leaves its outcome unknown: the store call that publishes the version
 * failed ambiguously (it may have taken effect before the error) and the check that would have told
 * (reading the version back) failed too. The transaction may be committed, or not; the store will say
 * once it answers again.
 *
 * <p>What to do: <b>look the commit up before retrying</b>, by its idempotence key ({@code
 * dataset.distributed().findCommit(key, 0)}) if it had one, or by its {@link #transactionUuid() transaction
 * uuid} in the table's history ({@code Dataset.versions()}, {@code quiver log --transaction}). Found: it
 * committed, do not run it again. Not found: it did not, and it is safe to retry (a retry under the same
 * idempotence key is safe either way). Never delete the files the commit wrote (data files, staged write
 * results) by hand: the committed version may reference them; {@code cleanup} removes them once it is known
 * they are unreferenced.
 *
 * <p>A subclass of {@link StoreException}, so code that catches store failures still catches it; catch it
 * first to tell "maybe committed" from "not committed".
 */
public class CommitOutcomeUnknownException extends StoreException {
  private static final long serialVersionUID = 1L;

  private final String location;
  private final long version;
  private final String transactionUuid;
  private final String idempotenceKey;

  /**
   * @param location the table's location
   * @param version the version the commit tried to claim
   * @param transactionUuid the uuid of the transaction whose outcome is unknown
   * @param idempotenceKey the commit's idempotence key, or null if it had none
   * @param detail what failed, without advice (the message adds what to do)
   * @param cause the failure of the check, with the ambiguous failure suppressed on it
   */
  public CommitOutcomeUnknownException(
      String location, long version, String transactionUuid, String idempotenceKey, String detail, Throwable cause) {
    super(message(location, version, transactionUuid, idempotenceKey, detail), cause, false);
    this.location = location;
    this.version = version;
    this.transactionUuid = transactionUuid;
    this.idempotenceKey = idempotenceKey;
  }

  private static String message(String location, long version, String uuid, String key, String detail) {
    String lookUp = key != null
        ? "look idempotence key '" + key + "' up (findCommit) or transaction " + uuid + " in the table's history"
        : "look for transaction " + uuid + " in the table's history";
    return "the outcome of the commit of transaction " + uuid + (key != null ? " (idempotence key '" + key + "')" : "")
        + " as version " + version + " of " + location + " is unknown: " + detail + ". Before retrying, " + lookUp
        + ": found means it committed, absent means it did not. Do not delete the files it wrote; cleanup"
        + " removes them if they are unreferenced.";
  }

  /** The location of the table. */
  public String location() {
    return location;
  }

  /** The version the commit tried to claim (if it committed, it is this version). */
  public long version() {
    return version;
  }

  /** The uuid of the transaction, as recorded in the table's history if it committed. */
  public String transactionUuid() {
    return transactionUuid;
  }

  /** The commit's idempotence key, if it had one. */
  public Optional<String> idempotenceKey() {
    return Optional.ofNullable(idempotenceKey);
  }
}
