package io.quiver.flink.table;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.flink.types.FlinkTypes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * The table factory of {@code 'connector' = 'quiver'}: a Quiver table as a Flink SQL source (bounded or
 * following appends, with projection, filter and limit pushed into Quiver's scan, and lookup joins) and sink
 * (insert-only appends, or upserts keyed by the declared {@code PRIMARY KEY ... NOT ENFORCED}), all exactly
 * once on checkpoints. See docs/flink.md, "Flink SQL".
 *
 * <pre>{@code
 * CREATE TABLE events (id BIGINT, kind STRING, PRIMARY KEY (id) NOT ENFORCED)
 *   WITH ('connector' = 'quiver', 'path' = 's3://bucket/tables/events', 's3.region' = 'eu-west-1');
 * }</pre>
 *
 * <p>The declared columns must be columns of the Quiver table, of the same types (character and binary
 * lengths and nullability aside); a sink into a path that holds no table yet creates it with the declared
 * columns. Options other than those of {@link QuiverTableOptions} and the store options ({@code s3.*},
 * {@code gcs.*}, {@code azure.*}, {@code local.*}) are refused, with the list of valid ones.
 */
public final class QuiverDynamicTableFactory implements DynamicTableSourceFactory, DynamicTableSinkFactory {
  private final Map<String, String> catalogStoreOptions;

  /** The factory Flink discovers for {@code 'connector' = 'quiver'}. */
  public QuiverDynamicTableFactory() {
    this(Map.of());
  }

  /**
   * The factory of a {@link QuiverCatalog}'s tables: they are opened with the catalog's store options, under
   * those a table's own options name.
   */
  QuiverDynamicTableFactory(Map<String, String> catalogStoreOptions) {
    this.catalogStoreOptions = Map.copyOf(catalogStoreOptions);
  }

  @Override
  public String factoryIdentifier() {
    return QuiverTableOptions.IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(QuiverTableOptions.PATH);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of(QuiverTableOptions.SINK_ROLL_ROWS, QuiverTableOptions.SINK_ROLL_BYTES,
        QuiverTableOptions.SINK_UID, FactoryUtil.SINK_PARALLELISM, QuiverTableOptions.SCAN_MODE,
        QuiverTableOptions.SCAN_FOLLOW_INTERVAL, QuiverTableOptions.SCAN_VERSION, QuiverTableOptions.SCAN_TAG,
        QuiverTableOptions.SCAN_TIMESTAMP, QuiverTableOptions.SCAN_SPLIT_SIZE,
        QuiverTableOptions.LOOKUP_CACHE_MAX_ROWS, QuiverTableOptions.LOOKUP_CACHE_TTL,
        QuiverTableOptions.LOOKUP_RELOAD_INTERVAL);
  }

  @Override
  public Set<ConfigOption<?>> forwardOptions() {
    // Options that do not change the plan's topology: a compiled plan may take new values for them.
    return Set.of(QuiverTableOptions.SINK_ROLL_ROWS, QuiverTableOptions.SINK_ROLL_BYTES,
        QuiverTableOptions.LOOKUP_CACHE_MAX_ROWS, QuiverTableOptions.LOOKUP_CACHE_TTL,
        QuiverTableOptions.LOOKUP_RELOAD_INTERVAL);
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    TableSpec spec = TableSpec.of(this, context, false);
    return new QuiverTableSource(spec);
  }

  @Override
  public DynamicTableSink createDynamicTableSink(Context context) {
    TableSpec spec = TableSpec.of(this, context, true);
    return new QuiverTableSink(spec);
  }

  /**
   * What the factory resolved for one table: its URI, store options, declared columns checked against the
   * Quiver table (whose types the connector reads and writes), primary key, and the other options.
   */
  record TableSpec(
      String table,
      String uri,
      HashMap<String, String> storeOptions,
      RowType declared,
      RowType tableTypes,
      List<String> primaryKey,
      ReadableConfig options) {

    DatasetOptions datasetOptions() {
      return DatasetOptions.builder().storeOptions(Map.copyOf(storeOptions)).build();
    }

    static TableSpec of(QuiverDynamicTableFactory factory, Context context, boolean sink) {
      FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(factory, context);
      Map<String, String> all = context.getCatalogTable().getOptions();
      String table = context.getObjectIdentifier().asSummaryString();
      String uri = all.get(QuiverTableOptions.PATH.key());
      if (uri == null || uri.isBlank()) {
        helper.validate(); // Flink's own message: the missing required option, and every valid one
        throw new ValidationException("Flink table " + table + " needs the option 'path': the Quiver table's URI");
      }
      HashMap<String, String> store = new HashMap<>(factory.catalogStoreOptions);
      all.forEach((k, v) -> {
        if (QuiverTableOptions.STORE_OPTION_PREFIXES.stream().anyMatch(k::startsWith)) {
          store.put(k, v);
        }
      });
      DatasetOptions datasetOptions = DatasetOptions.builder().storeOptions(Map.copyOf(store)).build();
      RowType declared = (RowType) context.getPhysicalRowDataType().getLogicalType();
      ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
      List<String> key = schema.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(List.of());
      TableSchemas.Opened opened = TableSchemas.open(table, uri, datasetOptions, declared, sink);
      // Keys of the table's own configuration are allowed too: a Quiver catalog's tables carry their
      // configuration among their options (docs/flink.md, "The catalog").
      List<String> allowed = new ArrayList<>(QuiverTableOptions.STORE_OPTION_PREFIXES);
      allowed.addAll(opened.configKeys());
      helper.validateExcept(allowed.toArray(String[]::new));
      RowType tableTypes = TableSchemas.match(table, uri, opened.rowType(), declared, key, sink);
      return new TableSpec(table, uri, store, declared, tableTypes, List.copyOf(key), helper.getOptions());
    }
  }

  /** Checking declared columns against a Quiver table's, and creating a table a sink writes first. */
  static final class TableSchemas {
    private TableSchemas() {}

    /** A Quiver table's Flink row type and configuration keys. */
    record Opened(RowType rowType, Set<String> configKeys) {}

    /** Opens the table at {@code uri}; a sink into a path without a table creates it with the declared columns. */
    static Opened open(String table, String uri, DatasetOptions options, RowType declared, boolean sink) {
      try (Dataset ds = Dataset.open(uri, options)) {
        return new Opened(FlinkTypes.toRowType(ds.schema()), Set.copyOf(ds.config().keySet()));
      } catch (TableNotFoundException e) {
        if (!sink) {
          throw new ValidationException("Flink table " + table + " reads the Quiver table at '" + uri
              + "', but no table is there: " + e.getMessage() + ". Check 'path', or write to the table first"
              + " (a Quiver sink creates a missing table with the declared columns).", e);
        }
        return new Opened(FlinkTypes.toRowType(create(uri, options, declared)), Set.of());
      }
    }

    private static io.quiver.schema.Schema create(String uri, DatasetOptions options, RowType declared) {
      try (Dataset created = Dataset.create(uri, FlinkTypes.toArrowSchema(declared), List.of(), options)) {
        return created.schema();
      } catch (io.quiver.exceptions.TableAlreadyExistsException raced) {
        try (Dataset ds = Dataset.open(uri, options)) {
          return ds.schema(); // another job created it at the same time
        }
      }
    }

    static RowType match(String table, String uri, RowType actual, RowType declared, List<String> key,
        boolean sink) {
      Map<String, RowType.RowField> byName = new LinkedHashMap<>();
      actual.getFields().forEach(f -> byName.put(f.getName(), f));
      List<RowType.RowField> out = new ArrayList<>();
      for (RowType.RowField d : declared.getFields()) {
        RowType.RowField a = byName.get(d.getName());
        if (a == null) {
          throw new ValidationException("Flink table " + table + " declares column '" + d.getName() + "', but"
              + " the Quiver table at '" + uri + "' has no such column; its columns are " + describe(actual)
              + ". Declare the table's columns (a subset is fine), or add the column to the table first.");
        }
        if (!TypeMatch.sameData(a.getType(), d.getType())) {
          throw new ValidationException("Flink table " + table + " declares column '" + d.getName() + "' as "
              + d.getType().asSummaryString() + ", but in the Quiver table at '" + uri + "' it is "
              + a.getType().asSummaryString() + " (lengths and nullability aside, the types must be equal)."
              + " Declare it as " + a.getType().copy(true).asSummaryString() + ".");
        }
        out.add(new RowType.RowField(d.getName(), a.getType()));
      }
      if (sink) {
        for (RowType.RowField a : actual.getFields()) {
          if (declared.getFieldNames().contains(a.getName())) {
            continue;
          }
          if (!key.isEmpty()) {
            throw new ValidationException("Flink table " + table + " upserts into the Quiver table at '" + uri
                + "' by PRIMARY KEY " + key + ", but does not declare its column '" + a.getName() + "': an upsert"
                + " replaces a key's whole row, so that column would be lost. Declare every column of the table.");
          }
          if (a.getType().isNullable()) {
            continue;
          }
          throw new ValidationException("Flink table " + table + " writes to the Quiver table at '" + uri
              + "', which has the NOT NULL column '" + a.getName() + "' that the Flink table does not declare;"
              + " declare it, so every written row holds a value.");
        }
      }
      for (String k : key) {
        RowType.RowField a = byName.get(k);
        if (a != null && !TypeMatch.keyable(a.getType())) {
          throw new ValidationException("Flink table " + table + " declares PRIMARY KEY column '" + k + "' of type "
              + a.getType().asSummaryString() + ", which cannot be a key (floating point, ARRAY, MAP and ROW"
              + " have no exact equality); choose integer, string, binary, decimal, date, time or timestamp"
              + " columns.");
        }
      }
      return new RowType(false, out);
    }

    private static String describe(RowType t) {
      StringBuilder sb = new StringBuilder("[");
      for (RowType.RowField f : t.getFields()) {
        if (sb.length() > 1) {
          sb.append(", ");
        }
        sb.append(f.getName()).append(' ').append(f.getType().asSummaryString());
      }
      return sb.append(']').toString();
    }
  }
}
