package io.quiver.flink.table;

import static io.quiver.flink.table.SqlFixtures.quote;
import static io.quiver.flink.table.SqlFixtures.rows;
import static io.quiver.flink.table.SqlFixtures.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Flink SQL journeys on {@code 'connector' = 'quiver'} tables, batch mode, on the local store. */
class QuiverSqlTest {
  @RegisterExtension
  static final MiniClusterExtension CLUSTER = SqlFixtures.cluster();

  @TempDir
  Path dir;

  private String uri(String name) {
    return dir.resolve(name).toUri().toString();
  }

  private static String with(String uri) {
    return " WITH ('connector' = 'quiver', 'path' = " + quote(uri) + ", 'local.fsync' = 'false')";
  }

  @Test
  void insertThenSelectEveryMappedType() {
    TableEnvironment t = SqlFixtures.batch();
    String uri = uri("types");
    t.executeSql("CREATE TABLE types (id BIGINT NOT NULL, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INT, f FLOAT,"
        + " d DOUBLE, amount DECIMAL(12, 3), s STRING, bin BYTES, dt DATE, ts TIMESTAMP(6), ts3 TIMESTAMP(3),"
        + " st ROW<x INT, y STRING>, arr ARRAY<BIGINT>, m MAP<STRING, INT>, tm TIME(3), ltz TIMESTAMP_LTZ(6),"
        + " fb BINARY(3), ch CHAR(2), ts0 TIMESTAMP(0), ts9 TIMESTAMP(9), items ARRAY<ROW<a INT, b STRING>>)" + with(uri));
    run(t, "INSERT INTO types VALUES"
        + " (1, TRUE, CAST(1 AS TINYINT), CAST(2 AS SMALLINT), 3, CAST(1.5 AS FLOAT), 2.25, CAST(123.456 AS DECIMAL(12, 3)),"
        + "  'one', X'0102', DATE '2026-12-05', TIMESTAMP '2026-12-05 10:11:12.123456', TIMESTAMP '2026-12-05 10:11:12.123',"
        + "  ROW(7, 'seven'), ARRAY[CAST(1 AS BIGINT), 2], MAP['a', 1], TIME '10:11:12.345',"
        + "  CAST(TIMESTAMP '2026-12-05 10:11:12.654321' AS TIMESTAMP_LTZ(6)), X'0a0b0c', 'ab',"
        + "  TIMESTAMP '2026-12-05 10:11:12', TIMESTAMP '2026-12-05 10:11:12.123456789',"
        + "  ARRAY[ROW(1, 'x'), ROW(2, CAST(NULL AS STRING))])");
    run(t, "INSERT INTO types (id) VALUES (2)");
    List<Row> rows = rows(t, "SELECT * FROM types ORDER BY id");
    assertThat(rows).hasSize(2);
    Row one = rows.get(0);
    assertThat(one.getField("id")).isEqualTo(1L);
    assertThat(one.getField("b")).isEqualTo(true);
    assertThat(one.getField("i8")).isEqualTo((byte) 1);
    assertThat(one.getField("i16")).isEqualTo((short) 2);
    assertThat(one.getField("i32")).isEqualTo(3);
    assertThat(one.getField("f")).isEqualTo(1.5f);
    assertThat(one.getField("d")).isEqualTo(2.25);
    assertThat(one.getField("amount")).isEqualTo(new BigDecimal("123.456"));
    assertThat(one.getField("s")).isEqualTo("one");
    assertThat((byte[]) one.getField("bin")).containsExactly(1, 2);
    assertThat(one.getField("dt")).isEqualTo(LocalDate.of(2026, 12, 5));
    assertThat(one.getField("ts")).isEqualTo(LocalDateTime.of(2026, 12, 5, 10, 11, 12, 123_456_000));
    assertThat(one.getField("ts3")).isEqualTo(LocalDateTime.of(2026, 12, 5, 10, 11, 12, 123_000_000));
    assertThat(one.getField("st")).isEqualTo(Row.of(7, "seven"));
    assertThat((Long[]) one.getField("arr")).containsExactly(1L, 2L);
    assertThat(one.getField("m")).isEqualTo(Map.of("a", 1));
    assertThat(one.getField("tm")).isEqualTo(java.time.LocalTime.of(10, 11, 12, 345_000_000));
    // The session's zone (UTC unless configured) turned the literal into this instant.
    java.time.ZoneId zone = t.getConfig().getLocalTimeZone();
    assertThat(one.getField("ltz")).isEqualTo(LocalDateTime.of(2026, 12, 5, 10, 11, 12, 654_321_000)
        .atZone(zone).toInstant());
    assertThat((byte[]) one.getField("fb")).containsExactly(10, 11, 12);
    assertThat(one.getField("ch")).isEqualTo("ab");
    assertThat(one.getField("ts0")).isEqualTo(LocalDateTime.of(2026, 12, 5, 10, 11, 12));
    assertThat(one.getField("ts9")).isEqualTo(LocalDateTime.of(2026, 12, 5, 10, 11, 12, 123_456_789));
    assertThat((Row[]) one.getField("items")).containsExactly(Row.of(1, "x"), Row.of(2, null));
    Row two = rows.get(1);
    for (int i = 1; i < two.getArity(); i++) {
      assertThat(two.getField(i)).as("column %d of the all-null row", i).isNull();
    }
    try (Dataset ds = Dataset.open(uri, DatasetOptions.defaults())) {
      assertThat(ds.countRows()).isEqualTo(2);
      assertThat(ds.schema().findField("st.y")).isPresent();
    }
  }
}
