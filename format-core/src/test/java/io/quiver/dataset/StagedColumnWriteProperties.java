package io.quiver.dataset;

import static io.quiver.dataset.StagedColumnSupport.intField;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.exceptions.CommitConflictException;
import io.quiver.store.MemoryObjectStore;
import io.quiver.testing.DepthTries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Random interleavings of staged column writes, deletes, updates (overlays), replacements and compactions
 * across three stale handles: every staged commit either fails with a typed error or leaves a table whose
 * every cell of {@code v} equals the last committed writer's value (checked against an in-memory model).
 */
class StagedColumnWriteProperties {

  @Property
  @DepthTries(quick = 40, deep = 400)
  void everyCellHoldsTheLastCommittedWritersValue(
      @ForAll @Size(min = 4, max = 12) List<@IntRange(min = 0, max = 59) Integer> steps) {
    try (BufferAllocator allocator = new RootAllocator()) {
      MemoryObjectStore store = new MemoryObjectStore(OverlayTestSupport.URI_);
      DatasetOptions options = OverlayTestSupport.options(allocator, store, 2);
      try (Dataset ds = OverlayTestSupport.create(allocator, options, 0, 6)) {
        ds.columns().add(List.of(intField("v", true)), List.of("id"), StagedColumnWriteProperties::tens);
        Map<Long, Integer> model = new TreeMap<>();
        for (long id = 0; id < 6; id++) {
          model.put(id, (int) id * 10);
        }
        List<Dataset> handles = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          handles.add(ds.checkout(ds.version()));
        }
        int step = 0;
        for (int code : steps) {
          step++;
          int h = code % 3;
          int value = 1000 * step;
          Dataset handle = handles.get(h);
          try {
            switch (code / 3 % 5) {
              case 0, 1 -> stageAll(handle, allocator, value, model);
              case 2 -> {
                Map<Long, Long> addresses = OverlayTestSupport.addresses(handle);
                if (!addresses.isEmpty()) {
                  long id = addresses.keySet().iterator().next();
                  handle.update(new long[] {addresses.get(id)}, Map.of("v", value));
                  model.computeIfPresent(id, (k, old) -> value);
                }
              }
              case 3 -> {
                Map<Long, Long> addresses = OverlayTestSupport.addresses(handle);
                if (addresses.size() > 1) {
                  long id = addresses.keySet().stream().max(Long::compare).orElseThrow();
                  handle.delete(new long[] {addresses.get(id)});
                  model.remove(id);
                }
              }
              default -> handle.compact(CompactionOptions.defaults());
            }
          } catch (CommitConflictException e) {
            // typed: nothing committed, the model is unchanged
          }
          // Some handles catch up, others stay stale.
          if (code % 2 == 0) {
            handles.set(h, handle.checkoutLatest());
            handle.close();
          }
          try (Dataset latest = ds.checkoutLatest()) {
            assertThat(values(latest)).as("after step " + step + " (code " + code + ")").isEqualTo(model);
            assertThat(latest.validate().isValid()).isTrue();
          }
        }
        handles.forEach(Dataset::close);
      }
    }
  }

  /** Stages v = value + id for every fragment of the handle's snapshot and commits them together. */
  private static void stageAll(Dataset handle, BufferAllocator allocator, int value, Map<Long, Integer> model) {
    ColumnSchema schema = handle.columns().newSchema(List.of(), List.of("v"), List.of());
    List<StagedColumnWrite> staged = new ArrayList<>();
    Map<Long, Integer> written = new HashMap<>();
    for (io.quiver.manifest.Fragment f : handle.manifest().fragments()) {
      List<Long> ids = physicalIds(handle, f);
      Integer[] values = new Integer[ids.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = ids.get(i) == null ? 0 : value + ids.get(i).intValue();
        if (ids.get(i) != null) {
          written.put(ids.get(i), values[i]);
        }
      }
      try (ArrowReader reader = StagedColumnSupport.ints(allocator, schema.arrowSchema(), values)) {
        staged.add(StagedColumnWrite.decode(handle.columns().writeFragment(f.id(), reader, schema).encode()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    handle.columns().commit(staged);
    written.forEach((id, v) -> model.computeIfPresent(id, (k, old) -> v));
  }

  /** The id of each physical row of a fragment (null for a deleted row), from a scan with row addresses. */
  private static List<Long> physicalIds(Dataset handle, io.quiver.manifest.Fragment f) {
    List<Long> ids = new ArrayList<>();
    for (long i = 0; i < f.physicalRows(); i++) {
      ids.add(null);
    }
    OverlayTestSupport.addresses(handle).forEach((id, address) -> {
      if (address >>> 32 == f.id()) {
        ids.set((int) (address & 0xFFFFFFFFL), id);
      }
    });
    return ids;
  }

  private static Map<Long, Integer> values(Dataset ds) {
    Map<Long, Integer> out = new TreeMap<>();
    try (ArrowReader reader = ds.newScan().columns("id", "v").open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        IntVector v = (IntVector) root.getVector("v");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(id.get(i), v.isNull(i) ? null : v.get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  static VectorSchemaRoot tens(VectorSchemaRoot input, BufferAllocator allocator) {
    BigIntVector id = (BigIntVector) input.getVector("id");
    VectorSchemaRoot out = VectorSchemaRoot.create(
        new org.apache.arrow.vector.types.pojo.Schema(List.of(intField("v", true))), allocator);
    IntVector v = (IntVector) out.getVector(0);
    v.allocateNew(input.getRowCount());
    for (int i = 0; i < input.getRowCount(); i++) {
      v.set(i, (int) id.get(i) * 10);
    }
    v.setValueCount(input.getRowCount());
    out.setRowCount(input.getRowCount());
    return out;
  }
}
