package io.quiver.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the command line in-process with captured output. */
final class CliRunner {
  private CliRunner() {}

  record Result(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  static Result run(String... args) {
    return run(Main.commandLine(null, null), args);
  }

  static Result run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new Result(code, out.toString(), err.toString());
  }
}
