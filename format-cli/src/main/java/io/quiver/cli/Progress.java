package io.quiver.cli;

import java.io.PrintWriter;

/**
 * Progress of a long operation on stderr: a redrawn bar on a terminal, plain lines otherwise (logs, pipes,
 * tests).
 */
final class Progress implements AutoCloseable {
  /** Overrides terminal detection (tests); null means {@code System.console() != null}. */
  static volatile Boolean forceTerminal;

  private final PrintWriter err;
  private final String label;
  private final long total;
  private final boolean terminal;
  private long done;
  private int lastDecile = -1;

  Progress(PrintWriter err, String label, long total) {
    this.err = err;
    this.label = label;
    this.total = total;
    this.terminal = forceTerminal != null ? forceTerminal : System.console() != null;
  }

  synchronized void advance(long n) {
    done += n;
    if (terminal) {
      int width = 30;
      int filled = total <= 0 ? width : (int) Math.min(width, done * width / total);
      err.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done
          + (total > 0 ? "/" + total : ""));
      err.flush();
    } else {
      int decile = total <= 0 ? 10 : (int) Math.min(10, done * 10 / total);
      if (decile != lastDecile) {
        lastDecile = decile;
        err.println(label + ": " + done + (total > 0 ? "/" + total : "") + " done");
      }
    }
  }

  @Override
  public synchronized void close() {
    if (terminal) {
      err.println();
    }
    err.flush();
  }
}
