package io.quiver.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.ScanMetrics;
import io.quiver.dataset.Scanner;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code quiver scan}: rows of a version, filtered and projected, as a table, CSV or JSON lines. */
@Command(name = "scan",
    description = "Prints rows.",
    footer = "%nExample: quiver scan /tmp/t --columns id,name --where \"id > 5 AND name IS NOT NULL\""
        + " --limit 10")
final class ScanCommand extends TableCommand {
  enum Format { table, csv, jsonl }

  @Option(names = {"-c", "--columns"}, split = ",", paramLabel = "<col>",
      description = "Columns to print (default: all).")
  List<String> columns;

  @Option(names = {"-w", "--where"}, paramLabel = "<condition>",
      description = "Filter, e.g. \"id > 5 AND (name = 'x' OR s.y IS NULL) AND id IN (1,2)\".")
  String where;

  @Option(names = {"-n", "--limit"}, paramLabel = "<rows>", description = "Print at most this many rows.")
  Long limit;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  @Option(names = "--version", paramLabel = "<n>", description = "Read this version (default: latest).")
  Long version;

  @Option(names = "--tag", paramLabel = "<name>", description = "Read the version this tag names.")
  String tag;

  @Option(names = "--threads", paramLabel = "<n>",
      description = "Decode fragments on this many threads; rows print in table order (default 1).")
  int threads = 1;

  @Option(names = "--stats",
      description = "After the rows, print on stderr what the scan read: fragments and batches considered and"
          + " pruned by the column statistics, data files opened, bytes fetched, rows returned.")
  boolean stats;

  @Option(names = {"-f", "--format"}, description = "Output: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
  Format format = Format.table;

  @Override
  void run() throws IOException {
    if (version != null && tag != null) {
      throw new UserException("give --version or --tag, not both");
    }
    if (limit != null && limit < 0) {
      throw new UserException("--limit must be 0 or more, got " + limit);
    }
    if (threads < 1 || threads > 256) {
      throw new UserException("--threads must be between 1 and 256, got " + threads);
    }
    try (Dataset latest = open();
        Dataset ds = version != null ? latest.checkout(version) : tag != null ? latest.checkout(tag)
            : latest.checkout(latest.version())) {
      List<String> output = columns != null ? columns
          : ds.schema().fields().stream().map(io.quiver.schema.Field::name).toList();
      for (String c : output) {
        if (ds.schema().findField(c).isEmpty()) {
          throw new UserException("unknown column '" + c + "'; columns are "
              + ds.schema().fields().stream().map(io.quiver.schema.Field::name).toList());
        }
      }
      ScanMetrics metrics = new ScanMetrics();
      Scanner scanner = ds.newScan().columns(output).parallelism(threads);
      if (stats) {
        scanner.metrics(metrics);
      }
      if (where != null) {
        // Exact: the scan returns only the rows the condition is true for; its columns need not be printed.
        scanner.filter(WhereParser.parse(where, ds.schema()));
      }
      if (limit != null) {
        scanner.limit(limit);
      }
      Sink sink = sink(out(), output, format);
      long printed = 0;
      try (ArrowReader reader = scanner.open()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          List<FieldVector> vectors = output.stream().map(root::getVector).toList();
          for (int i = 0; i < root.getRowCount(); i++) {
            Object[] row = new Object[vectors.size()];
            for (int c = 0; c < row.length; c++) {
              row[c] = Table.value(vectors.get(c), i);
            }
            sink.row(row);
            printed++;
          }
        }
      }
      sink.finish(printed);
      if (stats) {
        printStats(metrics);
      }
    }
  }

  private void printStats(ScanMetrics m) {
    PrintWriter err = err();
    err.println("scan statistics:");
    err.println("  fragments: " + m.fragmentsConsidered() + " considered, " + m.fragmentsPruned() + " pruned, "
        + (m.fragmentsConsidered() - m.fragmentsPruned()) + " read");
    err.println("  batches:   " + m.batchesConsidered() + " considered, " + m.batchesPruned() + " pruned, "
        + (m.batchesConsidered() - m.batchesPruned()) + " read");
    if (m.fragmentsAnsweredByIndex() + m.fragmentsScannedWithoutIndex() > 0) {
      err.println("  indices:   " + m.fragmentsAnsweredByIndex() + " fragments answered by an index, "
          + m.fragmentsScannedWithoutIndex() + " scanned without one, " + m.fragmentsDecidedByIndex()
          + " with part or all of the filter decided by the index");
    }
    err.println("  data files opened: " + m.dataFilesOpened());
    err.println("  bytes fetched:     " + m.bytesFetched());
    err.println("  rows returned:     " + m.rowsReturned());
    err.flush();
  }

  interface Sink {
    void row(Object[] values) throws IOException;

    void finish(long rows) throws IOException;
  }

  /** Prints rows named {@code names} to {@code out} in {@code format} (shared with {@code quiver changes}). */
  static Sink sink(PrintWriter out, List<String> names, Format format) throws IOException {
    switch (format) {
      case csv: {
        CSVPrinter printer = new CSVPrinter(out, CSVFormat.DEFAULT.builder().setHeader(names.toArray(String[]::new))
            .setRecordSeparator("\n").get());
        return new Sink() {
          @Override
          public void row(Object[] values) throws IOException {
            printer.printRecord(values);
          }

          @Override
          public void finish(long rows) throws IOException {
            printer.flush();
          }
        };
      }
      case jsonl: {
        ObjectMapper mapper = new ObjectMapper();
        return new Sink() {
          @Override
          public void row(Object[] values) throws IOException {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int c = 0; c < values.length; c++) {
              m.put(names.get(c), values[c]);
            }
            out.println(mapper.writeValueAsString(m));
          }

          @Override
          public void finish(long rows) {
            out.flush();
          }
        };
      }
      default: {
        List<String[]> rows = new ArrayList<>();
        return new Sink() {
          @Override
          public void row(Object[] values) {
            String[] r = new String[values.length];
            for (int c = 0; c < r.length; c++) {
              r[c] = values[c] == null ? "null" : values[c].toString();
            }
            rows.add(r);
          }

          @Override
          public void finish(long count) {
            Table.aligned(out, names.toArray(String[]::new), rows);
            out.println("(" + count + (count == 1 ? " row)" : " rows)"));
          }
        };
      }
    }
  }
}
