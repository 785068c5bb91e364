package io.quiver.exceptions;

/**
 * A staged column write no longer matches the table: between preparing it and committing it, another
 * commit changed what backs one of its fields in its fragment (base file, overlays), took one of its new
 * field ids, changed a targeted field's contract, removed or compacted its fragment, or added a
 * fragment a new non-nullable column would leave without values. Nothing was published and the staged
 * bytes are never replayed onto the changed state: recompute the column for the current version.
 *
 * <p>A {@link RetryableConflictException}: the table is consistent and retrying from a fresh read
 * (recomputing the values) succeeds unless it races again. Retrying the same staged value never does.
 */
public class StaleColumnWriteException extends RetryableConflictException {
  private static final long serialVersionUID = 1L;

  private final long fragmentId;
  private final String field;

  /**
   * @param fragmentId the fragment whose staged write is stale, or -1 when the cause is not one fragment
   * @param field the field's path (or id) concerned
   * @param message what was expected, what was found and what to do
   */
  public StaleColumnWriteException(long fragmentId, String field, String message) {
    super(message);
    this.fragmentId = fragmentId;
    this.field = field;
  }

  /** The fragment whose staged write is stale, or -1 when the cause concerns no single fragment. */
  public long fragmentId() {
    return fragmentId;
  }

  /** The field concerned (path, or "id N" when it is no longer in the schema). */
  public String field() {
    return field;
  }
}
