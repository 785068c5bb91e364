package io.quiver.spark.write;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.RowDelta;
import io.quiver.dataset.RowDeltaResult;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.spark.TableRef;
import io.quiver.spark.read.QuiverScan;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write half of a {@link QuiverRowLevelOperation}: tasks collect the addresses of deleted rows and write the
 * new rows as fragments against the scanned version; the driver commits every task's deletions and rows as ONE
 * row delta (docs/spark.md, "MERGE INTO, UPDATE and DELETE"), under the idempotence key {@code
 * spark/<queryId>/<command>}, with the scan's fragments as what was read and its pushed filter as the conflict
 * filter. A concurrent commit that changed what the scan read fails the command with a retryable conflict;
 * nothing is published then, and the tasks' files are deleted.
 */
final class QuiverDeltaWrite implements DeltaWrite, DeltaBatchWrite {
  private static final Logger LOG = LoggerFactory.getLogger(QuiverDeltaWrite.class);

  private final TableRef ref;
  private final long readVersion;
  private final Schema schema;
  private final WriteSizes sizes;
  private final Command command;
  private final String key;
  private final QuiverScan scan;
  private volatile boolean outcomeUnknown;
  private volatile RowDeltaResult committed;

  QuiverDeltaWrite(TableRef ref, long readVersion, Schema schema, WriteSizes sizes, Command command, String queryId,
      QuiverScan scan) {
    this.ref = ref;
    this.readVersion = readVersion;
    this.schema = schema;
    this.sizes = sizes;
    this.command = command;
    this.key = "spark/" + queryId + "/" + command.name().toLowerCase(Locale.ROOT);
    this.scan = scan;
  }

  /** The idempotence key this write commits under. */
  String idempotenceKey() {
    return key;
  }

  /** What the last {@link #commit} committed or found; null before. */
  RowDeltaResult committed() {
    return committed;
  }

  @Override
  public String description() {
    return "Quiver " + command.name().toLowerCase(Locale.ROOT) + " " + key + " of " + ref + " at version " + readVersion;
  }

  @Override
  public DeltaBatchWrite toBatch() {
    return this;
  }

  @Override
  public DeltaWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
    return new Factory(new QuiverWriterFactory(ref, readVersion, schema, sizes));
  }

  @Override
  public boolean useCommitCoordinator() {
    return false; // nothing is published until the driver's one commit; duplicate attempts are resolved there
  }

  @Override
  public void commit(WriterCommitMessage[] messages) {
    List<QuiverCommitMessage> first = Commits.firstPerPartition(messages);
    List<WriteResult> results = new ArrayList<>();
    try (Dataset ds = ref.open()) {
      RowDelta delta = ds.distributed().newRowDelta(readVersion)
          .description("spark " + command.name());
      for (QuiverCommitMessage m : first) {
        delta.deleteRows(m.deletedRows());
        // Each written row with the address of the row it replaces (an UPDATE's or a MERGE's matched row), so a
        // table with row ids keeps the id; -1 for an inserted row.
        long[] replaced = m.replacedRows();
        int at = 0;
        for (WriteResult r : m.decode()) {
          if (replaced.length == 0) {
            results.add(r);
            continue;
          }
          delta.addRows(r, java.util.Arrays.copyOfRange(replaced, at, at + (int) r.rows()));
          at += (int) r.rows();
        }
      }
      delta.addRows(results);
      if (scan != null) {
        delta.readFragments(scan.fragmentIds()).conflictFilter(scan.quiverFilter());
      }
      WriteHooks.current().beforeTableCommit(key, readVersion);
      RowDeltaResult r = delta.commit(CommitOptions.defaults().withIdempotenceKey(key));
      committed = r;
      LOG.info("{} {} of {}: {} rows deleted, {} rows written, version {}{}", command, key, ref, r.deletedRows(),
          r.addedRows(), r.version(), r.alreadyCommitted() ? " (already committed)" : "");
      WriteHooks.current().afterTableCommit(key, r.version());
    } catch (CommitStateUnknownException e) {
      outcomeUnknown = true;
      throw e;
    }
  }

  @Override
  public void abort(WriterCommitMessage[] messages) {
    Commits.abort(ref, key, readVersion, messages, outcomeUnknown);
  }

  @Override
  public String toString() {
    return "QuiverDeltaWrite[" + description() + "]";
  }

  /** Shipped to executors: makes one {@link Writer} per task attempt around the append path's data writer. */
  static final class Factory implements DeltaWriterFactory {
    private static final long serialVersionUID = 1L;
    private final QuiverWriterFactory rows;

    Factory(QuiverWriterFactory rows) {
      this.rows = rows;
    }

    @Override
    public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
      return new Writer(new QuiverDataWriter(rows, partitionId, taskId, -1));
    }
  }

  /**
   * One task attempt: deleted rows' addresses in a bitmap, inserted rows and updated rows' new versions through
   * the append path's writer (an update is a delete of the old address plus an insert of the new version, which
   * records the address it replaces). Its abort deletes the files it wrote.
   */
  static final class Writer implements DeltaWriter<InternalRow> {
    private final QuiverDataWriter rows;
    private final org.roaringbitmap.longlong.Roaring64NavigableMap deleted =
        new org.roaringbitmap.longlong.Roaring64NavigableMap();
    /** For each row written, in order, the address of the row it replaces, or -1 for an inserted row. */
    private long[] replaced = new long[1024];
    private int written;

    Writer(QuiverDataWriter rows) {
      this.rows = rows;
    }

    @Override
    public void delete(InternalRow metadata, InternalRow id) {
      deleted.addLong(id.getLong(0));
    }

    @Override
    public void update(InternalRow metadata, InternalRow id, InternalRow row) {
      delete(metadata, id);
      write(row, id.getLong(0));
    }

    @Override
    public void insert(InternalRow row) {
      write(row, -1);
    }

    private void write(InternalRow row, long replacing) {
      rows.write(row);
      if (written == replaced.length) {
        replaced = java.util.Arrays.copyOf(replaced, replaced.length * 2);
      }
      replaced[written++] = replacing;
    }

    @Override
    public WriterCommitMessage commit() {
      return ((QuiverCommitMessage) rows.commit()).withDeletedRows(deleted)
          .withReplacedRows(java.util.Arrays.copyOf(replaced, written));
    }

    @Override
    public void abort() {
      rows.abort();
    }

    @Override
    public void close() {
      rows.close();
    }
  }
}
