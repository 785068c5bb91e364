package io.quiver.dataset;

import java.time.Instant;

/**
 * A commit found under an idempotence key by {@link DistributedWrites#findCommit}.
 *
 * @param version the version it committed
 * @param idempotenceKey the key
 * @param transactionUuid its transaction uuid
 * @param operation its operation's name ({@code append}, ...)
 * @param operationDigest SHA-256 (hex) of its operation, as recorded
 * @param timestamp when it was committed
 */
public record CommitRecord(
    long version, String idempotenceKey, String transactionUuid, String operation, String operationDigest,
    Instant timestamp) {}
