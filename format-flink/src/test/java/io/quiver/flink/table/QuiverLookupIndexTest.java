package io.quiver.flink.table;

import static io.quiver.flink.table.SqlFixtures.quote;
import static io.quiver.flink.table.SqlFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.manifest.ScalarIndex;
import io.quiver.predicate.Predicate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lookup joins against a table with a scalar index on the join key (issue 42): the same rows as against the same
 * table without the index, the function's scan counters showing the index answered, and after an update of the
 * key column the changed fragment read whole (never answered from the index's old state).
 */
class QuiverLookupIndexTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SqlFixtures.cluster();

  @TempDir
  Path dir;

  /** Ids 0..99, 1000..1009 and 2000..2009 (name "n" + id) in three fragments; indexed on id and name if asked. */
  private String table(String name, boolean indexed) {
    String uri = dir.resolve(name).toUri().toString();
    TableFixtures.create(uri, 100);
    TableFixtures.append(uri, 1000, 10);
    TableFixtures.append(uri, 2000, 10);
    if (indexed) {
      try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
        ds.indices().create("by_id", ScalarIndex.Kind.BTREE, "id");
        ds.indices().create("by_name", ScalarIndex.Kind.BITMAP, "name");
      }
    }
    return uri;
  }

  private static List<Row> join(String uri) {
    TableEnvironment t = SqlFixtures.batch();
    t.executeSql("CREATE TABLE customers (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'quiver', 'path' = "
        + quote(uri) + ", 'lookup.cache.max-rows' = '100')");
    t.executeSql("CREATE TABLE orders (oid BIGINT, cid BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen',"
        + " 'number-of-rows' = '60', 'fields.oid.kind' = 'sequence', 'fields.oid.start' = '1', 'fields.oid.end' = '60',"
        + " 'fields.cid.kind' = 'sequence', 'fields.cid.start' = '980', 'fields.cid.end' = '1039')");
    return rows(t, "SELECT o.oid, o.cid, c.name FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c"
        + " ON o.cid = c.id");
  }

  @Test
  void aJoinOnAnIndexedKeyEqualsTheJoinWithoutTheIndex() {
    List<Row> indexed = join(table("indexed", true));
    List<Row> plain = join(table("plain", false));
    List<Row> expected = new ArrayList<>();
    for (long cid = 1000; cid <= 1009; cid++) {
      expected.add(Row.of(cid - 979, cid, "n" + cid));
    }
    assertThat(plain).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(indexed).containsExactlyInAnyOrderElementsOf(plain);
  }

  private static QuiverLookupFunction function(String uri, String key, Duration reload) throws Exception {
    QuiverLookupFunction f = new QuiverLookupFunction(uri, TableFixtures.LOCAL, List.of("id", "name"), List.of(key),
        -1, true, 0, Duration.ofHours(1), reload);
    f.open(new FunctionContext(null));
    return f;
  }

  private static List<String> rendered(Collection<RowData> rows) {
    return rows.stream().map(r -> r.getLong(0) + ":" + r.getString(1)).toList();
  }

  @Test
  void pointReadsAreAnsweredByTheIndexAndNeverFromAStaleState() throws Exception {
    String indexedUri = table("indexed", true);
    String plainUri = table("plain", false);
    QuiverLookupFunction byName = function(indexedUri, "name", Duration.ZERO);
    QuiverLookupFunction byNamePlain = function(plainUri, "name", Duration.ZERO);
    QuiverLookupFunction byId = function(indexedUri, "id", Duration.ZERO);
    try {
      // Names are not clustered: "n1005" lies within every fragment's name bounds, the index picks the one row.
      List<String> keys = List.of("n5", "n1005", "n2009", "n77", "n1500", "x");
      for (String k : keys) {
        RowData key = GenericRowData.of(StringData.fromString(k));
        assertThat(rendered(byName.lookup(key))).as(k).isEqualTo(rendered(byNamePlain.lookup(key)));
      }
      assertThat(rendered(byName.lookup(GenericRowData.of(StringData.fromString("n1005"))))).containsExactly("1005:n1005");
      assertThat(byName.metrics().fragmentsAnsweredByIndex()).isPositive();
      assertThat(byName.metrics().fragmentsScannedWithoutIndex()).isZero();
      assertThat(byNamePlain.metrics().fragmentsAnsweredByIndex()).isZero();
      assertThat(byName.metrics().dataFilesOpened()).as("fragments the index says hold no such name are not read")
          .isLessThan(byNamePlain.metrics().dataFilesOpened());
      assertThat(rendered(byId.lookup(GenericRowData.of(1003L)))).containsExactly("1003:n1003");
      assertThat(byId.metrics().fragmentsAnsweredByIndex()).isEqualTo(1);

      // The key column changes after the build, on both tables: the changed fragment is read whole.
      for (String uri : List.of(indexedUri, plainUri)) {
        try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
          ds.update(Predicate.eq("id", 1005L), Map.of("id", 1500L, "name", "moved"));
        }
      }
      long answered = byName.metrics().fragmentsAnsweredByIndex();
      for (String k : List.of("moved", "n1005", "n1006", "n5")) {
        RowData key = GenericRowData.of(StringData.fromString(k));
        assertThat(rendered(byName.lookup(key))).as(k).isEqualTo(rendered(byNamePlain.lookup(key)));
      }
      assertThat(rendered(byName.lookup(GenericRowData.of(StringData.fromString("moved"))))).containsExactly("1500:moved");
      assertThat(byName.lookup(GenericRowData.of(StringData.fromString("n1005")))).isEmpty();
      // the updated fragment is still answered by the index, its overlay cells checked (format.md §13.1)
      assertThat(byName.metrics().fragmentsAnsweredByIndex()).isGreaterThan(answered);
      assertThat(rendered(byId.lookup(GenericRowData.of(1500L)))).containsExactly("1500:moved");
      assertThat(byId.lookup(GenericRowData.of(1005L))).isEmpty();
    } finally {
      byName.close();
      byNamePlain.close();
      byId.close();
    }
  }
}
