package io.quiver.internal.txn;

/**
 * A deliberately broken commit path for tests that show the suite has teeth: {@link #run} runs its body
 * with {@code ColumnWriteCheck}'s witness comparison skipped on the calling thread (every other check of a
 * staged column write still runs), then restores it, also when the body throws. Commits on other threads,
 * and every commit after {@code run} returns, check witnesses as usual.
 */
public final class BrokenWitnessCheck {
  private BrokenWitnessCheck() {}

  /** Runs {@code body} on this thread with staged column writes committed without their witness check. */
  public static void run(Runnable body) {
    ColumnWriteCheck.skippingWitnessCheck(body);
  }

  /** Whether commits on this thread skip the witness check now (false outside {@link #run}). */
  public static boolean active() {
    return ColumnWriteCheck.witnessCheckSkipped();
  }
}
