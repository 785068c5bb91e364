package io.quiver.cli;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CleanupReport;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionResult;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DeleteResult;
import io.quiver.dataset.UpdateResult;
import io.quiver.dataset.ValidationReport;
import io.quiver.dataset.VersionInfo;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** The table commands that fit on a page each. */
final class Commands {
  private Commands() {}

  // ------------------------------------------------------------------ inspecting

  @Command(name = "info",
      description = "Schema with field ids, versions, fragments, rows and bytes.",
      footer = "%nExample: quiver info /tmp/t")
  static final class Info extends TableCommand {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;

    @Option(names = "--version", paramLabel = "<n>", description = "Describe this version (default: latest).")
    Long version;

    @Override
    void run() {
      try (Dataset latest = open(); Dataset ds = version == null ? latest.checkout(latest.version())
          : latest.checkout(version)) {
        Manifest m = ds.manifest();
        PrintWriter out = out();
        List<VersionInfo> versions = latest.versions();
        long bytes = 0;
        long deleted = 0;
        for (Fragment f : m.fragments()) {
          for (DataFile file : f.files()) {
            bytes += file.sizeBytes();
          }
          if (f.deletionFile().isPresent()) {
            bytes += f.deletionFile().get().sizeBytes();
            deleted += f.deletionFile().get().deletedRows();
          }
        }
        out.println("table:     " + ds.uri());
        out.println("version:   " + m.version() + " (latest " + latest.version() + ", " + versions.size()
            + " versions kept: " + (versions.isEmpty() ? "-" : versions.get(versions.size() - 1).version() + ".."
            + versions.get(0).version()) + ")");
        out.println("fragments: " + m.fragments().size());
        out.println("rows:      " + m.liveRows() + (deleted > 0 ? " (" + deleted + " deleted)" : ""));
        out.println("bytes:     " + bytes + " (" + human(bytes) + ")");
        out.println("ledger:    " + m.ledger().map(l -> l.keys().size() + " idempotence keys, " + l.sequences().size()
            + " application watermarks, complete from version " + l.completeFromVersion())
            .orElse("none (format 1.0; the next commit adds it)"));
        out.println("schema:");
        List<String[]> rows = new ArrayList<>();
        Schema schema = m.schema();
        for (Field f : schema.allFields()) {
          rows.add(new String[] {"  " + schema.pathOf(f.id()), Types.name(f.type()),
              f.nullable() ? "nullable" : "not null", "field id " + f.id()});
        }
        Table.aligned(out, null, rows);
        if (!m.config().isEmpty()) {
          out.println("config:    " + new TreeMap<>(m.config()));
        }
      }
    }

    static String human(long bytes) {
      String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
      double v = bytes;
      int u = 0;
      while (v >= 1024 && u < units.length - 1) {
        v /= 1024;
        u++;
      }
      return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
  }

  @Command(name = "log", mixinStandardHelpOptions = true,
      description = "Versions, newest first: operation, time, read version, properties.",
      footer = {"%nWith --transaction, only the version that transaction committed as: after exit code 4"
          + " (outcome unknown), exit 0 and its version mean it committed; exit 1 \"no version ... holds"
          + " transaction\" means it did not.",
          "%nExample: quiver log /tmp/t"})
  static final class Log extends TableCommand {
    @Option(names = {"-n", "--limit"}, description = "Show at most this many versions.")
    Integer limit;

    @Option(names = "--transaction", paramLabel = "<uuid>",
        description = "Show only the version holding this transaction; exit 1 if no version does.")
    String transaction;

    @Override
    void run() {
      try (Dataset ds = open()) {
        List<String[]> rows = new ArrayList<>();
        int n = 0;
        for (VersionInfo v : ds.versions()) {
          if (transaction != null && !transaction.equals(v.transactionUuid())) {
            continue;
          }
          if (limit != null && n++ >= limit) {
            break;
          }
          Map<String, String> props = new TreeMap<>(v.properties());
          String key = props.entrySet().stream().filter(e -> e.getKey().toLowerCase(Locale.ROOT).contains("idempoten"))
              .map(Map.Entry::getValue).findFirst().orElse("-");
          rows.add(new String[] {String.valueOf(v.version()), v.timestamp().toString(), v.operation(),
              String.valueOf(v.readVersion()), String.valueOf(v.rows()), String.valueOf(v.fragments()), key,
              props.isEmpty() ? "-" : props.toString()});
        }
        if (transaction != null && rows.isEmpty()) {
          throw new UserException("no version of " + uri + " holds transaction " + transaction
              + ": it did not commit (or a cleanup has removed its version since)");
        }
        Table.aligned(out(), new String[] {"version", "time", "operation", "read", "rows", "fragments",
            "idempotence key", "properties"}, rows);
      }
    }
  }

  @Command(name = "diff", mixinStandardHelpOptions = true,
      description = "Fragments and fields added, removed or changed between two versions.",
      footer = "%nExample: quiver diff /tmp/t 1 3")
  static final class Diff extends TableCommand {
    @Parameters(index = "1", paramLabel = "<v1>")
    long from;

    @Parameters(index = "2", paramLabel = "<v2>")
    long to;

    @Override
    void run() {
      try (Dataset latest = open(); Dataset a = latest.checkout(from); Dataset b = latest.checkout(to)) {
        PrintWriter out = out();
        Manifest ma = a.manifest();
        Manifest mb = b.manifest();
        out.println("diff " + from + " -> " + to + ": rows " + ma.liveRows() + " -> " + mb.liveRows()
            + ", fragments " + ma.fragments().size() + " -> " + mb.fragments().size());
        Map<Long, Fragment> fa = new TreeMap<>();
        ma.fragments().forEach(f -> fa.put(f.id(), f));
        Map<Long, Fragment> fb = new TreeMap<>();
        mb.fragments().forEach(f -> fb.put(f.id(), f));
        int changes = 0;
        for (Fragment f : fb.values()) {
          Fragment old = fa.get(f.id());
          if (old == null) {
            out.println("+ fragment " + f.id() + " (" + f.physicalRows() + " rows)");
            changes++;
          } else if (!old.equals(f)) {
            out.println("~ fragment " + f.id() + " (" + describeChange(old, f) + ")");
            changes++;
          }
        }
        for (Fragment f : fa.values()) {
          if (!fb.containsKey(f.id())) {
            out.println("- fragment " + f.id() + " (" + f.physicalRows() + " rows)");
            changes++;
          }
        }
        Schema sa = ma.schema();
        Schema sb = mb.schema();
        for (Field f : sb.allFields()) {
          var old = sa.findField(f.id());
          if (old.isEmpty()) {
            out.println("+ field " + sb.pathOf(f.id()) + " " + Types.name(f.type()) + " (id " + f.id() + ")");
            changes++;
          } else if (!sameField(old.get(), f) || !sa.pathOf(f.id()).equals(sb.pathOf(f.id()))) {
            out.println("~ field id " + f.id() + ": " + sa.pathOf(f.id()) + " " + Types.name(old.get().type())
                + (old.get().nullable() ? " nullable" : " not null") + " -> " + sb.pathOf(f.id()) + " "
                + Types.name(f.type()) + (f.nullable() ? " nullable" : " not null"));
            changes++;
          }
        }
        for (Field f : sa.allFields()) {
          if (sb.findField(f.id()).isEmpty()) {
            out.println("- field " + sa.pathOf(f.id()) + " (id " + f.id() + ")");
            changes++;
          }
        }
        if (changes == 0) {
          out.println("no fragment or field changed");
        }
      }
    }

    private static boolean sameField(Field a, Field b) {
      return a.name().equals(b.name()) && a.type().equals(b.type()) && a.nullable() == b.nullable();
    }

    private static String describeChange(Fragment a, Fragment b) {
      List<String> what = new ArrayList<>();
      if (!a.deletionFile().equals(b.deletionFile())) {
        what.add("deleted rows " + a.deletionFile().map(DeletionFile::deletedRows).orElse(0L) + " -> "
            + b.deletionFile().map(DeletionFile::deletedRows).orElse(0L));
      }
      if (!a.files().equals(b.files())) {
        what.add("data files " + a.files().size() + " -> " + b.files().size());
      }
      if (!a.overlays().equals(b.overlays())) {
        what.add("overlays " + a.overlays().size() + " -> " + b.overlays().size());
      }
      return what.isEmpty() ? "changed" : String.join(", ", what);
    }
  }

  @Command(name = "validate", mixinStandardHelpOptions = true,
      description = "Checks that every file a version refers to exists and is readable, and that its column"
          + " statistics bound the values it stores.",
      footer = "%nExample: quiver validate /tmp/t")
  static final class Validate extends TableCommand {
    @Override
    void run() {
      try (Dataset ds = open()) {
        ValidationReport report = ds.validate();
        if (report.isValid()) {
          out().println("version " + report.version() + " is valid (" + report.filesChecked() + " files checked)");
        } else {
          report.problems().forEach(p -> out().println(p));
          throw new UserException("version " + report.version() + " has " + report.problems().size()
              + " problem(s); see above");
        }
      }
    }
  }

  // ------------------------------------------------------------------ changing rows

  @Command(name = "delete", mixinStandardHelpOptions = true,
      description = "Deletes the rows matching --where.",
      footer = "%nExample: quiver delete /tmp/t --where \"id < 10\"")
  static final class Delete extends TableCommand {
    @Option(names = "--where", required = true, paramLabel = "<condition>", description = "Rows to delete.")
    String where;

    @Override
    void run() {
      try (Dataset ds = open()) {
        Predicate p = WhereParser.parse(where, ds.schema());
        DeleteResult r = ds.delete(p);
        out().println("deleted " + r.deletedRows() + " rows; version " + r.version());
      }
    }
  }

  @Command(name = "update", mixinStandardHelpOptions = true,
      description = "Sets columns of the rows matching --where.",
      footer = "%nExample: quiver update /tmp/t --set name='x' --set n=0 --where \"id = 3\"")
  static final class Update extends TableCommand {
    @Option(names = "--set", required = true, paramLabel = "col=value",
        description = "New value (repeatable): a number, 'quoted text', TRUE, FALSE or NULL.")
    List<String> sets;

    @Option(names = "--where", paramLabel = "<condition>", description = "Rows to update (default: all).")
    String where;

    @Override
    void run() {
      try (Dataset ds = open()) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (String s : sets) {
          int eq = s.indexOf('=');
          if (eq <= 0) {
            throw new UserException("--set expects col=value, got '" + s + "'");
          }
          String col = s.substring(0, eq).trim();
          if (ds.schema().findField(col).isEmpty()) {
            throw new UserException("unknown column '" + col + "' in --set; columns are "
                + ds.schema().fields().stream().map(Field::name).toList());
          }
          values.put(col, WhereParser.parseValue(s.substring(eq + 1).trim(), col, ds.schema()));
        }
        Predicate p = where == null ? Predicate.TRUE : WhereParser.parse(where, ds.schema());
        UpdateResult r = ds.update(p, values);
        out().println("updated " + r.updatedRows() + " rows; version " + r.version());
      }
    }
  }

  // ------------------------------------------------------------------ schema

  @Command(name = "add-column", mixinStandardHelpOptions = true,
      description = "Adds nullable columns, all null (metadata only).",
      footer = "%nTypes: " + Types.NAMES + "%nExample: quiver add-column /tmp/t score:float64 note:string")
  static final class AddColumn extends TableCommand {
    @Parameters(index = "1..*", arity = "1..*", paramLabel = "name:type")
    List<String> columns;

    @Override
    void run() {
      List<org.apache.arrow.vector.types.pojo.Field> fields = new ArrayList<>();
      for (String c : columns) {
        int colon = c.lastIndexOf(':');
        if (colon <= 0 || colon == c.length() - 1) {
          throw new UserException("expected name:type, got '" + c + "'; types: " + Types.NAMES);
        }
        fields.add(org.apache.arrow.vector.types.pojo.Field.nullable(c.substring(0, colon),
            Types.parse(c.substring(colon + 1))));
      }
      try (Dataset ds = open()) {
        long v = ds.columns().add(fields);
        out().println("added " + fields.stream().map(f -> f.getName()).toList() + "; version " + v);
      }
    }
  }

  @Command(name = "drop-column", mixinStandardHelpOptions = true,
      description = "Drops columns or struct members (metadata only).",
      footer = "%nExample: quiver drop-column /tmp/t note")
  static final class DropColumn extends TableCommand {
    @Parameters(index = "1..*", arity = "1..*", paramLabel = "<column>")
    List<String> columns;

    @Override
    void run() {
      try (Dataset ds = open()) {
        long v = ds.columns().drop(columns.toArray(String[]::new));
        out().println("dropped " + columns + "; version " + v);
      }
    }
  }

  @Command(name = "rename-column", mixinStandardHelpOptions = true,
      description = "Renames a column or struct member.",
      footer = "%nExample: quiver rename-column /tmp/t score rating")
  static final class RenameColumn extends TableCommand {
    @Parameters(index = "1", paramLabel = "<column>")
    String column;

    @Parameters(index = "2", paramLabel = "<new-name>")
    String newName;

    @Override
    void run() {
      try (Dataset ds = open()) {
        long v = ds.columns().rename(column, newName);
        out().println("renamed " + column + " to " + newName + "; version " + v);
      }
    }
  }

  // ------------------------------------------------------------------ maintenance

  @Command(name = "compact", mixinStandardHelpOptions = true,
      description = "Merges small fragments and materializes deletions.",
      footer = "%nExample: quiver compact /tmp/t")
  static final class Compact extends TableCommand {
    @Option(names = "--target-rows", description = "Rows per output fragment (default ${DEFAULT-VALUE}).")
    long targetRows = CompactionOptions.DEFAULT_TARGET_ROWS_PER_FRAGMENT;

    @Override
    void run() {
      try (Dataset ds = open(); Progress progress = new Progress(err(), "compact", 1)) {
        CompactionResult r = ds.compact(CompactionOptions.defaults().withTargetRowsPerFragment(targetRows));
        progress.advance(1);
        out().println("compacted " + r.fragmentsRemoved() + " fragments into " + r.fragmentsAdded() + " ("
            + r.rowsRewritten() + " rows rewritten); version " + r.version());
      }
    }
  }

  @Command(name = "cleanup", mixinStandardHelpOptions = true,
      description = "Removes old versions and the files only they used.",
      footer = "%nExample: quiver cleanup /tmp/t --older-than 7d")
  static final class Cleanup extends TableCommand {
    @Option(names = "--older-than", paramLabel = "<duration>",
        description = "Remove versions older than this: 30s, 15m, 2h, 7d or ISO-8601 (default 7d).")
    String olderThan;

    @Option(names = "--safety-window", paramLabel = "<duration>",
        description = "Never remove files younger than this (default 1h).")
    String safetyWindow;

    @Option(names = "--dry-run", description = "Only report what would be removed.")
    boolean dryRun;

    @Override
    void run() {
      CleanupOptions.Builder b = CleanupOptions.builder().dryRun(dryRun);
      if (olderThan != null) {
        b.olderThan(duration("--older-than", olderThan));
      }
      if (safetyWindow != null) {
        b.safetyWindow(duration("--safety-window", safetyWindow));
      }
      CleanupOptions opts = b.build();
      try (Dataset ds = open(); Progress progress = new Progress(err(), "cleanup", 1)) {
        CleanupReport r = ds.cleanup(opts);
        progress.advance(1);
        out().println((r.dryRun() ? "would remove " : "removed ") + r.versionsRemoved().size() + " versions, "
            + r.filesRemoved() + " files (" + Info.human(r.bytesFreed()) + ")"
            + (r.failed().isEmpty() ? "" : "; " + r.failed().size() + " files could not be removed"));
      }
    }
  }

  static Duration duration(String option, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.matches("\\d+[smhd]")) {
        long n = Long.parseLong(t.substring(0, t.length() - 1));
        switch (t.charAt(t.length() - 1)) {
          case 's':
            return Duration.ofSeconds(n);
          case 'm':
            return Duration.ofMinutes(n);
          case 'h':
            return Duration.ofHours(n);
          default:
            return Duration.ofDays(n);
        }
      }
      return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new UserException(option + " expects a duration such as 30s, 15m, 2h, 7d or PT1H, got '" + text + "'");
    }
  }

  @Command(name = "restore", mixinStandardHelpOptions = true,
      description = "Commits a new version equal to an old one.", footer = "%nExample: quiver restore /tmp/t 2")
  static final class Restore extends TableCommand {
    @Parameters(index = "1", paramLabel = "<version>")
    long version;

    @Override
    void run() {
      try (Dataset ds = open()) {
        long v = ds.restore(version);
        out().println("restored version " + version + " as version " + v);
      }
    }
  }

  @Command(name = "tag", mixinStandardHelpOptions = true,
      description = "Names versions.", footer = "%nExample: quiver tag create /tmp/t release-1 3",
      subcommands = {Tag.Create.class, Tag.ListTags.class, Tag.DeleteTag.class})
  static final class Tag implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand: create, list or delete");
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
        description = "Tags a version (default: latest).",
        footer = "%nExample: quiver tag create /tmp/t release-1 3")
    static final class Create extends TableCommand {
      @Parameters(index = "1", paramLabel = "<name>")
      String name;

      @Parameters(index = "2", arity = "0..1", paramLabel = "<version>")
      Long version;

      @Override
      void run() {
        try (Dataset ds = open()) {
          long v = version == null ? ds.version() : version;
          ds.tags().create(name, v);
          out().println("tagged version " + v + " as " + name);
        }
      }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists tags.",
        footer = "%nExample: quiver tag list /tmp/t")
    static final class ListTags extends TableCommand {
      @Override
      void run() {
        try (Dataset ds = open()) {
          SortedMap<String, Long> tags = ds.tags().list();
          if (tags.isEmpty()) {
            out().println("no tags");
          }
          List<String[]> rows = new ArrayList<>();
          tags.forEach((k, v) -> rows.add(new String[] {k, String.valueOf(v)}));
          if (!rows.isEmpty()) {
            Table.aligned(out(), new String[] {"tag", "version"}, rows);
          }
        }
      }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
        description = "Deletes a tag.", footer = "%nExample: quiver tag delete /tmp/t release-1")
    static final class DeleteTag extends TableCommand {
      @Parameters(index = "1", paramLabel = "<name>")
      String name;

      @Override
      void run() {
        try (Dataset ds = open()) {
          ds.tags().delete(name);
          out().println("deleted tag " + name);
        }
      }
    }
  }

  @Command(name = "index", mixinStandardHelpOptions = true,
      description = "Scalar indices (btree, bitmap): create, list, optimize, drop.",
      footer = "%nExample: quiver index create /tmp/t by_id btree id",
      subcommands = {Index.Create.class, Index.ListIndices.class, Index.Optimize.class, Index.Drop.class})
  static final class Index implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand: create, list, optimize or drop");
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
        description = "Builds an index of a column (dotted for struct members) over the latest version and commits it.",
        footer = "%nExample: quiver index create /tmp/t by_city bitmap address.city")
    static final class Create extends TableCommand {
      @Parameters(index = "1", paramLabel = "<name>")
      String name;

      @Parameters(index = "2", paramLabel = "<kind>", description = "btree or bitmap")
      String kind;

      @Parameters(index = "3", paramLabel = "<column>")
      String column;

      @Override
      void run() {
        io.quiver.manifest.ScalarIndex.Kind k;
        try {
          k = io.quiver.manifest.ScalarIndex.Kind.of(kind);
        } catch (IllegalArgumentException e) {
          throw new UserException(e.getMessage());
        }
        try (Dataset ds = open()) {
          io.quiver.manifest.ScalarIndex index = ds.indices().create(name, k, column);
          out().println("created " + k.label() + " index " + name + " on " + column + " as version " + ds.version()
              + " (" + index.rows() + " rows, " + index.sizeBytes() + " bytes)");
        }
      }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists indices and what they cover.",
        footer = "%nExample: quiver index list /tmp/t")
    static final class ListIndices extends TableCommand {
      @Override
      void run() {
        try (Dataset ds = open()) {
          if (ds.indices().list().isEmpty()) {
            out().println("no indices");
            return;
          }
          List<String[]> rows = new ArrayList<>();
          for (io.quiver.manifest.ScalarIndex i : ds.indices().list()) {
            io.quiver.dataset.Indices.Coverage c = ds.indices().coverage(i.name());
            rows.add(new String[] {i.name(), i.kind().label(), ds.schema().pathOf(i.fieldId()),
                String.valueOf(i.segments().size()), String.valueOf(i.sizeBytes()),
                c.coveredFragments() + "/" + (c.coveredFragments() + c.uncoveredFragments()),
                String.valueOf(c.uncoveredRows())});
          }
          Table.aligned(out(), new String[] {"index", "kind", "column", "segments", "bytes", "fragments covered",
              "rows to optimize"}, rows);
        }
      }
    }

    @Command(name = "optimize", mixinStandardHelpOptions = true,
        description = "Indexes the fragments added or changed since the index was built (commits nothing if none).",
        footer = "%nExample: quiver index optimize /tmp/t by_id")
    static final class Optimize extends TableCommand {
      @Parameters(index = "1", paramLabel = "<name>")
      String name;

      @Override
      void run() {
        try (Dataset ds = open()) {
          long before = ds.version();
          ds.indices().optimize(name);
          out().println(ds.version() == before ? "index " + name + " already covers every fragment"
              : "optimized index " + name + " as version " + ds.version());
        }
      }
    }

    @Command(name = "drop", mixinStandardHelpOptions = true, description = "Drops an index.",
        footer = "%nExample: quiver index drop /tmp/t by_id")
    static final class Drop extends TableCommand {
      @Parameters(index = "1", paramLabel = "<name>")
      String name;

      @Override
      void run() {
        try (Dataset ds = open()) {
          out().println("dropped index " + name + " as version " + ds.indices().drop(name));
        }
      }
    }
  }

  @Command(name = "schemes", hidden = true, mixinStandardHelpOptions = true,
      description = "Lists the store schemes found through ServiceLoader.")
  static final class Schemes implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      io.quiver.store.ObjectStores.defaultRegistry().schemes().forEach(spec.commandLine().getOut()::println);
      spec.commandLine().getOut().flush();
      return Main.OK;
    }
  }

  static String orDash(Object o) {
    return Objects.toString(o, "-");
  }
}
