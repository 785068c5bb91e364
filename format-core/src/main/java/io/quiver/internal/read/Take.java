package io.quiver.internal.read;

import io.quiver.dataset.RowAddress;
import io.quiver.exceptions.NotFoundException;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * Random access by row address. {@link #take} point-reads only the bytes of the wanted rows ({@link
 * PointTake}); {@link #takeByBatches}, the reference it must equal cell for cell, reads every whole chunk
 * holding a wanted row through {@link FragmentReader}: rows are gathered in address order (each needed
 * chunk read once), then permuted into the order asked for, so variable-width vectors are always written
 * sequentially.
 */
final public class Take {
  private Take() {}

  /**
   * The projected fields of the rows at {@code addresses}, in the order asked (repeats allowed), overlays
   * merged; a deleted or missing address is a {@link NotFoundException}. The caller closes the result.
   */
  static public VectorSchemaRoot take(TableIo io, Manifest manifest, Schema projected, long[] addresses,
      BufferAllocator allocator, int threads) {
    return PointTake.take(io, manifest, projected, addresses, allocator, threads);
  }

  /** {@link #take} by whole chunks through {@link FragmentReader}: the reference point reads are tested against. */
  static public VectorSchemaRoot takeByBatches(TableIo io, Manifest manifest, Schema projected, long[] addresses,
      BufferAllocator allocator) {
    Map<Long, Fragment> fragments = new HashMap<>();
    for (Fragment f : manifest.fragments()) {
      fragments.put(f.id(), f);
    }
    Integer[] order = new Integer[addresses.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compareUnsigned(addresses[a], addresses[b]));
    for (long address : addresses) {
      check(io, fragments, address);
    }

    VectorSchemaRoot sorted = VectorSchemaRoot.create(projected.toArrow(), allocator);
    try {
      sorted.allocateNew();
      int written = 0;
      int i = 0;
      while (i < order.length) {
        Fragment fragment = fragments.get(RowAddress.fragmentId(addresses[order[i]]));
        RoaringBitmap deleted = Deletions.of(io, fragment);
        try (FragmentReader reader = new FragmentReader(io, fragment, projected, manifest.schema(), allocator)) {
          List<FragmentReader.Chunk> chunks = reader.plan(Integer.MAX_VALUE);
          int c = 0;
          while (i < order.length && RowAddress.fragmentId(addresses[order[i]]) == fragment.id()) {
            long offset = RowAddress.offset(addresses[order[i]]);
            if (deleted.contains((int) offset)) {
              throw new NotFoundException(
                  "row address " + addresses[order[i]] + " (fragment " + fragment.id() + ", offset " + offset
                      + ") was deleted at version " + manifest.version() + " or earlier");
            }
            while (chunks.get(c).start() + chunks.get(c).length() <= offset) {
              c++;
            }
            FragmentReader.Chunk chunk = chunks.get(c);
            try (VectorSchemaRoot rows = reader.read(chunk)) {
              while (i < order.length
                  && RowAddress.fragmentId(addresses[order[i]]) == fragment.id()
                  && RowAddress.offset(addresses[order[i]]) < chunk.start() + chunk.length()) {
                long o = RowAddress.offset(addresses[order[i]]);
                if (deleted.contains((int) o)) {
                  break;
                }
                int from = (int) (o - chunk.start());
                for (int v = 0; v < rows.getFieldVectors().size(); v++) {
                  sorted.getVector(v).copyFromSafe(from, written, rows.getVector(v));
                }
                written++;
                i++;
              }
            }
          }
        }
      }
      sorted.setRowCount(written);
      return permute(sorted, order, projected, allocator);
    } finally {
      sorted.close();
    }
  }

  static void check(TableIo io, Map<Long, Fragment> fragments, long address) {
    Fragment fragment = fragments.get(RowAddress.fragmentId(address));
    long offset = RowAddress.offset(address);
    if (fragment == null || offset >= fragment.physicalRows()) {
      throw new NotFoundException(
          "no row at address " + address + " (fragment " + RowAddress.fragmentId(address) + ", offset " + offset
              + ") in " + io.location() + " at this version");
    }
  }

  private static VectorSchemaRoot permute(VectorSchemaRoot sorted, Integer[] order, Schema projected,
      BufferAllocator allocator) {
    int[] rankOf = new int[order.length];
    for (int rank = 0; rank < order.length; rank++) {
      rankOf[order[rank]] = rank;
    }
    VectorSchemaRoot out = VectorSchemaRoot.create(projected.toArrow(), allocator);
    try {
      out.allocateNew();
      List<FieldVector> vectors = new ArrayList<>(out.getFieldVectors());
      for (int i = 0; i < rankOf.length; i++) {
        for (int v = 0; v < vectors.size(); v++) {
          vectors.get(v).copyFromSafe(rankOf[i], i, sorted.getVector(v));
        }
      }
      out.setRowCount(rankOf.length);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }
}
