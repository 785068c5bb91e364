package io.quiver.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.ColumnSchema;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.StagedColumnWrite;
import io.quiver.dataset.ValidationReport;
import io.quiver.internal.file.DataFileWriter;
import io.quiver.internal.file.WrittenFile;
import io.quiver.internal.txn.Operation;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Schema;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

/**
 * Catalogue scenario E7 (struct validity): any member of the nullable struct {@code s {x int32, y utf8}}
 * of the sample table rewritten (staged or replaced), with overlays on members, then compacted. Every
 * projection ({@code s}, {@code s.x}, {@code s.y}, {@code s.x + s.y}, with other columns) and {@code take}
 * must agree with each other and with a model cell by cell, before and after compaction; a rewrite of some
 * members never changes which rows have {@code s} null, a write of the whole struct does.
 *
 * <p>The table holds ids [0, 60) in two fragments (40 rows per fragment, 16 rows per file batch, so chunks
 * and batches interleave); {@code s} is null where {@code id % 11 == 5}.
 */
public final class StructValidityScenarios implements AutoCloseable {
  static final int ROWS = 60;
  /** Projections every check reads; each is compared with the model and with the others. */
  static final List<List<String>> PROJECTIONS = List.of(
      List.of("s"), List.of("s.x"), List.of("s.y"), List.of("s.x", "s.y"), List.of("id", "s.y", "name"),
      List.of("name", "s.x"), List.of("s.y", "s.x"));

  private final ScenarioTable t;
  private final BufferAllocator allocator;
  private final Dataset ds;
  /** id → expected raw cells (child values are kept even where s is null: they are hidden, not gone). */
  private final Map<Long, Cell> model = new TreeMap<>();

  /** One row's s: whether it is null, and its members' stored values. */
  record Cell(boolean sNull, Integer x, String y) {
    Cell withX(Integer v) {
      return new Cell(sNull, v, y);
    }

    Cell withY(String v) {
      return new Cell(sNull, x, v);
    }

    Cell withNull(boolean n) {
      return new Cell(n, x, y);
    }
  }

  private StructValidityScenarios(ScenarioTable t) {
    this.t = t;
    this.allocator = t.allocator();
    this.ds = t.create(0, ROWS);
    for (long id = 0; id < ROWS; id++) {
      boolean n = io.quiver.dataset.SampleTable.structIsNull(id);
      model.put(id, n ? new Cell(true, null, null) : new Cell(false, io.quiver.dataset.SampleTable.expectedX(id), "y" + id));
    }
  }

  private static void run(ScenarioTable t, Consumer<StructValidityScenarios> body) {
    try (StructValidityScenarios s = new StructValidityScenarios(t)) {
      body.accept(s);
    }
  }

  @Override
  public void close() {
    ds.close();
  }

  // ---------------------------------------------------------------- scenarios

  /** A staged write of each member in turn from a worker batch that carries no struct nulls at all. */
  public static void e7_stagedWriteOfEachMemberKeepsStructNulls(ScenarioTable t) {
    run(t, s -> {
      s.checkEverything("before");
      s.stageMember("x", id -> (int) id + 1000, id -> false);
      s.checkEverything("after staging s.x");
      s.stageMember("y", id -> "staged-" + id, id -> false);
      s.checkEverything("after staging s.y");
      s.compactAndCheck();
    });
  }

  /** replaceColumns of each member in turn, its function returning s valid on every row. */
  public static void e7_replaceColumnsOfEachMemberKeepsStructNulls(ScenarioTable t) {
    run(t, s -> {
      s.replaceMember("x", id -> (int) id + 2000);
      s.checkEverything("after replacing s.x");
      s.replaceMember("y", id -> "replaced-" + id);
      s.checkEverything("after replacing s.y");
      s.compactAndCheck();
    });
  }

  /**
   * Overlays on members (updates of s.x and s.y, some on rows where s is null, which stay null: an update
   * never changes struct validity), then member rewrites staged and replaced over them, then compaction.
   */
  public static void e7_membersRewrittenWithOverlaysOnMembersAgreeBeforeAndAfterCompaction(ScenarioTable t) {
    run(t, s -> {
      s.updateMember(List.of(3L, 16L, 41L), "s.x", 777);
      s.updateMember(List.of(4L, 42L), "s.y", "upd");
      s.updateMember(List.of(7L), "s.x", null);
      s.checkEverything("after member updates");
      s.stageMember("x", id -> (int) id + 3000, id -> id % 2 == 0); // the worker's own (ignored) nulls
      s.checkEverything("after staging s.x over overlays");
      s.updateMember(List.of(5L), "s.x", 55); // s is null at id 5, and stays null
      s.updateMember(List.of(50L), "s.y", null);
      s.checkEverything("after updates over the staged s.x");
      s.replaceMember("y", id -> "r-" + id);
      s.checkEverything("after replacing s.y over overlays");
      s.updateMember(List.of(49L), "s.y", "late");
      s.stageMember("y", id -> "st-" + id, id -> true); // a worker that says s is null everywhere
      s.checkEverything("after staging s.y");
      s.updateMember(List.of(16L, 20L), "s.x", 1616);
      s.replaceMember("x", id -> (int) id + 4000);
      s.checkEverything("after replacing s.x over overlays");
      s.updateMember(List.of(38L, 39L), "s.y", "again");
      s.compactAndCheck();
      s.updateMember(List.of(27L), "s.y", "post");
      s.checkEverything("after an update following compaction");
    });
  }

  /** A worker batch for s.x with no struct nulls, on a fragment whose s.x was already rewritten once. */
  public static void e7_workerBatchWithoutStructNullsDoesNotUnNull(ScenarioTable t) {
    run(t, s -> {
      s.stageMember("x", id -> (int) id, id -> false);
      s.stageMember("x", id -> (int) id * 2, id -> false);
      long nulls = s.model.values().stream().filter(Cell::sNull).count();
      assertThat(nulls).as("ids 5, 16, 27, 38 and 49: the sample's null structs").isEqualTo(5);
      s.checkEverything("after two member rewrites");
    });
  }

  /** Writing the struct whole (all members: target "s") writes the caller's validity, staged or replaced. */
  public static void e7_wholeStructWriteChangesValidity(ScenarioTable t) {
    run(t, s -> {
      s.stageWhole(id -> id % 3 == 0, id -> (int) id + 5, id -> "w" + id);
      s.checkEverything("after staging the whole struct");
      assertThat(s.model.get(3L).sNull() && !s.model.get(5L).sNull()).as("the new validity is the caller's").isTrue();
      s.stageMember("y", id -> "m" + id, id -> false);
      s.checkEverything("after a member write following the whole-struct write");
      s.replaceWhole(id -> id % 4 == 1);
      s.checkEverything("after replacing the whole struct");
      s.compactAndCheck();
    });
  }

  /**
   * A table written before the rule: fragment 0's s.y moved to a file whose struct validity disagrees
   * with s.x's (injected through a raw manifest, as A13/A14 inject changes). validate() reports it; reads
   * still follow the rule (x's file); compaction rewrites the fragment with that validity and validates.
   */
  public static void e7_validateReportsStructValidityThatDisagreesBetweenFiles(ScenarioTable t) {
    run(t, s -> {
      assertThat(s.ds.validate().isValid()).as(() -> "a table written by this version: " + s.ds.validate()).isTrue();
      s.stageMember("y", id -> "ok" + id, id -> false);
      assertThat(s.ds.validate().isValid()).as(() -> "after a member write: " + s.ds.validate()).isTrue();
      s.injectDisagreeingYFile();
      try (Dataset latest = s.ds.checkoutLatest()) {
        ValidationReport report = latest.validate();
        assertThat(report.isValid()).as("%s", report).isFalse();
        List<ValidationReport.Problem> problems = report.problemsOf(ValidationReport.Kind.STRUCT_VALIDITY_MISMATCH);
        assertThat(problems.size()).as(report::toString).isEqualTo(1);
        assertThat(problems.get(0).message())
            .contains("struct 's'").contains("fragment 0").contains("s.x").contains("s.y")
            .contains("2 offsets").contains("first at offset 0").contains("compact");
      }
      s.reopenAndCheck("the injected file's validity is ignored by every read");
      s.compactAndCheck();
    });
  }

  // ---------------------------------------------------------------- writes, with the model kept in step

  private Dataset latest() {
    return ds.checkoutLatest();
  }

  /** offset → id per fragment of the latest version. */
  private Map<Long, long[]> idsByFragment(Dataset handle) {
    Map<Long, long[]> out = new LinkedHashMap<>();
    for (Fragment f : handle.manifest().fragments()) {
      out.put(f.id(), new long[(int) f.physicalRows()]);
    }
    try (ArrowReader r = handle.newScan().columns("id").withRowAddress(true).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        BigIntVector id = (BigIntVector) root.getVector("id");
        UInt8Vector addr = (UInt8Vector) root.getVector("_rowaddr");
        for (int i = 0; i < root.getRowCount(); i++) {
          long a = addr.get(i);
          out.get(a >>> 32)[(int) (a & 0xffffffffL)] = id.get(i);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private Map<Long, Long> addressById(Dataset handle) {
    Map<Long, Long> out = new HashMap<>();
    idsByFragment(handle).forEach((fragment, ids) -> {
      for (int o = 0; o < ids.length; o++) {
        out.put(ids[o], fragment << 32 | o);
      }
    });
    return out;
  }

  /** Stages {@code s.<member>} for every fragment and commits; the batch's s is null where {@code nulls}. */
  void stageMember(String member, LongFunction<Object> value, LongPredicate nulls) {
    try (Dataset handle = latest()) {
      ColumnSchema schema = handle.columns().newSchema(List.of(), List.of("s." + member), List.of());
      List<StagedColumnWrite> writes = new ArrayList<>();
      idsByFragment(handle).forEach((fragment, ids) -> {
        try (ArrowReader batches = structBatches(schema.arrowSchema(), ids, nulls,
            member.equals("x") ? value : null, member.equals("y") ? value : null)) {
          writes.add(handle.columns().writeFragment(fragment, batches, schema));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      handle.columns().commit(writes);
    }
    model.replaceAll((id, c) -> member.equals("x") ? c.withX((Integer) value.apply(id)) : c.withY((String) value.apply(id)));
  }

  /** Stages the whole struct (target "s"): its validity is the batch's. */
  void stageWhole(LongPredicate nulls, LongFunction<Object> x, LongFunction<Object> y) {
    try (Dataset handle = latest()) {
      ColumnSchema schema = handle.columns().newSchema(List.of(), List.of("s"), List.of());
      List<StagedColumnWrite> writes = new ArrayList<>();
      idsByFragment(handle).forEach((fragment, ids) -> {
        try (ArrowReader batches = structBatches(schema.arrowSchema(), ids, nulls, x, y)) {
          writes.add(handle.columns().writeFragment(fragment, batches, schema));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      handle.columns().commit(writes);
    }
    model.replaceAll((id, c) -> new Cell(nulls.test(id), (Integer) x.apply(id), (String) y.apply(id)));
  }

  /** replaceColumns(["s.member"]) computed from id; the function's s is valid on every row. */
  void replaceMember(String member, LongFunction<Object> value) {
    try (Dataset handle = latest()) {
      org.apache.arrow.vector.types.pojo.Schema out =
          handle.manifest().schema().project(Set.of(handle.manifest().schema().findField("s." + member).orElseThrow().id()))
              .toArrow();
      handle.columns().replace(List.of("s." + member), List.of("id"), (input, alloc) ->
          structBatch(out, ids(input), id -> false, member.equals("x") ? value : null,
              member.equals("y") ? value : null, alloc));
    }
    model.replaceAll((id, c) -> member.equals("x") ? c.withX((Integer) value.apply(id)) : c.withY((String) value.apply(id)));
  }

  /** replaceColumns(["s"]): the function's validity is the struct's; values kept as the model has them. */
  void replaceWhole(LongPredicate nulls) {
    Map<Long, Cell> before = new TreeMap<>(model);
    try (Dataset handle = latest()) {
      org.apache.arrow.vector.types.pojo.Schema out =
          handle.manifest().schema().project(Set.of(handle.manifest().schema().findField("s").orElseThrow().id()))
              .toArrow();
      handle.columns().replace(List.of("s"), List.of("id"), (input, alloc) ->
          structBatch(out, ids(input), nulls, id -> before.get(id).x(), id -> before.get(id).y(), alloc));
    }
    model.replaceAll((id, c) -> c.withNull(nulls.test(id)));
  }

  /** Sets {@code path} at the given ids through update by address (an overlay on that member). */
  void updateMember(List<Long> ids, String path, Object value) {
    try (Dataset handle = latest()) {
      Map<Long, Long> addresses = addressById(handle);
      long[] at = ids.stream().mapToLong(addresses::get).toArray();
      Map<String, Object> values = new HashMap<>();
      values.put(path, value);
      handle.update(at, values);
    }
    for (long id : ids) {
      Cell c = model.get(id);
      model.put(id, path.equals("s.x") ? c.withX((Integer) value) : c.withY((String) value)); // s as it was
    }
  }

  void compactAndCheck() {
    try (Dataset handle = latest()) {
      assertThat(handle.compact(io.quiver.dataset.CompactionOptions.defaults()).fragmentsRemoved())
          .as("fragments compacted").isEqualTo(2);
    }
    reopenAndCheck("after compaction");
  }

  /**
   * Replaces fragment 0's s.y by a file whose s is null at offsets 0 and 1 (s is valid there in x's file,
   * the validity source), tombstoning y in its old file, through a raw manifest.
   */
  void injectDisagreeingYFile() {
    Manifest latest;
    try (Dataset handle = latest()) {
      latest = handle.manifest();
    }
    Schema table = latest.schema();
    int yId = table.findField("s.y").orElseThrow().id();
    Schema ySchema = table.project(Set.of(yId));
    Fragment f0 = latest.fragments().get(0);
    long[] ids;
    try (Dataset handle = latest()) {
      ids = idsByFragment(handle).get(f0.id());
    }
    String path = "data/" + java.util.UUID.randomUUID() + ".arrow";
    WrittenFile written;
    try (DataFileWriter writer = new DataFileWriter(t.store(), path, ySchema.toArrowWithIds(), allocator, 16);
        VectorSchemaRoot batch = structBatch(ySchema.toArrow(), ids,
            id -> id == ids[0] || id == ids[1] || model.get(id).sNull(), null, id -> model.get(id).y(), allocator)) {
      writer.write(batch);
      written = writer.finish();
    }
    List<DataFile> files = new ArrayList<>();
    for (DataFile d : f0.files()) {
      int at = d.fieldIds().indexOf(yId);
      if (d.fieldIds().equals(List.of(yId))) {
        continue; // the file of the earlier staged write of s.y, which held only s.y
      }
      if (at >= 0) {
        List<Integer> fieldIds = new ArrayList<>(d.fieldIds());
        fieldIds.set(at, DataFile.TOMBSTONE);
        d = new DataFile(d.path(), fieldIds, d.columnIndices(), d.formatMajor(), d.formatMinor(), d.sizeBytes(),
            d.baseId());
      }
      files.add(d);
    }
    files.add(DataFile.of(written.key(), List.of(yId), written.sizeBytes()));
    Fragment edited = f0.with(files, f0.deletionFile(), f0.overlays());
    commitRaw(latest, edited);
  }

  private void commitRaw(Manifest latest, Fragment edited) {
    String uuid = java.util.UUID.randomUUID().toString();
    io.quiver.internal.txn.Transaction txn = new io.quiver.internal.txn.Transaction(uuid, latest.version(),
        new Operation.UpdateConfig(Map.of("test.rewritten-in-place", uuid), Set.of()), Map.of());
    Manifest built = new io.quiver.internal.txn.ManifestBuilder("quiver-test").build(
        java.util.Optional.of(latest), txn, java.time.Instant.now());
    List<Fragment> fragments = new ArrayList<>(built.fragments());
    fragments.set(0, edited);
    Manifest manifest = new Manifest(built.version(), built.schema(), fragments, built.maxFragmentId(),
        built.maxFieldId(), built.timestamp(), built.writerVersion(), built.config(), built.transactionUuid(),
        built.transactionPath(), built.readerFeatures(), built.writerFeatures());
    t.store().write(txn.path(), io.quiver.internal.codec.MetadataCodec.encodeTransaction(txn));
    assertThat(new io.quiver.store.ObjectStoreCommitStore(t.store())
        .claim(manifest.version(), io.quiver.internal.codec.MetadataCodec.encodeManifest(manifest, txn))).isEqualTo(io.quiver.store.CommitStore.ClaimResult.CLAIMED);
  }

  // ---------------------------------------------------------------- checks

  /** The table validates and every projection and take agree with the model (and so with each other). */
  void checkEverything(String when) {
    try (Dataset handle = latest()) {
      ValidationReport report = handle.validate();
      assertThat(report.isValid()).as(() -> when + ": " + report).isTrue();
    }
    reopenAndCheck(when);
  }

  void reopenAndCheck(String when) {
    try (Dataset handle = t.open()) {
      Map<Long, Long> addresses = addressById(handle);
      assertThat(addresses.keySet()).as(when + ": the live ids").isEqualTo(model.keySet());
      Map<List<String>, Map<Long, Seen>> scans = new LinkedHashMap<>();
      for (List<String> columns : PROJECTIONS) {
        Map<Long, Seen> scanned = scan(handle, columns, addresses);
        check(when + ", scan of " + columns, columns, scanned);
        scans.put(columns, scanned);
        // take of every live row, in an order unlike the scan's
        List<Long> order = new ArrayList<>(model.keySet());
        java.util.Collections.reverse(order);
        long[] at = order.stream().mapToLong(addresses::get).toArray();
        try (VectorSchemaRoot taken = handle.take(at, columns)) {
          Map<Long, Seen> rows = new TreeMap<>();
          for (int i = 0; i < at.length; i++) {
            rows.put(order.get(i), Seen.of(taken, i));
          }
          check(when + ", take of " + columns, columns, rows);
        }
      }
      // Every projection's struct nulls, cell by cell, against the whole struct's.
      Map<Long, Seen> whole = scans.get(List.of("s"));
      scans.forEach((columns, seen) -> seen.forEach((id, cell) ->
          assertThat(cell.sNull()).as(() -> when + ": s null at id " + id + " in a scan of "
              + columns + " vs of [s]").isEqualTo(whole.get(id).sNull())));
    }
  }

  private Map<Long, Seen> scan(Dataset handle, List<String> columns, Map<Long, Long> addresses) {
    Map<Long, Long> idByAddress = new HashMap<>();
    addresses.forEach((id, a) -> idByAddress.put(a, id));
    Map<Long, Seen> out = new TreeMap<>();
    try (ArrowReader r = handle.newScan().columns(columns).withRowAddress(true).batchSize(7).open()) {
      while (r.loadNextBatch()) {
        VectorSchemaRoot root = r.getVectorSchemaRoot();
        UInt8Vector addr = (UInt8Vector) root.getVector("_rowaddr");
        for (int i = 0; i < root.getRowCount(); i++) {
          out.put(idByAddress.get(addr.get(i)), Seen.of(root, i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private void check(String what, List<String> columns, Map<Long, Seen> seen) {
    assertThat(seen.keySet()).as(what + ": ids").isEqualTo(model.keySet());
    boolean hasX = columns.contains("s") || columns.contains("s.x");
    boolean hasY = columns.contains("s") || columns.contains("s.y");
    model.forEach((id, expected) -> {
      Seen got = seen.get(id);
      assertThat(got.sNull()).as(() -> what + ": is s null at id " + id).isEqualTo(expected.sNull());
      if (!expected.sNull()) {
        if (hasX) {
          assertThat(got.x()).as(() -> what + ": s.x at id " + id).isEqualTo(expected.x());
        }
        if (hasY) {
          assertThat(got.y()).as(() -> what + ": s.y at id " + id).isEqualTo(expected.y());
        }
      }
      if (columns.contains("name")) {
        assertThat(got.name()).as(() -> what + ": name at id " + id).isEqualTo(io.quiver.dataset.SampleTable.expectedName(id));
      }
    });
  }

  /** One row as read: s's nullness and the members present in the projection. */
  record Seen(boolean sNull, Integer x, String y, String name) {
    static Seen of(VectorSchemaRoot root, int i) {
      StructVector s = (StructVector) root.getVector("s");
      Integer x = null;
      String y = null;
      if (s.getChild("x") instanceof IntVector xv && !xv.isNull(i)) {
        x = xv.get(i);
      }
      if (s.getChild("y") instanceof VarCharVector yv && !yv.isNull(i)) {
        y = new String(yv.get(i), StandardCharsets.UTF_8);
      }
      FieldVector name = root.getVector("name");
      String n = name == null || name.isNull(i) ? null : name.getObject(i).toString();
      return new Seen(s.isNull(i), x, y, n);
    }
  }

  // ---------------------------------------------------------------- batches

  private static long[] ids(VectorSchemaRoot input) {
    BigIntVector id = (BigIntVector) input.getVector("id");
    long[] out = new long[input.getRowCount()];
    for (int i = 0; i < out.length; i++) {
      out[i] = id.get(i);
    }
    return out;
  }

  /** A stream of batches of 13 rows of {@code schema} (one struct {@code s}) for the rows {@code ids}. */
  private ArrowReader structBatches(org.apache.arrow.vector.types.pojo.Schema schema, long[] ids, LongPredicate nulls,
      LongFunction<Object> x, LongFunction<Object> y) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
      writer.start();
      for (int from = 0; from < ids.length; from += 13) {
        long[] part = Arrays.copyOfRange(ids, from, Math.min(ids.length, from + 13));
        try (VectorSchemaRoot b = structBatch(schema, part, nulls, x, y, allocator)) {
          root.clear();
          for (int v = 0; v < b.getFieldVectors().size(); v++) {
            b.getVector(v).makeTransferPair(root.getVector(v)).transfer();
          }
          root.setRowCount(part.length);
          writer.writeBatch();
        }
      }
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
  }

  /** One batch of {@code schema} (one struct {@code s} with some of x, y) for the rows {@code ids}. */
  static VectorSchemaRoot structBatch(org.apache.arrow.vector.types.pojo.Schema schema, long[] ids, LongPredicate nulls,
      LongFunction<Object> x, LongFunction<Object> y, BufferAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    try {
      root.allocateNew();
      StructVector s = (StructVector) root.getVector("s");
      for (int i = 0; i < ids.length; i++) {
        long id = ids[i];
        if (nulls.test(id)) {
          s.setNull(i);
        } else {
          s.setIndexDefined(i);
        }
        if (s.getChild("x") instanceof IntVector xv) {
          Object v = x == null ? null : x.apply(id);
          if (v == null) {
            xv.setNull(i);
          } else {
            xv.setSafe(i, (Integer) v);
          }
        }
        if (s.getChild("y") instanceof VarCharVector yv) {
          Object v = y == null ? null : y.apply(id);
          if (v == null) {
            yv.setNull(i);
          } else {
            yv.setSafe(i, ((String) v).getBytes(StandardCharsets.UTF_8));
          }
        }
      }
      s.setValueCount(ids.length);
      root.setRowCount(ids.length);
      return root;
    } catch (RuntimeException e) {
      root.close();
      throw e;
    }
  }
}
