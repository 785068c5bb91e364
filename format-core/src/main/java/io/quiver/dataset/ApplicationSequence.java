package io.quiver.dataset;

import java.util.Objects;

/**
 * A commit's place in an application's monotonic sequence (a streaming query's epoch, a job's checkpoint
 * id): see {@link CommitOptions#withApplicationSequence}. The table's idempotence ledger keeps each
 * application's highest committed sequence; a commit at or below it publishes nothing.
 */
public record ApplicationSequence(String applicationId, long sequence) {
  public ApplicationSequence {
    Objects.requireNonNull(applicationId, "applicationId");
  }
}
