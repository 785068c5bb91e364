import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Run by BundleIT in a JVM whose classpath is Spark's own plus the Quiver bundle jar and nothing else:
 * catalog DDL, an INSERT, a filtered read, a path write and read. Prints "rows=" lines the test checks.
 */
public class BundleSmoke {
  public static void main(String[] args) {
    String warehouse = args[0];
    SparkSession spark = SparkSession.builder().master("local[2]").appName("bundle-smoke")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.catalog.quiver", "io.quiver.spark.QuiverCatalog")
        .config("spark.sql.catalog.quiver.warehouse", warehouse)
        .getOrCreate();
    try {
      spark.sql("CREATE TABLE quiver.db.t (id BIGINT, name STRING)");
      spark.sql("INSERT INTO quiver.db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
      List<Row> rows = spark.sql("SELECT id, name FROM quiver.db.t WHERE id >= 2 ORDER BY id").collectAsList();
      System.out.println("rows=" + rows);
      spark.range(5).selectExpr("id", "cast(id * 2 as int) AS twice").write().format("quiver").mode("append")
          .save(warehouse + "/paths/p");
      long n = spark.read().format("quiver").load(warehouse + "/paths/p").where("twice > 4").count();
      System.out.println("rows=" + n);
    } finally {
      spark.stop();
    }
  }
}
