package io.quiver.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Progress of a long operation on stderr: a redrawn line on a terminal, plain lines otherwise (logs, pipes,
 * tests). Counts items ({@link #advance}) or bytes of input ({@link #bytes}); in bytes, a terminal shows the
 * percentage, megabytes, rows and MB/s (redrawn at most ten times a second), and a pipe gets one line per
 * tenth of the input, without timings, so that logs are the same from run to run.
 */
final class Progress implements AutoCloseable {
  /** Overrides terminal detection (tests); null means {@code System.console() != null}. */
  static volatile Boolean forceTerminal;

  /** The clock of the MB/s figure and of redraws, in nanoseconds (tests fake it). */
  static volatile LongSupplier clock = System::nanoTime;

  /** How progress is shown: {@code auto} asks whether stderr is a terminal. */
  enum Mode { auto, terminal, plain, none }

  private static final long REDRAW_NANOS = 100_000_000L;

  private final PrintWriter err;
  private final String label;
  private final long total;
  private final boolean terminal;
  private final boolean silent;
  private final long startNanos;
  private long done;
  private long rows;
  private int lastDecile = -1;
  private long lastDraw = Long.MIN_VALUE;
  private boolean drawn;
  private int width;

  Progress(PrintWriter err, String label, long total) {
    this(err, label, total, Mode.auto);
  }

  Progress(PrintWriter err, String label, long total, Mode mode) {
    this.err = err;
    this.label = label;
    this.total = total;
    this.silent = mode == Mode.none;
    this.terminal = switch (mode) {
      case terminal -> true;
      case plain, none -> false;
      case auto -> forceTerminal != null ? forceTerminal : System.console() != null;
    };
    this.startNanos = clock.getAsLong();
  }

  boolean terminal() {
    return terminal;
  }

  /** Counts {@code n} more items done. */
  synchronized void advance(long n) {
    done += n;
    if (silent) {
      return;
    }
    if (terminal) {
      int width = 30;
      int filled = total <= 0 ? width : (int) Math.min(width, done * width / total);
      err.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done
          + (total > 0 ? "/" + total : ""));
      err.flush();
      drawn = true;
    } else {
      int decile = total <= 0 ? 10 : (int) Math.min(10, done * 10 / total);
      if (decile != lastDecile) {
        lastDecile = decile;
        err.println(label + ": " + done + (total > 0 ? "/" + total : "") + " done");
      }
    }
  }

  /** Input read so far: {@code bytesDone} of the total bytes, and {@code rowsDone} rows. */
  synchronized void bytes(long bytesDone, long rowsDone) {
    done = bytesDone;
    rows = rowsDone;
    if (silent) {
      return;
    }
    if (terminal) {
      long now = clock.getAsLong();
      if (lastDraw != Long.MIN_VALUE && now - lastDraw < REDRAW_NANOS && bytesDone < total) {
        return;
      }
      lastDraw = now;
      String line = byteLine(now);
      err.print("\r" + line + " ".repeat(Math.max(0, width - line.length())));
      width = line.length();
      err.flush();
      drawn = true;
    } else {
      int decile = total <= 0 ? 10 : (int) Math.min(10, bytesDone * 10 / total);
      if (decile > lastDecile) {
        lastDecile = decile;
        err.println(String.format(Locale.ROOT, "%s: %d%% (%s of %s MB), %,d rows", label, decile * 10,
            mb(bytesDone), mb(total), rowsDone));
      }
    }
  }

  private String byteLine(long now) {
    double seconds = Math.max(1e-9, (now - startNanos) / 1e9);
    int percent = total <= 0 ? 100 : (int) Math.min(100, done * 100 / total);
    return String.format(Locale.ROOT, "%s %3d%% %s/%s MB  %,d rows  %.1f MB/s", label, percent, mb(done),
        mb(total), rows, done / 1e6 / seconds);
  }

  /** Rows written so far: redrawn on a terminal (at most ten times a second), nothing otherwise. */
  synchronized void rows(long rowsDone) {
    rows = rowsDone;
    if (!terminal || silent) {
      return;
    }
    long now = clock.getAsLong();
    if (lastDraw != Long.MIN_VALUE && now - lastDraw < REDRAW_NANOS) {
      return;
    }
    lastDraw = now;
    double seconds = Math.max(1e-9, (now - startNanos) / 1e9);
    String line = String.format(Locale.ROOT, "%s %,d rows  %,.0f rows/s", label, rowsDone, rowsDone / seconds);
    err.print("\r" + line + " ".repeat(Math.max(0, width - line.length())));
    width = line.length();
    err.flush();
    drawn = true;
  }

  /** Prints a line of its own (on a terminal, over the redrawn one, which the next update redraws). */
  synchronized void println(String line) {
    if (terminal && drawn) {
      err.print("\r" + line + " ".repeat(Math.max(0, width - line.length())) + "\n");
      drawn = false;
      lastDraw = Long.MIN_VALUE;
    } else {
      err.println(line);
    }
    err.flush();
  }

  /** Megabytes (10^6 bytes) with one decimal. */
  static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
  }

  /** Seconds since this progress started, by {@link #clock}. */
  double seconds() {
    return (clock.getAsLong() - startNanos) / 1e9;
  }

  @Override
  public synchronized void close() {
    if (terminal && drawn) {
      err.println();
    }
    err.flush();
  }
}
