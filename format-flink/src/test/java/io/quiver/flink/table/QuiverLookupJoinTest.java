package io.quiver.flink.table;

import static io.quiver.flink.table.SqlFixtures.quote;
import static io.quiver.flink.table.SqlFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
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
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Lookup joins against a Quiver table: equal to a join against a snapshot; a new version seen after a reload. */
class QuiverLookupJoinTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SqlFixtures.cluster();

  @TempDir
  Path dir;

  @Test
  void aLookupJoinEqualsAJoinAgainstTheTable() {
    String uri = dir.resolve("customers").toUri().toString();
    TableFixtures.create(uri, 100);          // ids 0..99
    TableFixtures.append(uri, 1000, 10);     // ids 1000..1009, a second fragment
    TableEnvironment t = SqlFixtures.batch();
    t.executeSql("CREATE TABLE customers (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'quiver', 'path' = "
        + quote(uri) + ", 'lookup.cache.max-rows' = '100')");
    t.executeSql("CREATE TABLE orders (oid BIGINT, cid BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen',"
        + " 'number-of-rows' = '40', 'fields.oid.kind' = 'sequence', 'fields.oid.start' = '1', 'fields.oid.end' = '40',"
        + " 'fields.cid.kind' = 'sequence', 'fields.cid.start' = '980', 'fields.cid.end' = '1019')");
    List<Row> joined = rows(t, "SELECT o.oid, o.cid, c.name FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt"
        + " AS c ON o.cid = c.id");
    // Against the snapshot: cid 980..1019 meets ids 1000..1009 only.
    List<Row> expected = new ArrayList<>();
    for (long cid = 1000; cid <= 1009; cid++) {
      expected.add(Row.of(cid - 979, cid, "n" + cid));
    }
    assertThat(joined).containsExactlyInAnyOrderElementsOf(expected);
    List<Row> left = rows(t, "SELECT COUNT(*), COUNT(c.name) FROM orders AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF"
        + " o.pt AS c ON o.cid = c.id");
    assertThat(left).containsExactly(Row.of(40L, 10L));
  }

  private static QuiverLookupFunction function(String uri, long cacheRows, Duration reload) throws Exception {
    QuiverLookupFunction f = new QuiverLookupFunction(uri, TableFixtures.LOCAL, List.of("id", "name"), List.of("id"),
        -1, true, cacheRows, Duration.ofHours(1), reload);
    f.open(new FunctionContext(null));
    return f;
  }

  private static List<String> names(Collection<RowData> rows) {
    return rows.stream().map(r -> r.getString(1).toString()).toList();
  }

  @Test
  void aNewVersionIsSeenOnceTheFunctionReloads() throws Exception {
    String uri = dir.resolve("reload").toUri().toString();
    TableFixtures.create(uri, 10);
    QuiverLookupFunction cached = function(uri, 100, Duration.ofHours(1));
    QuiverLookupFunction reloading = function(uri, 100, Duration.ZERO);
    try {
      RowData key = GenericRowData.of(5L);
      assertThat(names(cached.lookup(key))).containsExactly("n5");
      assertThat(names(reloading.lookup(key))).containsExactly("n5");
      try (Dataset ds = Dataset.open(uri, TableFixtures.options())) {
        ds.update(Predicate.eq("id", 5L), Map.of("name", "renamed"));
      }
      // Within its reload interval the function serves what it read; after it, the new version.
      assertThat(names(cached.lookup(key))).containsExactly("n5");
      assertThat(names(reloading.lookup(key))).containsExactly("renamed");
      assertThat(reloading.lookup(GenericRowData.of(42L))).isEmpty();
      assertThat(reloading.lookup(GenericRowData.of((Object) null))).isEmpty();
    } finally {
      cached.close();
      reloading.close();
    }
  }
}
