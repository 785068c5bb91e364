package io.quiver.internal.ops;

import io.quiver.dataset.RowAddress;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.StoreException;
import io.quiver.internal.predicate.PredicateEvaluator;
import io.quiver.internal.read.Deletions;
import io.quiver.internal.read.FragmentRange;
import io.quiver.internal.read.Projection;
import io.quiver.internal.read.ScanReader;
import io.quiver.internal.read.ScanSpec;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.DeletionRebaser;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.TransactionRebaser;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.roaringbitmap.RoaringBitmap;

/**
 * Works out which rows a delete removes and writes the fragments' new deletion files. Nothing here commits:
 * the result is an {@link Operation.Delete} (with the files it references already written) or nothing, and
 * {@link #rebaser()} merges it with concurrent deletes when the commit loop asks.
 */
final public class Deleter {
  private final TableIo io;
  private final Manifest base;
  private final BufferAllocator allocator;

  public Deleter(TableIo io, Manifest base, BufferAllocator allocator) {
    this.io = io;
    this.base = base;
    this.allocator = allocator;
  }

  /**
   * Live rows matching {@code predicate}, by fragment. Scans only the predicate's columns (none for a
   * constant predicate); rows deleted at the base version are not scanned, so they are never counted again.
   */
  public Map<Long, RoaringBitmap> matching(Predicate predicate) {
    predicate.fieldIds(base.schema()); // unknown columns fail here, naming the table's columns
    Map<Long, RoaringBitmap> out = new TreeMap<>();
    List<String> columns = List.copyOf(predicate.columns());
    if (columns.isEmpty()) {
      boolean all;
      try (VectorSchemaRoot oneRow = new VectorSchemaRoot(List.of(), List.of(), 1)) {
        all = predicate.evaluate(oneRow).get(0);
      }
      if (all) {
        for (Fragment f : base.fragments()) {
          RoaringBitmap live = new RoaringBitmap();
          live.add(0L, f.physicalRows());
          live.andNot(Deletions.of(io, f));
          if (!live.isEmpty()) {
            out.put(f.id(), live);
          }
        }
      }
      return out;
    }
    io.quiver.schema.Schema projected = Projection.project(base.schema(), columns, null);
    // Bind before reading anything: a type mismatch is reported even on an empty table.
    PredicateEvaluator evaluator = PredicateEvaluator.bind(predicate, projected.toArrow());
    ScanSpec spec = ScanSpec.of(base.schema(), projected, true, ScanSpec.DEFAULT_BATCH_SIZE);
    List<FragmentRange> ranges = base.fragments().stream().map(FragmentRange::whole).toList();
    try (ArrowReader reader = new ScanReader(io, spec, ranges, allocator)) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot batch = reader.getVectorSchemaRoot();
        BitSet hits = evaluator.evaluate(batch);
        if (hits.isEmpty()) {
          continue;
        }
        UInt8Vector addresses = (UInt8Vector) batch.getVector(RowAddress.COLUMN);
        for (int i = hits.nextSetBit(0); i >= 0; i = hits.nextSetBit(i + 1)) {
          long address = addresses.get(i);
          out.computeIfAbsent(RowAddress.fragmentId(address), k -> new RoaringBitmap())
              .add((int) RowAddress.offset(address));
        }
      }
    } catch (IOException e) {
      throw new StoreException("could not scan " + io.location() + " for rows to delete: " + e.getMessage(), e);
    }
    return out;
  }

  /**
   * Live rows among {@code addresses}, by fragment; addresses of rows deleted at the base version are
   * skipped.
   *
   * @throws NotFoundException if an address names a fragment or offset the base version does not have
   */
  public Map<Long, RoaringBitmap> addressed(long[] addresses) {
    if (addresses == null) {
      throw new InvalidArgumentException("row addresses must not be null");
    }
    Map<Long, Fragment> fragments = new HashMap<>();
    base.fragments().forEach(f -> fragments.put(f.id(), f));
    Map<Long, RoaringBitmap> requested = new TreeMap<>();
    for (long address : addresses) {
      long fragmentId = RowAddress.fragmentId(address);
      long offset = RowAddress.offset(address);
      Fragment f = fragments.get(fragmentId);
      if (f == null || offset >= f.physicalRows()) {
        throw new NotFoundException(
            "no row at address " + address + " (fragment " + fragmentId + ", offset " + offset + ") in "
                + io.location() + " at version " + base.version()
                + (f == null ? "; that fragment does not exist (fragments are " + fragments.keySet().stream().sorted()
                    .toList() + ")" : "; fragment " + fragmentId + " has " + f.physicalRows() + " rows")
                + ". Nothing was deleted.");
      }
      requested.computeIfAbsent(fragmentId, k -> new RoaringBitmap()).add((int) offset);
    }
    Map<Long, RoaringBitmap> out = new TreeMap<>();
    requested.forEach((id, offsets) -> {
      offsets.andNot(Deletions.of(io, fragments.get(id)));
      if (!offsets.isEmpty()) {
        out.put(id, offsets);
      }
    });
    return out;
  }

  /**
   * Writes each fragment's new deletion file (its deletions at the base version plus {@code added}) through
   * this deleter's {@link TableIo} and returns the operation; empty when {@code added} is empty (nothing is
   * written then). The files are the caller's to commit, or to delete if the commit fails.
   */
  public Optional<Operation.Delete> write(Map<Long, RoaringBitmap> added, Set<Integer> readFieldIds,
      String predicate) {
    if (added.isEmpty()) {
      return Optional.empty();
    }
    Map<Long, Fragment> fragments = new HashMap<>();
    base.fragments().forEach(f -> fragments.put(f.id(), f));
    List<Operation.FragmentDeletion> deletions = new ArrayList<>();
    for (Map.Entry<Long, RoaringBitmap> e : added.entrySet()) {
      Fragment f = fragments.get(e.getKey());
      RoaringBitmap all = Deletions.of(io, f);
      all.or(e.getValue());
      DeletionFile file = writeDeletionFile(io, f.id(), base.version(), all);
      deletions.add(new Operation.FragmentDeletion(
          f.id(), f.deletionFile(), file, e.getValue().toMutableRoaringBitmap()));
    }
    return Optional.of(new Operation.Delete(deletions, readFieldIds, predicate));
  }

  /** Rebases the delete onto concurrent deletes of the same fragments, writing through this deleter's io. */
  public TransactionRebaser rebaser() {
    return new DeletionRebaser(io);
  }

  /** Writes a portable RoaringBitmap as {@code _deletions/{fragmentId}-{readVersion}-{uuid}.bin}. */
  static public DeletionFile writeDeletionFile(TableIo io, long fragmentId, long readVersion, RoaringBitmap offsets) {
    offsets.runOptimize();
    ByteBuffer buffer = ByteBuffer.allocate(offsets.serializedSizeInBytes());
    offsets.serialize(buffer);
    String path = DeletionFile.DELETIONS_PREFIX + fragmentId + "-" + readVersion + "-" + UUID.randomUUID() + ".bin";
    io.store().write(path, buffer.array());
    return new DeletionFile(path, offsets.getLongCardinality(), buffer.capacity());
  }

  /** Rows a committed delete removed from the rows of the version it was built on. */
  static public long newlyDeleted(Operation.Delete delete) {
    long rows = 0;
    for (Operation.FragmentDeletion fd : delete.deletions()) {
      rows += fd.deletionFile().deletedRows() - fd.previous().map(DeletionFile::deletedRows).orElse(0L);
    }
    return rows;
  }
}
