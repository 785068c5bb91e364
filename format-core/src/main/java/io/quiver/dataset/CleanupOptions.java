package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link Dataset#cleanup} removes. Build with {@link #builder()}.
 *
 * <ul>
 *   <li>Versions whose manifest timestamp is older than {@link Builder#olderThan(Duration)} (default 7
 *       days) before now, or before {@link Builder#before(Instant)}, are removed — except the latest
 *       version and tagged versions, which are always kept.
 *   <li>Files under {@code data/}, {@code _deletions/} and {@code _transactions/} that no kept version
 *       references are removed, unless they were modified within the {@link Builder#safetyWindow(Duration)
 *       safety window} (default 1 hour): a writer may be about to commit them.
 *   <li>Under {@code _staging/} (checkpointed writes): the data files of a sealed, uncommitted checkpoint are
 *       always kept, and so are those of an open checkpoint that staged within the safety window; the staging
 *       objects of committed checkpoints and of abandoned open ones are removed after the safety window.
 *   <li>The store's own temporary files left by writers that were killed mid-write (the local store's
 *       {@code .quiver-tmp-*}) are removed once older than the safety window.
 * </ul>
 */
public final class CleanupOptions {
  /** Default retention age of versions. */
  public static final Duration DEFAULT_OLDER_THAN = Duration.ofDays(7);

  /** Default safety window for unreferenced files. */
  public static final Duration DEFAULT_SAFETY_WINDOW = Duration.ofHours(1);

  private final Duration olderThan;
  private final Optional<Instant> before;
  private final Duration safetyWindow;
  private final boolean dryRun;

  private CleanupOptions(Builder b) {
    this.olderThan = b.olderThan;
    this.before = Optional.ofNullable(b.before);
    this.safetyWindow = b.safetyWindow;
    this.dryRun = b.dryRun;
  }

  public static CleanupOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Retention age; ignored when {@link #before()} is set. */
  public Duration olderThan() {
    return olderThan;
  }

  /** Absolute cutoff: versions committed strictly before it may be removed. */
  public Optional<Instant> before() {
    return before;
  }

  public Duration safetyWindow() {
    return safetyWindow;
  }

  /** When true, nothing is deleted; the report says what would have been. */
  public boolean dryRun() {
    return dryRun;
  }

  /** The cutoff instant given the current time: versions committed strictly before it may be removed. */
  public Instant cutoff(Instant now) {
    return before.orElseGet(() -> now.minus(olderThan));
  }

  @Override
  public String toString() {
    return "CleanupOptions[" + before.map(b -> "before " + b).orElse("olderThan " + olderThan) + ", safetyWindow "
        + safetyWindow + (dryRun ? ", dry run" : "") + "]";
  }

  /** Builder of {@link CleanupOptions}. */
  public static final class Builder {
    private Duration olderThan = DEFAULT_OLDER_THAN;
    private Instant before;
    private Duration safetyWindow = DEFAULT_SAFETY_WINDOW;
    private boolean dryRun;

    private Builder() {}

    /** Remove versions committed more than {@code age} ago (clears {@link #before}). */
    public Builder olderThan(Duration age) {
      Objects.requireNonNull(age, "age");
      if (age.isNegative()) {
        throw new InvalidArgumentException("olderThan must not be negative, got " + age);
      }
      this.olderThan = age;
      this.before = null;
      return this;
    }

    /** Remove versions committed strictly before {@code instant} (overrides {@link #olderThan}). */
    public Builder before(Instant instant) {
      this.before = Objects.requireNonNull(instant, "instant");
      return this;
    }

    /**
     * Unreferenced files modified less than {@code window} ago are kept (a writer may be about to commit
     * them). Should exceed the longest time a writer takes between writing a file and committing it.
     */
    public Builder safetyWindow(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative()) {
        throw new InvalidArgumentException("safetyWindow must not be negative, got " + window);
      }
      this.safetyWindow = window;
      return this;
    }

    /** Report what would be removed without removing anything. */
    public Builder dryRun(boolean value) {
      this.dryRun = value;
      return this;
    }

    public CleanupOptions build() {
      return new CleanupOptions(this);
    }
  }
}
