package io.quiver.dataset;

/**
 * Which write results an append accepts when the table's schema changed after the results were written
 * ({@link DistributedWrites#commit(java.util.List, WriteMode, CommitOptions, SchemaPolicy)}).
 */
public enum SchemaPolicy {
  /**
   * Every result must carry the schema contract of the version the commit is checked against: a column
   * added, dropped, renamed, re-typed or re-nulled since the results' read version fails the commit (or
   * makes it retryable). The behaviour of {@link DistributedWrites#commit(java.util.List, WriteMode,
   * CommitOptions)}.
   */
  EXACT,

  /**
   * An append of results written under an older schema commits on the latest version if each result's
   * every field still exists there with the same id, parent and type and is not made NOT NULL since
   * (a rename is fine: data files refer to fields by id), and every field added since is nullable (or
   * inside an added nullable struct): the appended rows read null in the added fields. Results may carry
   * different (compatible) contracts, e.g. written by workers that moved to new versions at different
   * times. Anything else (a dropped or re-typed field, a field made NOT NULL, a NOT NULL field added) is a
   * {@link io.quiver.exceptions.SchemaMismatchException} naming the field. Overwrites are not accepted.
   */
  ALLOW_ADDED_NULLABLE_FIELDS
}
