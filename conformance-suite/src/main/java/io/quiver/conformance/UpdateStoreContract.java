package io.quiver.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.CompactionResult;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.MergeInsertResult;
import io.quiver.dataset.RowAddress;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.UpdateResult;
import io.quiver.exceptions.NotFoundException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;

/** Updates through overlays and compaction on a real store adapter, opened by URI. */
public abstract class UpdateStoreContract extends StoreJourney {
  private DatasetOptions options() {
    return optionsBuilder()
        .rowsPerBatch(64)
        .build();
  }

  /** The values a test checks: id → [name, s null?, s.x]. */
  private static Map<Long, List<Object>> cells(ArrowReader reader) {
    Map<Long, List<Object>> out = new HashMap<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        out.putAll(cells(reader.getVectorSchemaRoot()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Map<Long, List<Object>> cells(VectorSchemaRoot root) {
    Map<Long, List<Object>> out = new HashMap<>();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    StructVector s = (StructVector) root.getVector("s");
    IntVector x = (IntVector) s.getChild("x");
    for (int i = 0; i < root.getRowCount(); i++) {
      out.put(id.get(i), java.util.Arrays.asList(
          name.isNull(i) ? null : name.getObject(i).toString(), s.isNull(i), s.isNull(i) ? null : x.getObject(i)));
    }
    return out;
  }

  private static List<Object> base(long id) {
    boolean sNull = SampleTable.structIsNull(id);
    return java.util.Arrays.asList(SampleTable.expectedName(id), sNull, sNull ? null : SampleTable.expectedX(id));
  }

  @Test
  void updatesRoundTripThroughScanTakeReopenAndCompaction() {
    String uri = newTableUri();
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 200);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options(), io.quiver.model.ModelWorld.SMALL_SEGMENTS)) {
      try (VectorSchemaRoot more = SampleTable.batch(allocator, 200, 100)) {
        ds.append(List.of(more));
      }
      assertThat(ds.update(Predicate.and(Predicate.ge("id", 190), Predicate.lt("id", 210)), Map.of("name", "u", "s.x", 1))).isEqualTo(new UpdateResult(3, 20));
      Map<String, Object> nullName = new HashMap<>();
      nullName.put("name", null);
      assertThat(ds.update(new long[]{RowAddress.of(0, 5), RowAddress.of(1, 0)}, nullName)).isEqualTo(new UpdateResult(4, 2));
    }
    Map<Long, List<Object>> want = new HashMap<>();
    for (long id = 0; id < 300; id++) {
      want.put(id, base(id));
    }
    for (long id = 190; id < 210; id++) {
      // An update never changes struct validity: where s is null (ids 192, 203) it stays null.
      boolean sNull = SampleTable.structIsNull(id);
      want.put(id, java.util.Arrays.asList("u", sNull, sNull ? null : 1));
    }
    want.get(5L).set(0, null); // by address: only the name of rows 5 and 200 became null
    want.get(200L).set(0, null);
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(ds.version()).isEqualTo(4);
      assertThat(cells(ds.newScan().open())).isEqualTo(want);
      try (VectorSchemaRoot taken = ds.take(new long[] {RowAddress.of(1, 0), 5, 195}, List.of())) {
        Map<Long, List<Object>> got = cells(taken);
        assertThat(got.get(200L)).isEqualTo(want.get(200L));
        assertThat(got.get(5L)).isEqualTo(want.get(5L));
        assertThat(got.get(195L)).isEqualTo(want.get(195L));
      }
      CompactionResult compacted = ds.compact(CompactionOptions.defaults());
      assertThat(compacted).isEqualTo(new CompactionResult(5, 2, 1, 300));
      assertThat(cells(ds.newScan().open())).isEqualTo(want);
      assertThat(ds.manifest().fragments().get(0).overlays().isEmpty()).isTrue();
      assertThatExceptionOfType(NotFoundException.class).isThrownBy(() -> ds.take(new long[]{RowAddress.of(1, 0)}, List.of()).close());
      try (Dataset old = ds.checkout(4)) {
        assertThat(cells(old.newScan().open())).isEqualTo(want);
      }
    }
  }

  /** An Arrow stream of (id, name) rows: the source of a merge that leaves the nullable s and tags out. */
  private ArrowReader names(long from, long to, String prefix) {
    org.apache.arrow.vector.types.pojo.Schema schema = new org.apache.arrow.vector.types.pojo.Schema(
        List.of(SampleTable.SCHEMA.getFields().get(0), SampleTable.SCHEMA.getFields().get(1)));
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        org.apache.arrow.vector.ipc.ArrowStreamWriter writer = new org.apache.arrow.vector.ipc.ArrowStreamWriter(
            root, null, java.nio.channels.Channels.newChannel(bytes))) {
      root.allocateNew();
      int n = (int) (to - from);
      for (int i = 0; i < n; i++) {
        ((BigIntVector) root.getVector("id")).setSafe(i, from + i);
        ((VarCharVector) root.getVector("name")).setSafe(i, (prefix + (from + i)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      root.setRowCount(n);
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new org.apache.arrow.vector.ipc.ArrowStreamReader(new java.io.ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  @Test
  void mergeInsertUpdatesInsertsAndRetriesAStaleHandleOnTheStore() throws IOException {
    String uri = newTableUri();
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 100);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options(), io.quiver.model.ModelWorld.SMALL_SEGMENTS);
        Dataset stale = Dataset.open(uri, options())) {
      MergeInsertResult r;
      try (ArrowReader source = names(90, 110, "m")) {
        r = ds.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(source);
      }
      assertThat(r).isEqualTo(new MergeInsertResult(2, 10, 10, 0, 1));
      // A handle still at version 1 inserting key 105 must not insert it again: it retries and updates.
      try (ArrowReader source = names(105, 106, "z")) {
        assertThatExceptionOfType(RetryableConflictException.class)
            .isThrownBy(() -> stale.mergeInsert("id").whenMatchedUpdateAll().maxAttempts(1).execute(source));
      }
      try (ArrowReader source = names(105, 106, "z")) {
        assertThat(stale.mergeInsert("id").whenMatchedUpdateAll().execute(source))
            .isEqualTo(new MergeInsertResult(3, 0, 1, 0, 2));
      }
    }
    Map<Long, List<Object>> want = new HashMap<>();
    for (long id = 0; id < 110; id++) {
      want.put(id, id < 90 ? base(id) : java.util.Arrays.asList("m" + id, id >= 100 || base(id).get(1).equals(true),
          id >= 100 ? null : base(id).get(2)));
    }
    want.get(105L).set(0, "z105");
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(ds.version()).isEqualTo(3);
      assertThat(cells(ds.newScan().open())).isEqualTo(want);
      assertThat(ds.versionInfo(2).operation()).isEqualTo("merge-insert");
    }
  }
  @Test
  void aRowDeltaCommitsOnceAndAStaleOneIsRefusedOnTheStore() {
    String uri = newTableUri();
    io.quiver.dataset.CommitOptions keyed =
        io.quiver.dataset.CommitOptions.defaults().withIdempotenceKey("engine/q1/merge");
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 100);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options(), io.quiver.model.ModelWorld.SMALL_SEGMENTS)) {
      try (VectorSchemaRoot more = SampleTable.batch(allocator, 100, 50)) {
        ds.append(List.of(more)); // version 2: ids 100..149 in fragment 1
      }
      io.quiver.dataset.RowDelta stale = ds.distributed().newRowDelta(2).deleteRows(RowAddress.of(0, 11))
          .readFragments(List.of(0L));
      io.quiver.dataset.WriteResult rows;
      try (io.quiver.dataset.DistributedWriter w = ds.distributed().newWriter();
          VectorSchemaRoot batch = SampleTable.batch(allocator, 1000, 5)) {
        rows = w.write(List.of(batch));
      }
      io.quiver.dataset.RowDeltaResult r = ds.distributed().newRowDelta(2)
          .deleteRows(RowAddress.of(0, 10), RowAddress.of(1, 20)).addRows(List.of(rows)).commit(keyed);
      assertThat(r).isEqualTo(new io.quiver.dataset.RowDeltaResult(3, 2, 5, false));
      // The same commit from a re-opened handle (a restarted driver): found, nothing published.
      try (Dataset again = Dataset.open(uri, options(), 2)) {
        io.quiver.dataset.RowDeltaResult retry = again.distributed().newRowDelta(2)
            .deleteRows(RowAddress.of(1, 20), RowAddress.of(0, 10)).addRows(List.of(rows)).commit(keyed);
        assertThat(retry.alreadyCommitted()).isTrue();
        assertThat(retry.version()).isEqualTo(3);
      }
      // A delta computed at version 2 from fragment 0, which version 3 changed: refused, nothing committed.
      assertThatExceptionOfType(RetryableConflictException.class)
          .isThrownBy(() -> stale.commit(io.quiver.dataset.CommitOptions.defaults()));
      assertThat(ds.latestVersion()).isEqualTo(3);
    }
    Map<Long, List<Object>> want = new HashMap<>();
    for (long id = 0; id < 150; id++) {
      want.put(id, base(id));
    }
    want.remove(10L);
    want.remove(120L);
    for (long id = 1000; id < 1005; id++) {
      want.put(id, base(id));
    }
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(cells(ds.newScan().open())).isEqualTo(want);
      assertThat(ds.versionInfo(3).operation()).isEqualTo("row-delta");
      assertThat(ds.validate().isValid()).isTrue();
    }
  }
  // ---------------------------------------------------------------- the merge-insert clause grid

  private static final org.apache.arrow.vector.types.pojo.Schema KEYED = new org.apache.arrow.vector.types.pojo.Schema(
      List.of(new org.apache.arrow.vector.types.pojo.Field("id",
              org.apache.arrow.vector.types.pojo.FieldType.notNullable(new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)), null),
          new org.apache.arrow.vector.types.pojo.Field("name",
              org.apache.arrow.vector.types.pojo.FieldType.nullable(new org.apache.arrow.vector.types.pojo.ArrowType.Utf8()), null),
          new org.apache.arrow.vector.types.pojo.Field("ts",
              org.apache.arrow.vector.types.pojo.FieldType.nullable(new org.apache.arrow.vector.types.pojo.ArrowType.Int(64, true)), null)));

  /** One (id, name, ts) row. */
  private record Keyed(long id, String name, long ts) {}

  private void fill(VectorSchemaRoot root, List<Keyed> rows) {
    root.allocateNew();
    for (int i = 0; i < rows.size(); i++) {
      ((BigIntVector) root.getVector("id")).setSafe(i, rows.get(i).id());
      ((VarCharVector) root.getVector("name")).setSafe(i, rows.get(i).name().getBytes(java.nio.charset.StandardCharsets.UTF_8));
      ((BigIntVector) root.getVector("ts")).setSafe(i, rows.get(i).ts());
    }
    root.setRowCount(rows.size());
  }

  private ArrowReader keyedSource(List<Keyed> rows) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(KEYED, allocator);
        org.apache.arrow.vector.ipc.ArrowStreamWriter writer = new org.apache.arrow.vector.ipc.ArrowStreamWriter(
            root, null, java.nio.channels.Channels.newChannel(bytes))) {
      writer.start();
      for (int start = 0; start < rows.size(); start += 3) {
        fill(root, rows.subList(start, Math.min(rows.size(), start + 3)));
        writer.writeBatch();
      }
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new org.apache.arrow.vector.ipc.ArrowStreamReader(new java.io.ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  private static List<Keyed> keyedRows(Dataset ds) {
    List<Keyed> out = new java.util.ArrayList<>();
    try (ArrowReader reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(new Keyed(((BigIntVector) root.getVector("id")).get(i),
              root.getVector("name").getObject(i).toString(), ((BigIntVector) root.getVector("ts")).get(i)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.sort(java.util.Comparator.comparingLong(Keyed::id));
    return out;
  }

  private static List<Keyed> keyed(long from, long to, String prefix, long tsBase) {
    List<Keyed> out = new java.util.ArrayList<>();
    for (long id = from; id < to; id++) {
      out.add(new Keyed(id, prefix + id, tsBase + id));
    }
    return out;
  }

  /**
   * Every combination of merge-insert clauses (when matched: update, update if newer, nothing, fail; when not
   * matched: insert, nothing; by source: keep, delete, delete if id < 3), cell by cell against a row-by-row
   * model, on this store: target ids 0..9 in two fragments, source ids 5..13 with id 7 older than the target's.
   */
  @Test
  void everyMergeInsertClauseCombinationGivesTheModelsRows() throws IOException {
    List<Keyed> source = new java.util.ArrayList<>(keyed(5, 14, "s", 100));
    source.set(2, new Keyed(7, "s7", 1));
    Predicate newer = Predicate.compareColumns("source.ts", Predicate.Op.GT, "target.ts");
    for (String m : List.of("update", "update-if", "nothing", "fail")) {
      for (String n : List.of("insert", "nothing")) {
        for (String by : List.of("keep", "delete", "delete-if")) {
          String combo = m + "/" + n + "/" + by;
          List<Keyed> target = keyed(0, 10, "t", 0);
          java.util.Map<Long, Keyed> bySource = new java.util.HashMap<>();
          source.forEach(r -> bySource.put(r.id(), r));
          List<Keyed> want = new java.util.ArrayList<>();
          long inserted = 0;
          long updated = 0;
          long deleted = 0;
          for (Keyed t : target) {
            Keyed src = bySource.get(t.id());
            if (src != null) {
              boolean update = m.equals("update") || (m.equals("update-if") && src.ts() > t.ts());
              want.add(update ? src : t);
              updated += update ? 1 : 0;
            } else if (by.equals("delete") || (by.equals("delete-if") && t.id() < 3)) {
              deleted++;
            } else {
              want.add(t);
            }
          }
          if (n.equals("insert")) {
            for (Keyed r : source) {
              if (r.id() >= 10) {
                want.add(r);
                inserted++;
              }
            }
          }
          want.sort(java.util.Comparator.comparingLong(Keyed::id));
          String uri = newTableUri();
          try (VectorSchemaRoot first = VectorSchemaRoot.create(KEYED, allocator)) {
            fill(first, target.subList(0, 6));
            try (Dataset ds = Dataset.create(uri, KEYED, List.of(first), options(), io.quiver.model.ModelWorld.SMALL_SEGMENTS)) {
              fill(first, target.subList(6, 10));
              ds.append(List.of(first));
              long before = ds.version();
              io.quiver.dataset.MergeInsert merge = ds.mergeInsert("id");
              switch (m) {
                case "update" -> merge.whenMatchedUpdateAll();
                case "update-if" -> merge.whenMatchedUpdateAll(newer);
                case "nothing" -> merge.whenMatchedDoNothing();
                default -> merge.whenMatchedFail();
              }
              if (n.equals("insert")) {
                merge.whenNotMatchedInsertAll();
              } else {
                merge.whenNotMatchedDoNothing();
              }
              switch (by) {
                case "keep" -> merge.whenNotMatchedBySourceKeep();
                case "delete" -> merge.whenNotMatchedBySourceDelete();
                default -> merge.whenNotMatchedBySourceDelete(Predicate.lt("target.id", 3L));
              }
              try (ArrowReader src = keyedSource(source)) {
                if (m.equals("fail")) {
                  assertThatExceptionOfType(io.quiver.exceptions.MatchedRowException.class).as(combo)
                      .isThrownBy(() -> merge.execute(src));
                  assertThat(ds.latestVersion()).as(combo).isEqualTo(before);
                  assertThat(keyedRows(ds)).as(combo).isEqualTo(target);
                  continue;
                }
                MergeInsertResult r = merge.execute(src);
                boolean changed = inserted + updated + deleted > 0;
                assertThat(r).as(combo).isEqualTo(
                    new MergeInsertResult(changed ? before + 1 : before, inserted, updated, deleted, 1));
              }
            }
          }
          try (Dataset reopened = Dataset.open(uri, options())) {
            assertThat(keyedRows(reopened)).as(combo).isEqualTo(want);
          }
        }
      }
    }
  }
}
