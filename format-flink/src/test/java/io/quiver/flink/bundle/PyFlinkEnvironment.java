package io.quiver.flink.bundle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The PyFlink virtual environment emulators/pyflink/install.sh makes, and the Flink 2.3 distribution inside it
 * (pyflink/lib: flink-dist, the table planner, SLF4J and Log4j), which is the classpath a Flink cluster gives a job.
 */
final class PyFlinkEnvironment {
  private PyFlinkEnvironment() {}

  static Path venv() {
    String configured = System.getenv("QUIVER_PYFLINK_VENV");
    Path venv = configured != null && !configured.isBlank()
        ? Path.of(configured)
        : Path.of(System.getProperty("user.home"), ".cache", "quiver", "pyflink-venv");
    if (!Files.isExecutable(venv.resolve("bin/python"))) {
      throw new IllegalStateException("expected the PyFlink virtual environment at " + venv
          + " (made by emulators/pyflink/install.sh before the integration tests), found no bin/python there;"
          + " run `bash emulators/pyflink/install.sh`");
    }
    return venv;
  }

  static Path python() {
    return venv().resolve("bin/python");
  }

  /** The jars of pyflink/lib, the Flink distribution's lib/ directory. */
  static List<Path> flinkLib() throws IOException {
    Path lib;
    try (Stream<Path> dirs = Files.list(venv().resolve("lib"))) {
      lib = dirs.map(d -> d.resolve("site-packages/pyflink/lib"))
          .filter(Files::isDirectory)
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("expected lib/python3.*/site-packages/pyflink/lib in "
              + venv() + ", found none; reinstall with `bash emulators/pyflink/install.sh`"));
    }
    try (Stream<Path> jars = Files.list(lib)) {
      return jars.filter(j -> j.toString().endsWith(".jar")).sorted().toList();
    }
  }

  static Path bundle() {
    Path bundle = Path.of(System.getProperty("quiver.flink.bundle"));
    if (!Files.isRegularFile(bundle)) {
      throw new IllegalStateException("expected the bundle jar at " + bundle + " (built in the package phase)");
    }
    return bundle;
  }

  /** Runs a command to its end (at most five minutes) and returns its exit status and its output. */
  static Result run(List<String> command, Map<String, String> env, Path log)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(env);
    Process p = builder.start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly().waitFor();
    }
    return new Result(done, done ? p.exitValue() : -1, Files.readString(log, StandardCharsets.UTF_8));
  }

  record Result(boolean finished, int exitStatus, String output) {}
}
