package io.quiver.cli;

import io.quiver.exceptions.CommitConflictException;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreException;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code quiver} command. Exit codes: 0 success, 1 user error (one line, no stack trace), 2 commit
 * conflict, 3 internal error (stack trace with {@code --verbose}).
 */
@Command(
    name = "quiver",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Inspect, import, change and maintain Quiver tables on any object store.",
    subcommands = {
        ImportCommand.class,
        ScanCommand.class,
        Commands.Info.class,
        Commands.Log.class,
        Commands.Diff.class,
        Commands.Delete.class,
        Commands.Update.class,
        Commands.AddColumn.class,
        Commands.DropColumn.class,
        Commands.RenameColumn.class,
        Commands.Compact.class,
        Commands.Cleanup.class,
        Commands.Restore.class,
        Commands.Tag.class,
        Commands.Validate.class,
        DemoCommand.class,
        Commands.Schemes.class,
        CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {
  static final int OK = 0;
  static final int USER_ERROR = 1;
  static final int CONFLICT = 2;
  static final int INTERNAL_ERROR = 3;

  @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces of internal errors.")
  boolean verbose;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command; see 'quiver --help'");
  }

  public static void main(String[] args) {
    System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs the command line with the given streams and returns its exit code. */
  static int execute(PrintWriter out, PrintWriter err, String... args) {
    return commandLine(out, err).execute(args);
  }

  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    Main main = new Main();
    CommandLine cl = new CommandLine(main);
    if (out != null) {
      cl.setOut(out);
    }
    if (err != null) {
      cl.setErr(err);
    }
    cl.setParameterExceptionHandler((ex, args) -> {
      ex.getCommandLine().getErr().println("error: " + ex.getMessage().replace('\n', ' ') + " (see '"
          + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help')");
      return USER_ERROR;
    });
    cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      PrintWriter e = cmd.getErr();
      int code = exitCode(ex);
      e.println((code == CONFLICT ? "conflict: " : "error: ") + oneLine(ex));
      if (code == INTERNAL_ERROR) {
        if (main.verbose) {
          StringWriter trace = new StringWriter();
          ex.printStackTrace(new PrintWriter(trace));
          e.print(trace);
        } else {
          e.println("(internal error; run again with --verbose for the stack trace)");
        }
      }
      e.flush();
      return code;
    });
    return cl;
  }

  static int exitCode(Throwable ex) {
    if (ex instanceof UserException || ex instanceof CommandLine.ParameterException) {
      return USER_ERROR;
    }
    if (ex instanceof CommitConflictException) {
      return CONFLICT;
    }
    if (ex instanceof StoreException || ex instanceof CorruptFileException) {
      return INTERNAL_ERROR;
    }
    if (ex instanceof QuiverException) {
      return USER_ERROR;
    }
    return INTERNAL_ERROR;
  }

  private static String oneLine(Throwable ex) {
    String message = ex.getMessage() == null ? ex.getClass().getName() : ex.getMessage();
    if (exitCode(ex) == INTERNAL_ERROR && !(ex instanceof QuiverException)) {
      message = ex.getClass().getSimpleName() + ": " + message;
    }
    return message.replace('\n', ' ');
  }

  /** {@code --version}: the build and the store adapters found on the classpath. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {
          "quiver " + (v == null ? "0.1.0-SNAPSHOT" : v),
          "store schemes: " + String.join(", ", io.quiver.store.ObjectStores.defaultRegistry().schemes())
      };
    }
  }
}
