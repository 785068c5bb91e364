package io.quiver.conformance.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A storage emulator run as a child process on 127.0.0.1 for the length of a test class: started on a
 * free port, polled until it answers, stopped (with its children) on close. Output goes to a log file
 * under {@code target/emulators/} so a failing start can be diagnosed.
 *
 * <p>A missing emulator is a test failure with instructions, never a skip: CI must prove every adapter.
 */
public final class EmulatorProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final int port;
  private final Path log;

  private EmulatorProcess(String name, Process process, int port, Path log) {
    this.name = name;
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** A TCP port that was free a moment ago on 127.0.0.1. */
  public static int freePort() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }

  /**
   * Starts {@code command} and waits until {@code ready} answers, for at most {@code timeout}.
   *
   * @param name for messages and the log file name
   * @param port the port the command was told to listen on
   * @param ready probe: true once the emulator serves requests
   */
  public static EmulatorProcess start(String name, List<String> command, Map<String, String> env, int port,
      Readiness ready, Duration timeout) {
    Path logDir = Path.of("target", "emulators");
    Path log = logDir.resolve(name + "-" + port + ".log");
    Process process;
    try {
      Files.createDirectories(logDir);
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      builder.environment().putAll(env);
      process = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "could not start the " + name + " emulator with " + command + ": " + e.getMessage()
              + ". Install the emulators with emulators/install.sh (`mvn -B verify` runs it).",
          e);
    }
    EmulatorProcess emulator = new EmulatorProcess(name, process, port, log);
    Instant deadline = Instant.now().plus(timeout);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the " + name + " emulator exited with code " + process.exitValue() + " before answering; its output:\n"
                + emulator.tail());
      }
      if (ready.test(port)) {
        return emulator;
      }
      if (Instant.now().isAfter(deadline)) {
        emulator.close();
        throw new IllegalStateException(
            "the " + name + " emulator did not answer on 127.0.0.1:" + port + " within " + timeout
                + "; its output:\n" + emulator.tail());
      }
      // Polling a child process's readiness is the one wait here; tests themselves never sleep.
      try {
        process.waitFor(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        emulator.close();
        throw new IllegalStateException("interrupted while waiting for the " + name + " emulator", e);
      }
    }
  }

  /** Readiness probe, given the port. */
  @FunctionalInterface
  public interface Readiness {
    boolean test(int port);

    /** Ready once a TCP connection is accepted. */
    static Readiness tcp() {
      return port -> {
        try (Socket s = new Socket()) {
          s.connect(new InetSocketAddress("127.0.0.1", port), 200);
          return true;
        } catch (IOException e) {
          return false;
        }
      };
    }

    /** Ready once an HTTP GET of {@code path} gets any response status. */
    static Readiness http(String path) {
      return port -> {
        try {
          HttpURLConnection c =
              (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
          c.setConnectTimeout(200);
          c.setReadTimeout(1000);
          int status = c.getResponseCode();
          c.disconnect();
          return status > 0;
        } catch (IOException e) {
          return false;
        }
      };
    }
  }

  public int port() {
    return port;
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** The last lines the emulator printed. */
  public String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return name + "@" + endpoint();
  }
}
