package io.quiver.spark;

import java.util.Map;
import java.util.TreeMap;
import io.quiver.dataset.Dataset;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.spark.types.SparkTypes;
import java.util.List;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("quiver").load(uri)} and {@code df.write.format("quiver").save(uri)}: a Quiver
 * table by path, without a catalog. Options: {@code path} (the table URI), {@code versionAsOf}, {@code tag}
 * or {@code timestampAsOf} for time travel, {@code readChangeFeed} with {@code startingVersion} and {@code
 * endingVersion} for the change feed ({@link io.quiver.spark.read.ChangeFeedTable}), and any other option is a
 * store option (endpoint, credentials
 * …). Writing to a path with no table creates it from the DataFrame's schema.
 */
public final class QuiverDataSource implements TableProvider, DataSourceRegister {
  /** The short name: {@code format("quiver")}. */
  public static final String NAME = "quiver";

  @Override
  public String shortName() {
    return NAME;
  }

  @Override
  public StructType inferSchema(CaseInsensitiveStringMap options) {
    TableRef ref = ref(options);
    if (io.quiver.spark.read.ChangeFeedTable.asked(options)) {
      return io.quiver.spark.read.ChangeFeedTable.load(ref.uri(), ref, options).schema();
    }
    try (Dataset ds = VersionRef.fromOptions(options).open(ref)) {
      return SparkTypes.toSpark(ds.schema().toArrow());
    }
  }

  @Override
  public boolean supportsExternalMetadata() {
    return true;
  }

  @Override
  public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
    CaseInsensitiveStringMap options = new CaseInsensitiveStringMap(properties);
    TableRef ref = ref(options);
    if (io.quiver.spark.read.ChangeFeedTable.asked(options)) {
      return io.quiver.spark.read.ChangeFeedTable.load(ref.uri(), ref, options);
    }
    VersionRef version = VersionRef.fromOptions(options);
    try {
      return QuiverTable.load(ref.uri(), ref, version);
    } catch (TableNotFoundException | StoreNotFoundException e) {
      if (!(version instanceof VersionRef.Latest) || schema == null) {
        throw e;
      }
      // A write to a path with no table yet: create it (empty) from the DataFrame's schema, then append.
      try (Dataset ds = Dataset.create(ref.uri(), SparkTypes.toArrow(schema), List.of(), ref.datasetOptions())) {
        return QuiverTable.load(ref.uri(), ref, version);
      } catch (io.quiver.exceptions.TableAlreadyExistsException raced) {
        return QuiverTable.load(ref.uri(), ref, version);
      }
    }
  }

  /** The table and store options from reader/writer options: {@code path}, and everything else but time travel. */
  static TableRef ref(CaseInsensitiveStringMap options) {
    String path = options.get("path");
    if (path == null || path.isBlank()) {
      throw new io.quiver.exceptions.InvalidArgumentException(
          "format(\"quiver\") needs the table's URI: load(uri), save(uri) or option(\"path\", uri)");
    }
    Map<String, String> store = new TreeMap<>();
    options.asCaseSensitiveMap().forEach((k, v) -> {
      String key = k.toLowerCase(java.util.Locale.ROOT);
      if (!key.equals("path") && !key.equalsIgnoreCase(VersionRef.VERSION_OPTION)
          && !key.equalsIgnoreCase(VersionRef.TAG_OPTION) && !key.equalsIgnoreCase(VersionRef.TIMESTAMP_OPTION)
          && !key.startsWith("quiver.") && !key.equalsIgnoreCase(io.quiver.spark.read.ChangeFeedTable.READ_CHANGE_FEED)
          && !key.equalsIgnoreCase(io.quiver.spark.read.ChangeFeedTable.STARTING_VERSION)
          && !key.equalsIgnoreCase(io.quiver.spark.read.ChangeFeedTable.ENDING_VERSION)) {
        store.put(k, v);
      }
    });
    return new TableRef(path, store);
  }
}
