package io.quiver.dataset;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.lt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.store.MemoryObjectStore;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A change computed from a column that a concurrent projection dropped (issue 13 §5, found by
 * ConcurrentCommitProperties at depth long, seed 5483225974517608155: {@code a: drop name}, {@code b:
 * delete name = name-3}). The conflict matrix makes every such change retryable — a delete or update
 * whose predicate read the column, an update that sets it or computes from it, added or replaced columns
 * computed from it — and that includes a delete or update that matched no row at its read version and so
 * has nothing to commit: its "0 rows" was read through a column that no longer exists. Two handles read
 * version 1; the first commits, then the second.
 */
class ChangesReadingADroppedColumnTest {
  private static final String URI_ = DeleteTest.URI_;
  private RootAllocator allocator;
  private DatasetOptions options;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    options = DeleteTest.options(new MemoryObjectStore(URI_), allocator);
  }

  @AfterEach
  void tearDown() {
    allocator.close();
  }

  /** ids 0..99 in fragments of 40 rows; name is null where id % 7 == 3 (so {@code name = 'name-3'} matches nothing). */
  private Dataset create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 100)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  /**
   * Runs {@code first} on one handle, then {@code second} on another handle opened at the same version,
   * and checks that {@code second} fails with {@code expected} and publishes nothing.
   */
  private <T extends Throwable> T conflicts(Consumer<Dataset> first, Consumer<Dataset> second, Class<T> expected) {
    try (Dataset h1 = create(); Dataset h2 = Dataset.open(URI_, options)) {
      first.accept(h1);
      long afterFirst = h1.latestVersion();
      List<Long> idsAfterFirst = ids(h1);
      T e = assertThatExceptionOfType(expected).isThrownBy(() -> second.accept(h2)).actual();
      assertThat(e.getMessage()).contains("Nothing was committed");
      assertThat(h2.latestVersion()).as("a conflict publishes nothing").isEqualTo(afterFirst);
      assertThat(h2.version()).as("the handle stays at its version").isEqualTo(1);
      assertThat(ids(h2)).isEqualTo(idsAfterFirst);
      return e;
    }
  }

  /** The ids of the latest version's live rows, in scan order (only the id column is read). */
  private static List<Long> ids(Dataset any) {
    List<Long> ids = new java.util.ArrayList<>();
    try (Dataset latest = any.checkoutLatest();
        org.apache.arrow.vector.ipc.ArrowReader r = latest.newScan().columns("id").open()) {
      while (r.loadNextBatch()) {
        BigIntVector id = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < id.getValueCount(); i++) {
          ids.add(id.get(i));
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return ids;
  }

  private static final Consumer<Dataset> DROP_NAME = ds -> ds.columns().drop("name");

  // ---------------------------------------------------------------- deletes

  @Test
  void aDeleteThatMatchedNothingThroughADroppedColumnIsRetryable() {
    // The shrunk sample of the property: the predicate matches no live row at version 1.
    RetryableConflictException e = conflicts(DROP_NAME, ds -> ds.delete(eq("name", "name-3")),
        RetryableConflictException.class);
    assertThat(e.getMessage()).contains("delete read at version 1").contains("project committed as version 2");
  }

  @Test
  void aDeleteThatMatchedRowsThroughADroppedColumnIsRetryable() {
    conflicts(DROP_NAME, ds -> ds.delete(eq("name", "name-4")), RetryableConflictException.class);
  }

  @Test
  void anEmptyDeleteThroughAColumnThatWasNotDroppedStillAnswers() {
    try (Dataset h1 = create(); Dataset h2 = Dataset.open(URI_, options)) {
      h1.columns().drop("name");
      DeleteResult r = h2.delete(lt("id", 0L));
      assertThat(r).isEqualTo(new DeleteResult(1, 0));
      assertThat(h2.latestVersion()).isEqualTo(2);
    }
  }

  @Test
  void anEmptyDeleteAfterARenameOfItsColumnStillAnswers() {
    // A rename keeps the field id: the predicate's column still exists, under another name.
    try (Dataset h1 = create(); Dataset h2 = Dataset.open(URI_, options)) {
      h1.columns().rename("name", "name2");
      assertThat(h2.delete(eq("name", "name-3"))).isEqualTo(new DeleteResult(1, 0));
    }
  }

  @Test
  void anEmptyDeleteAfterAConcurrentUpdateOfItsColumnStillAnswers() {
    // Row-level changes meet a delete only in the fragments it touches, and an empty delete touches none.
    try (Dataset h1 = create(); Dataset h2 = Dataset.open(URI_, options)) {
      h1.update(lt("id", 10L), Map.of("name", "name-3"));
      assertThat(h2.delete(eq("name", "name-3"))).isEqualTo(new DeleteResult(1, 0));
      assertThat(ids(h2)).isEqualTo(range(0, 100));
    }
  }

  @Test
  void anEmptyDeleteWithNothingCommittedSinceAnswers() {
    try (Dataset ds = create()) {
      assertThat(ds.delete(eq("name", "name-3"))).isEqualTo(new DeleteResult(1, 0));
      assertThat(ds.latestVersion()).isEqualTo(1);
    }
  }

  @Test
  void anEmptyDeleteAfterAnOverwriteIsIncompatible() {
    conflicts(ds -> {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 5)) {
        ds.overwrite(SampleTable.SCHEMA, List.of(b));
      }
    }, ds -> ds.delete(eq("name", "name-3")), IncompatibleTransactionException.class);
  }

  @Test
  void aDeleteByAddressesOfDeletedRowsAfterAnOverwriteIsIncompatible() {
    try (Dataset setup = create()) {
      setup.delete(new long[] {0L}); // id 0: fragment 0, offset 0
    }
    try (Dataset h1 = Dataset.open(URI_, options); Dataset h2 = Dataset.open(URI_, options)) {
      try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 5)) {
        h1.overwrite(SampleTable.SCHEMA, List.of(b));
      }
      assertThatExceptionOfType(IncompatibleTransactionException.class).isThrownBy(() -> h2.delete(new long[]{0L}));
      assertThat(h2.latestVersion()).isEqualTo(3);
      assertThat(h2.version()).isEqualTo(2);
    }
  }

  // ---------------------------------------------------------------- updates

  @Test
  void anEmptyUpdateOfADroppedColumnIsRetryable() {
    conflicts(DROP_NAME, ds -> ds.update(lt("id", 0L), Map.of("name", "x")), RetryableConflictException.class);
  }

  @Test
  void anUpdateOfADroppedColumnIsRetryable() {
    conflicts(DROP_NAME, ds -> ds.update(lt("id", 5L), Map.of("name", "x")), RetryableConflictException.class);
  }

  @Test
  void anEmptyUpdateWhosePredicateReadADroppedColumnIsRetryable() {
    conflicts(DROP_NAME, ds -> ds.update(eq("name", "name-3"), Map.of("s.x", -1)), RetryableConflictException.class);
  }

  @Test
  void anEmptyUpdateComputedFromADroppedColumnIsRetryable() {
    conflicts(DROP_NAME, ds -> ds.update(lt("id", 0L), List.of("name"), List.of("s.x"), in -> {
      throw new AssertionError("no row matched: the function is not called");
    }), RetryableConflictException.class);
  }

  @Test
  void anEmptyUpdateOfAnotherColumnStillAnswers() {
    try (Dataset h1 = create(); Dataset h2 = Dataset.open(URI_, options)) {
      h1.columns().drop("name");
      assertThat(h2.update(lt("id", 0L), Map.of("s.x", -1)).updatedRows()).isEqualTo(0);
      assertThat(h2.version()).isEqualTo(1);
    }
  }

  // ---------------------------------------------------------------- added and replaced columns

  @Test
  void columnsAddedFromADroppedColumnAreRetryable() {
    conflicts(DROP_NAME, ds -> ds.columns().add(List.of(new Field("len", FieldType.nullable(new ArrowType.Int(32, true)), null)),
        List.of("name"), (in, alloc) -> zeros(in, alloc, "len")), RetryableConflictException.class);
  }

  @Test
  void columnsReplacedFromADroppedColumnAreRetryable() {
    conflicts(DROP_NAME, ds -> ds.columns().replace(List.of("id"), List.of("name"), ChangesReadingADroppedColumnTest::sameIds),
        RetryableConflictException.class);
  }

  /** The id column as it is (only its input, the dropped column, matters). */
  private static VectorSchemaRoot sameIds(VectorSchemaRoot in, BufferAllocator alloc) {
    BigIntVector v = new BigIntVector(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null), alloc);
    v.allocateNew(in.getRowCount());
    for (int i = 0; i < in.getRowCount(); i++) {
      v.set(i, i);
    }
    v.setValueCount(in.getRowCount());
    return VectorSchemaRoot.of(v);
  }

  private static VectorSchemaRoot zeros(VectorSchemaRoot in, BufferAllocator alloc, String name) {
    IntVector v = new IntVector(name, alloc);
    v.allocateNew(in.getRowCount());
    for (int i = 0; i < in.getRowCount(); i++) {
      v.set(i, 0);
    }
    v.setValueCount(in.getRowCount());
    return VectorSchemaRoot.of(v);
  }
}
