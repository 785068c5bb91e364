package io.quiver.conformance.emulator;

import io.quiver.conformance.StoreFixture;

/**
 * A store fixture backed by an emulator process: started on first use (so a test class whose tests are
 * all filtered out starts nothing), shared by the tests of the class the fixture was created for, and
 * stopped when that class is done ({@link #close()}); a shutdown hook stops it if the JVM exits first. A
 * missing emulator is the failure its {@link #start()} throws, never a skip.
 *
 * @param <E> the emulator handle
 */
public abstract class EmulatedStoreFixture<E extends AutoCloseable> implements StoreFixture {
  private E emulator;
  private Thread shutdownHook;

  /** Starts the emulator and prepares it (buckets, containers); throws, with what to install, when it cannot. */
  protected abstract E start();

  /** The running emulator, started on the first call. */
  protected final synchronized E emulator() {
    if (emulator == null) {
      E started = start();
      shutdownHook = new Thread(() -> closeQuietly(started), name() + "-emulator-shutdown");
      Runtime.getRuntime().addShutdownHook(shutdownHook);
      emulator = started;
    }
    return emulator;
  }

  /** Whether the emulator was started (and not yet stopped). */
  protected final synchronized boolean started() {
    return emulator != null;
  }

  @Override
  public synchronized void close() {
    if (emulator == null) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or about to
    }
    E stopping = emulator;
    emulator = null;
    shutdownHook = null;
    closeQuietly(stopping);
  }

  private static void closeQuietly(AutoCloseable emulator) {
    try {
      emulator.close();
    } catch (Exception e) {
      System.err.println("could not stop emulator " + emulator + ": " + e);
    }
  }

  @Override
  public String toString() {
    return name() + " (" + (started() ? "emulator " + emulator() : "not started") + ")";
  }
}
