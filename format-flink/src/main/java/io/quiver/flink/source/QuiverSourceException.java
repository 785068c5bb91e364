package io.quiver.flink.source;

import io.quiver.exceptions.QuiverException;

/**
 * A continuous Quiver source met a version it cannot follow: one that changes rows it may already have
 * emitted (an overwrite, a delete, an update, a restore, ...), or one removed by a cleanup before the source
 * read it. The job fails with this error; {@link #version()} and {@link #operation()} say which version and
 * what it committed, and the message says how to go on.
 */
public class QuiverSourceException extends QuiverException {
  private final long version;
  private final String operation;

  /** An error at {@code version}, which committed {@code operation} (null when the version is gone). */
  public QuiverSourceException(long version, String operation, String message, Throwable cause) {
    super(message, cause);
    this.version = version;
    this.operation = operation;
  }

  /** The version the source could not follow. */
  public long version() {
    return version;
  }

  /** The operation committed at {@link #version()}, or {@code null} when the version no longer exists. */
  public String operation() {
    return operation;
  }
}
