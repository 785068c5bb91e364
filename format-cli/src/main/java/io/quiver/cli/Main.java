package io.quiver.cli;

import io.quiver.exceptions.CommitConflictException;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreException;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine;

/**
 * The {@code quiver} command. Exit codes, decided in one place ({@link #exitCode}):
 *
 * <ul>
 *   <li>0 success;
 *   <li>1 the user's to fix, one line saying what: a mistake in the command line or its input, and every
 *       store error ({@link io.quiver.exceptions.StoreNotFoundException no such bucket, container or
 *       directory}, {@link io.quiver.exceptions.StoreAccessDeniedException access denied or no
 *       credentials}, {@link io.quiver.exceptions.StoreUnreachableException unreachable endpoint}, and
 *       other store failures); the failing commit, if any, did not happen;
 *   <li>2 commit conflict with a concurrent writer; nothing was committed, run the command again;
 *   <li>3 internal error: a bug (or a corrupt file); the stack trace with {@code --verbose};
 *   <li>4 the commit's outcome is unknown ({@link CommitStateUnknownException}): it may or may not have
 *       committed; {@code quiver log <uri> --transaction <uuid>} tells, before running it again.
 * </ul>
 *
 * <p>With {@code --verbose}, errors of codes 1 (other than command-line mistakes), 3 and 4 are followed by
 * the stack trace.
 */
@Command(
    name = "quiver",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Inspect, import, change and maintain Quiver tables on any object store.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:success",
        "1:user error: bad command line or input, missing table, store not found, access denied, no"
            + " credentials, unreachable endpoint, other store failure (the failing commit did not happen)",
        "2:commit conflict with a concurrent writer (nothing committed; run it again)",
        "3:internal error (a bug or a corrupt file; --verbose prints the stack trace)",
        "4:commit outcome unknown: it may have committed; check with 'quiver log <uri> --transaction <uuid>'"
            + " before running it again"
    },
    subcommands = {
        ImportCommand.class,
        ExportCommand.class,
        ScanCommand.class,
        ChangesCommand.class,
        Commands.Info.class,
        Commands.Log.class,
        Commands.Diff.class,
        Commands.Delete.class,
        Commands.Update.class,
        MergeCommand.class,
        Commands.AddColumn.class,
        Commands.DropColumn.class,
        Commands.RenameColumn.class,
        Commands.Compact.class,
        Commands.Cleanup.class,
        Commands.Restore.class,
        Commands.Tag.class,
        Commands.Index.class,
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
  static final int OUTCOME_UNKNOWN = 4;

  @Option(names = "--verbose", scope = ScopeType.INHERIT,
      description = "Print the stack trace of an error (other than a command-line mistake).")
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
      String prefix = code == CONFLICT ? "conflict: " : code == OUTCOME_UNKNOWN ? "outcome unknown: " : "error: ";
      e.println(prefix + oneLine(ex) + hint(ex));
      if (main.verbose && !(ex instanceof UserException)) {
        StringWriter trace = new StringWriter();
        ex.printStackTrace(new PrintWriter(trace));
        e.print(trace);
      } else if (code == INTERNAL_ERROR) {
        e.println("(internal error; run again with --verbose for the stack trace)");
      }
      e.flush();
      return code;
    });
    return cl;
  }

  /** The exit code of an exception a command threw: the one place the exception hierarchy maps to codes. */
  static int exitCode(Throwable ex) {
    if (ex instanceof UserException || ex instanceof CommandLine.ParameterException) {
      return USER_ERROR;
    }
    // Before StoreException, which it extends: "maybe committed" is not "not committed".
    if (ex instanceof CommitStateUnknownException) {
      return OUTCOME_UNKNOWN;
    }
    if (ex instanceof CommitConflictException) {
      return CONFLICT;
    }
    if (ex instanceof CorruptFileException) {
      return INTERNAL_ERROR;
    }
    // Store errors (StoreNotFoundException, StoreAccessDeniedException, StoreUnreachableException, other
    // StoreExceptions) are the user's to fix, as are missing tables and versions, invalid arguments and
    // schema mismatches: their messages say what to do.
    if (ex instanceof StoreException || ex instanceof QuiverException) {
      return USER_ERROR;
    }
    return INTERNAL_ERROR;
  }

  /** What the command line can add to the message: for an unknown outcome, how to find out. */
  private static String hint(Throwable ex) {
    if (ex instanceof CommitStateUnknownException u && u.transactionUuid().isPresent()) {
      return " To find out: quiver log " + u.location() + " --transaction " + u.transactionUuid().get();
    }
    return "";
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
