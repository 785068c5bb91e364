package io.quiver.spark;

import io.quiver.exceptions.InvalidArgumentException;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;

/** Resolves a table argument — a URI, or a catalog name such as {@code quiver.db.t} — to a {@link TableRef}. */
final class Tables {
  private Tables() {}

  static TableRef resolve(SparkSession spark, String table) {
    if (table == null || table.isBlank()) {
      throw new InvalidArgumentException("name a table: a URI (file:/…, s3://…) or catalog.namespace.table");
    }
    if (table.contains(":/") || table.startsWith("/")) {
      return new TableRef(table, Map.of());
    }
    String[] parts = table.split("\\.");
    if (parts.length < 2) {
      throw new InvalidArgumentException("'" + table + "' names no Quiver table: give a URI, or"
          + " catalog.namespace.table with a catalog configured as spark.sql.catalog.<catalog> = "
          + QuiverCatalog.class.getName());
    }
    String catalog = parts[0];
    String prefix = "spark.sql.catalog." + catalog;
    Map<String, String> conf = scala.jdk.javaapi.CollectionConverters.asJava(spark.conf().getAll());
    String impl = conf.get(prefix);
    if (impl == null || !QuiverCatalog.class.getName().equals(impl)) {
      throw new InvalidArgumentException("catalog '" + catalog + "' of '" + table + "' is " + (impl == null
          ? "not configured" : impl) + "; expected spark.sql.catalog." + catalog + " = " + QuiverCatalog.class.getName());
    }
    Map<String, String> options = new TreeMap<>();
    conf.forEach((k, v) -> {
      if (k.startsWith(prefix + ".")) {
        options.put(k.substring(prefix.length() + 1), v);
      }
    });
    QuiverCatalog c = new QuiverCatalog();
    c.initialize(catalog, new org.apache.spark.sql.util.CaseInsensitiveStringMap(options));
    return c.ref(Identifier.of(Arrays.copyOfRange(parts, 1, parts.length - 1), parts[parts.length - 1]));
  }
}
