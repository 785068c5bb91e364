package io.quiver.conformance;

import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.local.LocalObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Child process of {@link LocalPutIfAbsentProcessRaceTest}: races {@code putIfAbsent} on key {@code
 * race/key-N} as soon as the parent creates the gate file {@code go-N}, and prints the outcome.
 *
 * <p>Arguments: store root, gate directory, child id, rounds. Prints {@code READY}, then one {@code
 * ROUND n CREATED|ALREADY_EXISTS} line per round. Gives up after a minute so an orphan cannot spin
 * forever.
 */
public final class PutIfAbsentRaceChild {
  private PutIfAbsentRaceChild() {}

  /** What child {@code id} writes in {@code round}: recognisable and large enough to take a moment. */
  static byte[] payload(int id, int round) {
    byte[] data = new byte[8192];
    Arrays.fill(data, (byte) (id * 31 + round));
    byte[] tag = ("child-" + id + "-round-" + round).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    System.arraycopy(tag, 0, data, 0, tag.length);
    return data;
  }

  public static void main(String[] args) throws Exception {
    LocalObjectStore store = new LocalObjectStore(Path.of(args[0]));
    Path gates = Path.of(args[1]);
    int id = Integer.parseInt(args[2]);
    int rounds = Integer.parseInt(args[3]);
    long deadline = System.nanoTime() + 60_000_000_000L;

    store.putIfAbsent("warmup/child-" + id, payload(id, -1)); // load classes before the first race
    System.out.println("READY");
    System.out.flush();
    for (int round = 0; round < rounds; round++) {
      Path go = gates.resolve("go-" + round);
      while (!Files.exists(go)) {
        if (System.nanoTime() > deadline) {
          System.err.println("child " + id + " timed out waiting for " + go);
          System.exit(2);
        }
        Thread.onSpinWait();
      }
      PutResult result = store.putIfAbsent("race/key-" + round, payload(id, round));
      System.out.println("ROUND " + round + " " + result);
      System.out.flush();
    }
  }
}
