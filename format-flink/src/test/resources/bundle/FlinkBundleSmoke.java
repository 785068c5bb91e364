import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Run by FlinkBundleIT in a child JVM whose classpath is a Flink 2.3 distribution's lib/ plus the Quiver bundle:
 * an append table and an upsert table through 'connector' = 'quiver', written and read back by Flink SQL.
 */
public class FlinkBundleSmoke {
  public static void main(String[] args) throws Exception {
    String root = args[0];
    TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    env.executeSql("CREATE TABLE t (id BIGINT, name STRING) WITH ('connector' = 'quiver', 'path' = '" + root + "/t')");
    env.executeSql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')").await();
    System.out.println("rows=" + rows(env, "SELECT id, name FROM t WHERE id > 1 ORDER BY id"));

    env.executeSql("CREATE TABLE u (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)"
        + " WITH ('connector' = 'quiver', 'path' = '" + root + "/u')");
    env.executeSql("INSERT INTO u VALUES (1, 'a'), (2, 'b')").await();
    env.executeSql("INSERT INTO u VALUES (2, 'B'), (3, 'c')").await();
    System.out.println("upserted=" + rows(env, "SELECT id, name FROM u ORDER BY id"));
    System.exit(0);
  }

  private static List<String> rows(TableEnvironment env, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (CloseableIterator<Row> it = env.executeSql(sql).collect()) {
      while (it.hasNext()) {
        Row r = it.next();
        out.add(r.getField(0) + ":" + r.getField(1));
      }
    }
    return out;
  }
}
