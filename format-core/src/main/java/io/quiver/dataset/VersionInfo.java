package io.quiver.dataset;

import java.time.Instant;
import java.util.Map;

/**
 * One committed version, as listed by {@link Dataset#versions()}.
 *
 * @param version the version number
 * @param timestamp commit time recorded by the writer
 * @param operation the operation committed ({@code append}, {@code overwrite}, ...)
 * @param transactionUuid uuid of the committed transaction
 * @param readVersion version the transaction was computed from
 * @param properties transaction properties
 * @param rows rows visible at this version
 * @param fragments fragments at this version
 */
public record VersionInfo(
    long version,
    Instant timestamp,
    String operation,
    String transactionUuid,
    long readVersion,
    Map<String, String> properties,
    long rows,
    int fragments) {}
