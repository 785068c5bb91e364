package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.exceptions.CommitConflictException;
import io.quiver.exceptions.QuiverException;
import io.quiver.predicate.Predicate;
import io.quiver.testing.DepthTries;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Properties of the conflict resolver, through the public API on the memory store. Two handles read
 * the same version; A commits, then B (stale) commits.
 *
 * <ul>
 *   <li>If B fails with a conflict, nothing was published: the latest version is A's and scans exactly
 *       as it did right after A.
 *   <li>If B commits (possibly after a rebase), the table equals the one obtained by applying A and then
 *       B serially, B computed on A's result; and B done serially does not fail.
 * </ul>
 */
class ConcurrentCommitProperties {

  /** A named change through the public API; returns nothing, throws on failure. */
  record Change(String name, Function<Dataset, Object> apply) {
    @Override
    public String toString() {
      return name;
    }
  }

  @Provide
  Arbitrary<Change> changes() {
    Arbitrary<Change> append = Arbitraries.integers().between(1, 12).map(n -> new Change("append " + n, ds -> {
      try (VectorSchemaRoot b = SampleTable.batch(allocator(ds), 1000 + n * 100L, n);
          VectorSchemaRoot c = conform(b, ds)) {
        return ds.append(List.of(c));
      }
    }));
    Arbitrary<Change> deleteRange = Arbitraries.integers().between(0, 29).tuple2()
        .map(t -> new Change("delete " + Math.min(t.get1(), t.get2()) + " <= id < " + Math.max(t.get1(), t.get2()),
            ds -> ds.delete(Predicate.and(Predicate.ge(col(ds, "id"), (long) Math.min(t.get1(), t.get2())),
                Predicate.lt(col(ds, "id"), (long) Math.max(t.get1(), t.get2()))))));
    Arbitrary<Change> deleteSome = Arbitraries.longs().between(0, 29).set().ofMinSize(1).ofMaxSize(6)
        .map(ids -> new Change("delete ids " + ids, ds -> ds.delete(Predicate.in(col(ds, "id"), new ArrayList<>(ids)))));
    Arbitrary<Change> deleteByName = Arbitraries.longs().between(0, 29)
        .map(id -> new Change("delete name = name-" + id, ds -> ds.delete(Predicate.eq(col(ds, "name"), "name-" + id))));
    Arbitrary<Change> addColumn = Arbitraries.of("extra", "more")
        .map(name -> new Change("add column " + name, ds -> ds.columns().add(List.of(
            new Field(name, FieldType.nullable(new ArrowType.Int(32, true)), null)))));
    Arbitrary<Change> drop = Arbitraries.of("name", "tags", "s.y")
        .map(c -> new Change("drop " + c, ds -> ds.columns().drop(col(ds, c))));
    Arbitrary<Change> rename = Arbitraries.of("name", "tags")
        .map(c -> new Change("rename " + c, ds -> ds.columns().rename(col(ds, c), c + "2")));
    Arbitrary<Change> config = Arbitraries.of("a", "b")
        .map(k -> new Change("config " + k, ds -> ds.updateConfig(Map.of(k, "v"), Set.of())));
    Arbitrary<Change> overwrite = Arbitraries.just(new Change("overwrite", ds -> {
      try (VectorSchemaRoot b = SampleTable.batch(allocator(ds), 5000, 3)) {
        return ds.overwrite(SampleTable.SCHEMA, List.of(b));
      }
    }));
    Arbitrary<Change> restore = Arbitraries.just(new Change("restore 1", ds -> ds.restore(1)));
    Arbitrary<Change> updateName = Arbitraries.integers().between(0, 29)
        .map(k -> new Change("update name where id < " + k,
            ds -> ds.update(Predicate.lt(col(ds, "id"), (long) k), Map.of(col(ds, "name"), "updated"))));
    Arbitrary<Change> updateX = Arbitraries.longs().between(0, 29).set().ofMinSize(1).ofMaxSize(5)
        .map(ids -> new Change("update s.x where id in " + ids,
            ds -> ds.update(Predicate.in(col(ds, "id"), new ArrayList<>(ids)), Map.of(col(ds, "s.x"), -1))));
    Arbitrary<Change> compact = Arbitraries.just(new Change("compact", ds -> ds.compact(CompactionOptions.defaults())));
    return Arbitraries.oneOf(append, deleteRange, deleteSome, deleteByName, addColumn, drop, rename, config,
        overwrite, restore, updateName, updateX, compact);
  }

  private static final Map<Dataset, RootAllocator> ALLOCATORS = Collections.synchronizedMap(new java.util.IdentityHashMap<>());

  private static RootAllocator allocator(Dataset ds) {
    return ALLOCATORS.get(ds);
  }

  @Property
  @DepthTries(quick = 150, deep = 1500)
  void aConflictPublishesNothingAndACommitEqualsSerialApplication(
      @ForAll("changes") Change a, @ForAll("changes") Change b) {
    try (RootAllocator allocator = new RootAllocator()) {
      // Concurrent: both handles read version 1.
      String uri = "memory://props-" + UUID.randomUUID() + "/t";
      DatasetOptions options = options(allocator);
      Outcome concurrentB;
      List<String> afterA;
      List<String> concurrentResult;
      long versionAfterA;
      try (Dataset h1 = create(uri, allocator, options); Dataset h2 = Dataset.open(uri, options)) {
        ALLOCATORS.put(h1, allocator);
        ALLOCATORS.put(h2, allocator);
        Outcome outcomeA = run(a, h1);
        if (outcomeA.failure != null) {
          return; // A alone is invalid (e.g. drops a dropped column); nothing to compare
        }
        versionAfterA = h1.latestVersion();
        afterA = rows(h1.checkoutLatest(), allocator);
        concurrentB = run(b, h2);
        if (concurrentB.failure instanceof CommitConflictException) {
          assertThat(h2.latestVersion()).as("a conflict must not publish a version").isEqualTo(versionAfterA);
          assertThat(rows(h2.checkoutLatest(), allocator)).as("a conflict must not change the table").isEqualTo(afterA);
          assertThat(h2.version()).as("a failed commit leaves the handle where it was").isEqualTo(1);
          return;
        }
        concurrentResult = concurrentB.failure == null ? rows(h2.checkoutLatest(), allocator) : null;
        ALLOCATORS.remove(h1);
        ALLOCATORS.remove(h2);
      }
      // Serial: A, then B computed on A's result.
      String serialUri = "memory://props-" + UUID.randomUUID() + "/t";
      try (Dataset s1 = create(serialUri, allocator, options)) {
        ALLOCATORS.put(s1, allocator);
        run(a, s1);
        try (Dataset s2 = Dataset.open(serialUri, options)) {
          ALLOCATORS.put(s2, allocator);
          Outcome serialB = run(b, s2);
          if (concurrentB.failure != null) {
            // B failed concurrently without a conflict: it must fail serially too (its own validation).
            assertThat(serialB.failure).as("B failed concurrently (" + concurrentB.failure
                + ") but succeeds serially").isNotNull();
          } else {
            assertThat(serialB.failure).as("B committed concurrently but fails serially").isNull();
            assertThat(concurrentResult).as("the concurrent result differs from applying A then B serially").isEqualTo(rows(s2.checkoutLatest(), allocator));
          }
          ALLOCATORS.remove(s2);
        }
        ALLOCATORS.remove(s1);
      }
    }
  }

  private static final io.quiver.schema.Schema ORIGINAL =
      io.quiver.schema.Schema.fromArrow(SampleTable.SCHEMA, new io.quiver.schema.FieldIdAllocator(0));

  /**
   * The handle's current path of a sample column, by field id: a change names the column, not the
   * string, so after a rename the serial run uses the new name. A dropped column keeps its old name.
   */
  private static String col(Dataset ds, String originalPath) {
    int id = ORIGINAL.findField(originalPath).orElseThrow().id();
    return ds.schema().findField(id).isPresent() ? ds.schema().pathOf(id) : originalPath;
  }

  /**
   * The batch's vectors moved under the handle's current field names when only names differ (a rename
   * is metadata-only, so the same rows are the same change); otherwise moved as they are.
   */
  private static VectorSchemaRoot conform(VectorSchemaRoot batch, Dataset ds) {
    List<Field> target = ds.schema().toArrow().getFields();
    List<Field> have = batch.getSchema().getFields();
    boolean rename = target.size() == have.size();
    for (int i = 0; rename && i < target.size(); i++) {
      rename = sameShape(target.get(i), have.get(i));
    }
    List<Field> fields = rename ? target : have;
    List<FieldVector> vectors = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      FieldVector to = fields.get(i).createVector(allocator(ds));
      batch.getVector(i).makeTransferPair(to).transfer();
      vectors.add(to);
    }
    return new VectorSchemaRoot(fields, vectors, batch.getRowCount());
  }

  private static boolean sameShape(Field a, Field b) {
    if (!a.getType().equals(b.getType()) || a.isNullable() != b.isNullable()
        || a.getChildren().size() != b.getChildren().size()) {
      return false;
    }
    for (int i = 0; i < a.getChildren().size(); i++) {
      if (!sameShape(a.getChildren().get(i), b.getChildren().get(i))) {
        return false;
      }
    }
    return true;
  }

  private record Outcome(QuiverException failure) {}

  private static Outcome run(Change change, Dataset ds) {
    try {
      change.apply().apply(ds);
      return new Outcome(null);
    } catch (QuiverException e) {
      return new Outcome(e);
    }
  }

  private static DatasetOptions options(RootAllocator allocator) {
    return DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(4 << 20))
        .maxRowsPerFragment(10)
        .rowsPerBatch(4)
        .build();
  }

  private static Dataset create(String uri, RootAllocator allocator, DatasetOptions options) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 30)) {
      return Dataset.create(uri, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  /** Every row of the latest version as text (schema names + values), sorted; closes the handle. */
  private static List<String> rows(Dataset ds, RootAllocator allocator) {
    List<String> rows = new ArrayList<>();
    try (ds; ArrowReader reader = ds.newScan().open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          StringBuilder row = new StringBuilder();
          for (FieldVector v : root.getFieldVectors()) {
            row.append(v.getField().getName()).append('=').append(v.getObject(i)).append(';');
          }
          rows.add(row.toString());
        }
      }
      rows.add("config=" + new java.util.TreeMap<>(ds.config()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Collections.sort(rows);
    return rows;
  }

}
