package io.quiver.internal.ops;

import io.quiver.dataset.CompactionOptions;
import io.quiver.internal.read.Deletions;
import io.quiver.internal.read.FragmentReader;
import io.quiver.internal.read.ScanSpec;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.write.CompressionConfig;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.RowLineage;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * Compaction, in two steps a distributed compaction runs in different processes: {@link #plan} picks the
 * groups of fragments that qualify (see {@link CompactionOptions}) at the compactor's manifest, and {@link
 * #rewrite} reads one group's live rows with overlays merged and writes them into new fragments through
 * the {@link FragmentWriter}. Nothing is committed here; the files are written through the compactor's
 * {@link TableIo} (a mutation's, which deletes them if the commit fails, or a worker's, whose files are the
 * caller's until a commit publishes them).
 */
final public class Compactor {
  private final TableIo io;
  private final Manifest manifest;
  private final BufferAllocator allocator;
  private final int rowsPerBatch;

  public Compactor(TableIo io, Manifest manifest, BufferAllocator allocator, int rowsPerBatch) {
    this.io = io;
    this.manifest = manifest;
    this.allocator = allocator;
    this.rowsPerBatch = rowsPerBatch;
  }

  /** Runs of adjacent qualifying fragments worth rewriting, in manifest order (empty: nothing qualifies). */
  public List<List<Fragment>> plan(CompactionOptions options) {
    List<List<Fragment>> runs = new ArrayList<>();
    List<Fragment> run = new ArrayList<>();
    for (Fragment f : manifest.fragments()) {
      if (qualifies(f, options)) {
        run.add(f);
      } else {
        close(run, runs, options);
        run = new ArrayList<>();
      }
    }
    close(run, runs, options);
    return runs;
  }

  private static boolean qualifies(Fragment f, CompactionOptions options) {
    return f.liveRows() < options.smallFragmentRows() || needsMaterializing(f, options);
  }

  private static boolean needsMaterializing(Fragment f, CompactionOptions options) {
    return (options.materializeDeletions() && f.deletionFile().isPresent())
        || (options.materializeOverlays() && !f.overlays().isEmpty());
  }

  private static void close(List<Fragment> run, List<List<Fragment>> runs, CompactionOptions options) {
    if (run.isEmpty()) {
      return;
    }
    if (run.size() == 1 && !needsMaterializing(run.get(0), options)) {
      return; // a lone small fragment: rewriting it would give the same fragment
    }
    runs.add(run);
  }

  /**
   * Rewrites one group of {@link #plan}: its live rows, deletions applied and overlays merged, into new
   * fragments (placeholder ids) of up to the options' target size, in the group's order.
   */
  public Operation.RewriteGroup rewrite(List<Fragment> run, CompactionOptions options) {
    Schema schema = manifest.schema();
    FragmentWriter writer =
        new FragmentWriter(io.store(), schema, allocator, rowsPerBatch, options.targetRowsPerFragment(),
            CompressionConfig.of(manifest.config()));
    List<Fragment> written;
    try (LiveRows live = new LiveRows(run, schema)) {
      written = writer.write(live);
    }
    if (manifest.hasRowIds()) {
      written = withLineage(run, written);
    }
    return new Operation.RewriteGroup(run.stream().map(Fragment::id).toList(), written);
  }

  /**
   * {@code written} with the lineage of the rows they copied: the live rows of {@code run}, in its order, keep
   * their ids and versions (a compaction changes where rows are, never what they are).
   */
  private List<Fragment> withLineage(List<Fragment> run, List<Fragment> written) {
    List<RowLineage> live = new ArrayList<>();
    for (Fragment f : run) {
      RowLineage l = f.lineage().orElseThrow(() -> new IllegalStateException(
          "fragment " + f.id() + " of a table with row ids has no row lineage"));
      RoaringBitmap deleted = Deletions.of(io, f);
      live.add(deleted.isEmpty() ? l : l.select(o -> !deleted.contains((int) o)));
    }
    RowLineage all = RowLineage.concat(live);
    long copied = written.stream().mapToLong(Fragment::physicalRows).sum();
    if (copied != all.rows()) {
      throw new IllegalStateException("compaction wrote " + copied + " rows of " + all.rows() + " live ones");
    }
    List<Fragment> out = new ArrayList<>();
    long at = 0;
    for (Fragment f : written) {
      out.add(f.withLineage(java.util.Optional.of(all.slice(at, at + f.physicalRows()))));
      at += f.physicalRows();
    }
    return out;
  }

  /**
   * The live rows of some fragments, overlays merged, one chunk at a time. Each batch it returns is
   * closed when the next is asked for, or on {@link #close()}.
   */
  private final class LiveRows implements Iterator<VectorSchemaRoot>, AutoCloseable {
    private final Iterator<Fragment> fragments;
    private final Schema schema;
    private FragmentReader reader;
    private RoaringBitmap deleted;
    private Iterator<FragmentReader.Chunk> chunks;
    private VectorSchemaRoot current;
    private VectorSchemaRoot next;

    LiveRows(List<Fragment> fragments, Schema schema) {
      this.fragments = fragments.iterator();
      this.schema = schema;
    }

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      closeCurrent();
      while (true) {
        if (chunks == null || !chunks.hasNext()) {
          closeReader();
          if (!fragments.hasNext()) {
            return false;
          }
          Fragment fragment = fragments.next();
          deleted = Deletions.of(io, fragment);
          reader = new FragmentReader(io, fragment, schema, schema, allocator);
          chunks = reader.plan(ScanSpec.DEFAULT_BATCH_SIZE).iterator();
          continue;
        }
        FragmentReader.Chunk chunk = chunks.next();
        long end = chunk.start() + chunk.length();
        long gone = deleted.rangeCardinality(chunk.start(), end);
        if (gone == chunk.length()) {
          continue;
        }
        VectorSchemaRoot physical = reader.read(chunk);
        next = gone == 0 ? physical : liveOnly(physical, chunk);
        return true;
      }
    }

    private VectorSchemaRoot liveOnly(VectorSchemaRoot physical, FragmentReader.Chunk chunk) {
      try (physical) {
        VectorSchemaRoot out = VectorSchemaRoot.create(schema.toArrow(), allocator);
        try {
          out.allocateNew();
          int n = 0;
          for (int i = 0; i < chunk.length(); i++) {
            if (deleted.contains((int) (chunk.start() + i))) {
              continue;
            }
            for (int c = 0; c < physical.getFieldVectors().size(); c++) {
              FieldVector to = out.getVector(c);
              to.copyFromSafe(i, n, physical.getVector(c));
            }
            n++;
          }
          out.setRowCount(n);
          return out;
        } catch (RuntimeException e) {
          out.close();
          throw e;
        }
      }
    }

    @Override
    public VectorSchemaRoot next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      current = next;
      next = null;
      return current;
    }

    private void closeCurrent() {
      if (current != null) {
        current.close();
        current = null;
      }
    }

    private void closeReader() {
      if (reader != null) {
        reader.close();
        reader = null;
      }
      chunks = null;
    }

    @Override
    public void close() {
      closeCurrent();
      if (next != null) {
        next.close();
        next = null;
      }
      closeReader();
    }
  }
}
