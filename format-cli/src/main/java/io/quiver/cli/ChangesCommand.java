package io.quiver.cli;

import io.quiver.dataset.ChangeScan;
import io.quiver.dataset.Dataset;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code quiver changes}: the change feed between two versions of a table with row ids. */
@Command(name = "changes",
    description = "Prints what versions FROM+1 to TO changed, row by row (a table with row ids: table configuration"
        + " row-ids = true): each inserted, deleted and updated row with _change_type, _commit_version,"
        + " _commit_timestamp and _rowid.",
    footer = "%nExample: quiver changes /tmp/t --from 3 --to 7 --columns id,name --format jsonl")
final class ChangesCommand extends TableCommand {
  @Option(names = "--from", required = true, paramLabel = "<version>",
      description = "The version the changes start after.")
  long from;

  @Option(names = "--to", paramLabel = "<version>", description = "The last version whose changes to print"
      + " (default: latest).")
  Long to;

  @Option(names = {"-c", "--columns"}, split = ",", paramLabel = "<col>",
      description = "Columns to print, as named at --to (default: all).")
  List<String> columns;

  @Option(names = {"-w", "--where"}, paramLabel = "<condition>",
      description = "Only changes whose row image matches, e.g. \"id > 5\" (on the printed columns).")
  String where;

  @Option(names = {"-n", "--limit"}, paramLabel = "<rows>", description = "Print at most this many changes.")
  Long limit;

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
  boolean help;

  @Option(names = {"-f", "--format"}, description = "Output: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
  ScanCommand.Format format = ScanCommand.Format.table;

  @Override
  void run() throws IOException {
    if (limit != null && limit < 0) {
      throw new UserException("--limit must be 0 or more, got " + limit);
    }
    try (Dataset ds = open()) {
      long last = to != null ? to : ds.version();
      ChangeScan scan = ds.changes(from, last);
      try (Dataset at = ds.checkout(last)) {
        if (columns != null) {
          for (String c : columns) {
            if (at.schema().findField(c).isEmpty()) {
              throw new UserException("unknown column '" + c + "' at version " + last + "; columns are "
                  + at.schema().fields().stream().map(io.quiver.schema.Field::name).toList());
            }
          }
          scan.columns(columns);
        }
        if (where != null) {
          scan.filter(WhereParser.parse(where, at.schema()));
        }
      }
      if (limit != null) {
        scan.limit(limit);
      }
      long printed = 0;
      try (ArrowReader reader = scan.open()) {
        List<String> names = new ArrayList<>();
        reader.getVectorSchemaRoot().getSchema().getFields().forEach(f -> names.add(f.getName()));
        ScanCommand.Sink sink = ScanCommand.sink(out(), names, format);
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          List<FieldVector> vectors = root.getFieldVectors();
          for (int i = 0; i < root.getRowCount(); i++) {
            Object[] row = new Object[vectors.size()];
            for (int c = 0; c < row.length; c++) {
              row[c] = Table.value(vectors.get(c), i);
            }
            sink.row(row);
            printed++;
          }
        }
        sink.finish(printed);
      }
    }
  }
}
