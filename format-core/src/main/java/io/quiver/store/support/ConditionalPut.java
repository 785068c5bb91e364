package io.quiver.store.support;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectStore.PutResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry-and-settle loop of {@code putIfAbsent}, the same for every store with a conditional create.
 *
 * <p>Why it exists: a create whose answer was lost (a timeout, a reset connection, a 5xx after the store
 * acted) may have created the object. Sending it again then gets "already exists" for the caller's own
 * object, and a commit protocol that believed it would think another writer won, and commit twice. So an
 * adapter sends each conditional create <b>without its SDK's retries</b>, carrying a random token in the
 * object's metadata under {@value #TOKEN_METADATA_KEY}, and lets this loop decide:
 *
 * <ul>
 *   <li>created: {@code CREATED};
 *   <li>"exists" with no earlier doubt: {@code ALREADY_EXISTS} (another writer holds the key);
 *   <li>refused before acting ({@link Failure#REFUSED}, {@link Failure#UNREACHABLE}): nothing happened;
 *       wait ({@link Backoff}) and send again;
 *   <li>the store may have acted ({@link Failure#TRANSIENT}): doubt; wait and send again with the same
 *       token (nothing is read: if nothing was created, the next send simply creates);
 *   <li>"exists" after such doubt (or answered to a resend the adapter could not prevent): read the live
 *       object's token. Ours: {@code CREATED}. Another, or none: {@code ALREADY_EXISTS}. No object (it was
 *       created and deleted since): send again;
 *   <li>any other failure: without doubt, the adapter's exception for it; with doubt, an unknown outcome.
 * </ul>
 *
 * The token is read only to decide what an "exists" answer means. When the attempts run out with doubt
 * left (with one attempt, any failure that may have acted), the call throws {@link
 * CommitStateUnknownException}, and the caller decides by reading the key (the commit loop reads the version
 * back); without doubt, the last failure's own exception (transient when nothing was done).
 */
public final class ConditionalPut {
  private static final Logger LOG = LoggerFactory.getLogger(ConditionalPut.class);

  /**
   * The one metadata key under which every adapter stores the token of the conditional create that made an
   * object. Lower-case letters only, so that it is a valid name on every store (Azure requires a C#
   * identifier; S3 sends it as {@code x-amz-meta-quiverputtoken}).
   */
  public static final String TOKEN_METADATA_KEY = "quiverputtoken";

  /** What one send of the conditional create answered, when it answered. */
  public enum Answer {
    /** The object was created by this send. */
    CREATED,
    /** The store said an object exists, answering this very request (not a resend of it). */
    EXISTS,
    /**
     * The store said an object exists, but the call was sent more than once (a retry layer the adapter
     * could not turn off resent it): the object may be this call's own.
     */
    EXISTS_AFTER_RESEND
  }

  /** The store-specific half: one conditional create, one token read-back, and the adapter's error mapping. */
  public interface Store {
    /**
     * Sends the conditional create once, with {@code token} in the object's metadata under {@link
     * #TOKEN_METADATA_KEY}, without SDK retries.
     *
     * @throws RuntimeException the SDK's failure, classified by {@link #classify}
     */
    Answer send(String token);

    /**
     * The token in the metadata of the object now under the key: empty when there is no object, {@code ""}
     * when it has no token (it was written another way).
     *
     * @throws RuntimeException the SDK's failure, classified by {@link #classify}
     */
    Optional<String> liveToken();

    /** The kind of a failure of {@link #send} or {@link #liveToken}. */
    Failure classify(RuntimeException failure);

    /** The adapter's exception for a failure that ends the call with its outcome known (not {@link Failure#TRANSIENT}). */
    QuiverException toException(RuntimeException failure);

    /** A short description of a failure for the unknown-outcome message (status, code; never credentials). */
    String describe(RuntimeException failure);
  }

  private final String location;
  private final String key;
  private final int maxAttempts;
  private final Backoff backoff;

  /**
   * @param location the store's location, for messages
   * @param key the key being created
   * @param maxAttempts sends at most, at least 1
   * @param backoff the wait before each new send
   */
  public ConditionalPut(String location, String key, int maxAttempts, Backoff backoff) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
    }
    this.location = Objects.requireNonNull(location, "location");
    this.key = Objects.requireNonNull(key, "key");
    this.maxAttempts = maxAttempts;
    this.backoff = Objects.requireNonNull(backoff, "backoff");
  }

  /** A fresh random token for one call. */
  public static String newToken() {
    return UUID.randomUUID().toString();
  }

  /** Runs the loop with a fresh token. */
  public PutResult run(Store store) {
    return run(store, newToken());
  }

  /** Runs the loop with the given token (tests pin it). */
  public PutResult run(Store store, String token) {
    Attempts state = new Attempts();
    for (int attempt = 1; ; attempt++) {
      try {
        Answer answer = store.send(token);
        if (answer == Answer.CREATED) {
          return PutResult.CREATED;
        }
        if (answer == Answer.EXISTS && !state.doubtful) {
          return PutResult.ALREADY_EXISTS;
        }
        // "Exists" after a send that may have acted (an earlier attempt, or a resend of this one): whose is it?
        state.doubtful = true;
        Optional<PutResult> settled = settle(store, token, state);
        if (settled.isPresent()) {
          return settled.get();
        }
        // No object now (created, by us or not, and deleted since), or the read failed: send again.
      } catch (RuntimeException failure) {
        state.last = failure;
        Failure kind = store.classify(failure);
        if (kind.mayHaveActed()) {
          state.doubtful = true;
          state.failures.add(failure);
          LOG.debug("conditional create of {} may have acted (attempt {}): {}", where(), attempt, store.describe(failure));
        } else if (kind.refusedBeforeActing()) {
          LOG.debug("conditional create of {} refused before acting (attempt {}): {}", where(), attempt,
              store.describe(failure));
        } else if (state.doubtful) {
          throw unknown(store, attempt, state); // an earlier send may have created the object
        } else {
          throw store.toException(failure);
        }
      }
      if (attempt >= maxAttempts) {
        if (state.doubtful || state.last == null) {
          throw unknown(store, attempt, state);
        }
        throw store.toException(state.last);
      }
      pause(attempt, state);
    }
  }

  /** What the attempts so far left: whether one may have acted, and the failures seen. */
  private static final class Attempts {
    boolean doubtful;
    RuntimeException last;
    RuntimeException lastReadBack;
    final List<RuntimeException> failures = new ArrayList<>();
  }

  /** Reads the live token: ours, another's, or no object (empty). A failed read leaves the doubt. */
  private Optional<PutResult> settle(Store store, String token, Attempts state) {
    try {
      Optional<String> live = store.liveToken();
      if (live.isEmpty()) {
        return Optional.empty();
      }
      boolean ours = live.get().equals(token);
      LOG.debug("conditional create of {} settled by its token: {}", where(), ours ? "ours" : "another writer's");
      return Optional.of(ours ? PutResult.CREATED : PutResult.ALREADY_EXISTS);
    } catch (RuntimeException readFailure) {
      state.lastReadBack = readFailure;
      state.failures.add(readFailure);
      return Optional.empty();
    }
  }

  private void pause(int attempt, Attempts state) {
    try {
      backoff.pause(attempt);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (!state.doubtful) {
        throw new StoreException(
            "interrupted while retrying the conditional create of " + where() + "; nothing was created", e, true);
      }
      CommitStateUnknownException unknown = new CommitStateUnknownException(
          location, key, "interrupted after " + attempts(attempt) + ", an earlier one may have created it", e);
      state.failures.forEach(unknown::addSuppressed);
      throw unknown;
    }
  }

  private CommitStateUnknownException unknown(Store store, int attempt, Attempts state) {
    StringBuilder detail = new StringBuilder(attempts(attempt));
    if (state.last != null) {
      detail.append(", the last failed with ").append(store.describe(state.last));
    } else {
      detail.append(": the object was there and gone again each time");
    }
    if (state.lastReadBack != null) {
      detail.append("; reading the object's token back failed with ").append(store.describe(state.lastReadBack));
    }
    RuntimeException cause = state.last != null ? state.last : state.lastReadBack;
    CommitStateUnknownException unknown = new CommitStateUnknownException(location, key, detail.toString(), cause);
    for (RuntimeException f : state.failures) {
      if (f != cause) {
        unknown.addSuppressed(f);
      }
    }
    return unknown;
  }

  private String where() {
    return Failure.join(location, key);
  }

  private static String attempts(int n) {
    return n + (n == 1 ? " attempt" : " attempts");
  }
}
