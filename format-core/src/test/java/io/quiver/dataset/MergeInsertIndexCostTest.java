package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.manifest.ScalarIndex;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When a merge asks the key's index by default: when the index pages its keys fall into weigh less than the key
 * column of the fragments they cover. On 40,000 rows of unclustered 32-character keys in eight fragments, a merge
 * of a few keys asks the index and fetches fewer bytes than without it; a merge of keys spread over every index
 * page reads the key column instead (fetching no more than without the index), where asking the index always
 * would fetch more. The rows are the same in every case.
 */
class MergeInsertIndexCostTest {
  static final Schema SCHEMA = new Schema(List.of(
      new Field("k", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
      new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));
  static final int ROWS = 40_000;

  private RootAllocator allocator;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void tearDown() {
    allocator.close(); // fails on a leak
  }

  /** A key that sorts nowhere near its neighbours' (a hash of i, in hex). */
  static String key(long i) {
    long z = i * 0x9E3779B97F4A7C15L;
    long a = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
    return String.format("%016x%016x", a, a * 0x94D049BB133111EBL);
  }

  private Dataset table() {
    DatasetOptions options = DatasetOptions.builder().allocator(allocator).session(new Session(64 << 20))
        .maxRowsPerFragment(ROWS / 8).commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
    Dataset ds;
    try (VectorSchemaRoot root = batch(0, ROWS, 0)) {
      ds = Dataset.create("memory://cost-" + UUID.randomUUID() + "/t", SCHEMA, List.of(root), options);
    }
    ds.indices().create("by_k", ScalarIndex.Kind.BTREE, "k");
    return ds;
  }

  /** Rows {@code i} in {@code [from, from + n)}, each with key(i * stride) and v = tag. */
  private VectorSchemaRoot batch(long from, int n, long tag) {
    return batch(from, n, 1, tag);
  }

  private VectorSchemaRoot batch(long from, int n, long stride, long tag) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    for (int i = 0; i < n; i++) {
      ((VarCharVector) root.getVector("k")).setSafe(i, key((from + i) * stride).getBytes(StandardCharsets.UTF_8));
      ((BigIntVector) root.getVector("v")).setSafe(i, tag);
    }
    root.setRowCount(n);
    return root;
  }

  private ArrowReader source(long from, int n, long stride) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = batch(from, n, stride, 7);
        ArrowStreamWriter w = new ArrowStreamWriter(root, null, Channels.newChannel(bytes))) {
      w.start();
      w.writeBatch();
      w.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  private record Run(MergeInsertResult result, ScanMetrics metrics, Map<Long, String> rows) {}

  private Run run(Function<MergeInsert, MergeInsert> how, long from, int n, long stride) {
    try (Dataset ds = table(); ArrowReader src = source(from, n, stride)) {
      ScanMetrics m = new ScanMetrics();
      MergeInsertResult r = how.apply(ds.mergeInsert("k").whenMatchedUpdateAll().whenNotMatchedInsertAll())
          .metrics(m).execute(src);
      return new Run(r, m, ScanFixture.rowsByAddress(ds.newScan().withRowAddress(true).useIndices(false).open()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aFewKeysAskTheIndex() {
    Run byDefault = run(m -> m, 123, 3, 1);
    Run without = run(m -> m.useIndices(false), 123, 3, 1);
    assertThat(byDefault.result()).isEqualTo(without.result());
    assertThat(byDefault.result().rowsUpdated()).isEqualTo(3);
    assertThat(byDefault.rows()).containsExactlyEntriesOf(without.rows());
    assertThat(byDefault.metrics().fragmentsAnsweredByIndex()).isEqualTo(8);
    assertThat(byDefault.metrics().rowsReturned()).isEqualTo(3);
    assertThat(byDefault.metrics().bytesFetched()).as("index pages and the rows' chunks against every key column")
        .isLessThan(without.metrics().bytesFetched());
  }

  @Test
  void keysOverEveryPageReadTheColumnInstead() {
    // 200 existing keys, every 200th row: each of the index's ten pages holds some.
    Run byDefault = run(m -> m, 0, 200, 200);
    Run without = run(m -> m.useIndices(false), 0, 200, 200);
    Run always = run(MergeInsert::alwaysUseIndices, 0, 200, 200);
    assertThat(byDefault.result()).isEqualTo(without.result()).isEqualTo(always.result());
    assertThat(byDefault.result().rowsUpdated()).isEqualTo(200);
    assertThat(byDefault.rows()).containsExactlyEntriesOf(without.rows()).containsExactlyEntriesOf(always.rows());
    assertThat(byDefault.metrics().fragmentsAnsweredByIndex()).isZero();
    assertThat(byDefault.metrics().fragmentsScannedWithoutIndex()).isEqualTo(8);
    assertThat(always.metrics().fragmentsAnsweredByIndex()).isEqualTo(8);
    assertThat(always.metrics().bytesFetched()).as("asking the index here costs more than the column")
        .isGreaterThan(without.metrics().bytesFetched());
    assertThat(byDefault.metrics().bytesFetched()).as("the index's footer at most, beyond the column")
        .isLessThan(always.metrics().bytesFetched());
  }
}
