package io.quiver.flink.table;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.TableAlreadyExistsException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.flink.types.FlinkTypes;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.Prefixes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.catalog.AbstractCatalog;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogDatabase;
import org.apache.flink.table.catalog.CatalogDatabaseImpl;
import org.apache.flink.table.catalog.CatalogFunction;
import org.apache.flink.table.catalog.CatalogPartition;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.TableChange;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.FunctionNotExistException;
import org.apache.flink.table.catalog.exceptions.PartitionNotExistException;
import org.apache.flink.table.catalog.exceptions.TableAlreadyExistException;
import org.apache.flink.table.catalog.exceptions.TableNotExistException;
import org.apache.flink.table.catalog.exceptions.TableNotPartitionedException;
import org.apache.flink.table.catalog.stats.CatalogColumnStatistics;
import org.apache.flink.table.catalog.stats.CatalogTableStatistics;
import org.apache.flink.table.expressions.Expression;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;

/**
 * A Flink catalog of the Quiver tables under one warehouse URI, with no catalog server: database {@code db} is the
 * path prefix {@code <warehouse>/db}, table {@code db.t} the Quiver table at {@code <warehouse>/db/t} — the same
 * layout as the Spark catalog, so both engines see the same tables. Made by {@link QuiverCatalogFactory}
 * ({@code CREATE CATALOG q WITH ('type' = 'quiver', 'warehouse' = 's3://bucket/warehouse')}).
 *
 * <p>A table's schema, primary key ({@code flink.primary-key} in its configuration) and options (its
 * configuration) live in the table itself. A database exists once it holds an object (a table, or the marker
 * {@code CREATE DATABASE} writes); the default database always exists. Names are path segments: non-empty, no
 * {@code /}, not starting with {@code _}. Partitions, functions, views and statistics are not stored: Quiver has
 * no partitions (filters prune), and the rest are refused with a message rather than silently dropped.
 */
public final class QuiverCatalog extends AbstractCatalog {
  /** The table configuration key holding a Flink primary key: its columns, comma-separated. */
  public static final String PRIMARY_KEY = "flink.primary-key";

  /** The table configuration key holding a Flink table comment. */
  public static final String COMMENT = "comment";

  /** The object {@code CREATE DATABASE} writes, so an empty database exists. */
  static final String DATABASE_MARKER = "_database";

  private final String warehouse;
  private final Map<String, String> storeOptions;

  /** A catalog of the tables under {@code warehouse}, opened with {@code storeOptions}. */
  public QuiverCatalog(String name, String defaultDatabase, String warehouse, Map<String, String> storeOptions) {
    super(name, checkName(defaultDatabase));
    this.warehouse = warehouse.endsWith("/") ? warehouse.substring(0, warehouse.length() - 1) : warehouse;
    this.storeOptions = Map.copyOf(storeOptions);
  }

  /** The warehouse URI the catalog's databases are prefixes of. */
  public String warehouse() {
    return warehouse;
  }

  @Override
  public Optional<Factory> getFactory() {
    return Optional.of(new QuiverDynamicTableFactory(storeOptions));
  }

  @Override
  public void open() {
    // Nothing to connect to: every call opens the store it needs.
  }

  @Override
  public void close() {}

  // ---------------------------------------------------------------- locations

  private String uri(String database, String table) {
    String db = warehouse + "/" + checkName(database);
    return table == null ? db : db + "/" + checkName(table);
  }

  private DatasetOptions datasetOptions() {
    return DatasetOptions.builder().storeOptions(storeOptions).build();
  }

  private static String checkName(String part) {
    if (part == null || part.isEmpty() || part.contains("/") || part.equals(".") || part.equals("..")
        || part.startsWith("_")) {
      throw new CatalogException("'" + part + "' cannot name a Quiver database or table: names are path segments,"
          + " so they must be non-empty, contain no '/', and not start with '_' (reserved for Quiver)");
    }
    return part;
  }

  private ObjectStore store(String uri) {
    return ObjectStores.defaultRegistry().open(uri, storeOptions);
  }

  /** The direct children of a prefix: tables and the other prefixes (none if the store is not there). */
  private List<Prefixes.Child> children(String uri) {
    ObjectStore store;
    try {
      store = store(uri);
    } catch (StoreNotFoundException e) {
      return List.of();
    }
    try (store) {
      return Prefixes.children(store);
    }
  }

  // ---------------------------------------------------------------- databases

  @Override
  public List<String> listDatabases() {
    Set<String> out = new TreeSet<>();
    out.add(getDefaultDatabase());
    for (Prefixes.Child c : children(warehouse)) {
      if (!c.table()) {
        out.add(c.name());
      }
    }
    return List.copyOf(out);
  }

  @Override
  public CatalogDatabase getDatabase(String databaseName) throws DatabaseNotExistException {
    if (!databaseExists(databaseName)) {
      throw new DatabaseNotExistException(getName(), databaseName);
    }
    return new CatalogDatabaseImpl(Map.of("location", uri(databaseName, null)), null);
  }

  @Override
  public boolean databaseExists(String databaseName) {
    if (databaseName.equals(getDefaultDatabase())) {
      return true;
    }
    try (ObjectStore store = store(uri(databaseName, null))) {
      return !store.list("", Optional.empty(), 1).objects().isEmpty();
    } catch (StoreNotFoundException e) {
      return false;
    }
  }

  @Override
  public void createDatabase(String name, CatalogDatabase database, boolean ignoreIfExists)
      throws DatabaseAlreadyExistException {
    checkName(name);
    if (database != null && (!database.getProperties().isEmpty()
        || (database.getComment() != null && !database.getComment().isEmpty()))) {
      throw new CatalogException("CREATE DATABASE " + name + " with a comment or properties: a Quiver database is a"
          + " path prefix and stores neither; create it without COMMENT and WITH (...)");
    }
    if (databaseExists(name)) {
      if (ignoreIfExists) {
        return;
      }
      throw new DatabaseAlreadyExistException(getName(), name);
    }
    try (ObjectStore store = store(uri(name, null))) {
      store.putIfAbsent(DATABASE_MARKER, new byte[0]);
    }
  }

  @Override
  public void dropDatabase(String name, boolean ignoreIfNotExists, boolean cascade)
      throws DatabaseNotExistException, DatabaseNotEmptyException {
    if (!databaseExists(name)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new DatabaseNotExistException(getName(), name);
    }
    List<String> tables = listTables(name);
    if (!tables.isEmpty() && !cascade) {
      throw new DatabaseNotEmptyException(getName(), name);
    }
    for (String t : tables) {
      deleteTable(uri(name, t));
    }
    try (ObjectStore store = store(uri(name, null))) {
      store.delete(DATABASE_MARKER);
    }
  }

  @Override
  public void alterDatabase(String name, CatalogDatabase newDatabase, boolean ignoreIfNotExists) {
    throw new CatalogException("ALTER DATABASE " + name + ": a Quiver database is a path prefix and holds no"
        + " properties or comment");
  }

  // ---------------------------------------------------------------- tables

  @Override
  public List<String> listTables(String databaseName) throws DatabaseNotExistException {
    if (!databaseExists(databaseName)) {
      throw new DatabaseNotExistException(getName(), databaseName);
    }
    List<String> out = new ArrayList<>();
    for (Prefixes.Child c : children(uri(databaseName, null))) {
      if (c.table()) {
        out.add(c.name());
      }
    }
    return out;
  }

  @Override
  public List<String> listViews(String databaseName) throws DatabaseNotExistException {
    if (!databaseExists(databaseName)) {
      throw new DatabaseNotExistException(getName(), databaseName);
    }
    return List.of();
  }

  @Override
  public CatalogBaseTable getTable(ObjectPath tablePath) throws TableNotExistException {
    return load(tablePath, null);
  }

  /** {@code FOR SYSTEM_TIME AS OF TIMESTAMP '…'}: the newest version committed at or before the instant. */
  @Override
  public CatalogBaseTable getTable(ObjectPath tablePath, long timestamp) throws TableNotExistException {
    return load(tablePath, timestamp);
  }

  private CatalogTable load(ObjectPath path, Long timestamp) throws TableNotExistException {
    String uri = uri(path.getDatabaseName(), path.getObjectName());
    try (Dataset ds = Dataset.open(uri, datasetOptions())) {
      RowType rowType = FlinkTypes.toRowType(ds.schema());
      Map<String, String> config = ds.config();
      Schema.Builder schema = Schema.newBuilder().fromRowDataType(TypeConversions.fromLogicalToDataType(rowType));
      List<String> key = primaryKey(config);
      if (!key.isEmpty()) {
        schema.primaryKey(key);
      }
      Map<String, String> options = new LinkedHashMap<>();
      options.put(org.apache.flink.table.factories.FactoryUtil.CONNECTOR.key(), QuiverTableOptions.IDENTIFIER);
      options.put(QuiverTableOptions.PATH.key(), uri);
      config.forEach((k, v) -> {
        if (!k.equals(PRIMARY_KEY) && !k.equals(COMMENT)) {
          options.put(k, v);
        }
      });
      if (timestamp != null) {
        options.remove(QuiverTableOptions.SCAN_VERSION.key());
        options.remove(QuiverTableOptions.SCAN_TAG.key());
        options.put(QuiverTableOptions.SCAN_TIMESTAMP.key(), Long.toString(timestamp));
      }
      return CatalogTable.newBuilder().schema(schema.build()).comment(config.get(COMMENT)).options(options).build();
    } catch (TableNotFoundException | StoreNotFoundException e) {
      throw new TableNotExistException(getName(), path, e);
    } catch (QuiverException e) {
      throw new CatalogException("table " + getName() + "." + path.getFullName() + " at '" + uri + "' cannot be"
          + " opened: " + e.getMessage(), e);
    }
  }

  private static List<String> primaryKey(Map<String, String> config) {
    String key = config.get(PRIMARY_KEY);
    if (key == null || key.isBlank()) {
      return List.of();
    }
    return Arrays.stream(key.split(",")).map(String::trim).toList();
  }

  @Override
  public boolean tableExists(ObjectPath tablePath) {
    try (ObjectStore store = store(uri(tablePath.getDatabaseName(), tablePath.getObjectName()))) {
      return Prefixes.isTable(store, "");
    } catch (StoreNotFoundException e) {
      return false;
    }
  }

  /** Deletes every object of the table: its versions first (so it stops being a table at once), then the rest. */
  @Override
  public void dropTable(ObjectPath tablePath, boolean ignoreIfNotExists) throws TableNotExistException {
    if (!tableExists(tablePath)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new TableNotExistException(getName(), tablePath);
    }
    deleteTable(uri(tablePath.getDatabaseName(), tablePath.getObjectName()));
  }

  private void deleteTable(String uri) {
    try (ObjectStore store = store(uri)) {
      store.deleteAll(store.listAll("_versions/").stream().map(ObjectInfo::key).toList());
      store.deleteAll(store.listAll("").stream().map(ObjectInfo::key).toList());
    }
  }

  @Override
  public void renameTable(ObjectPath tablePath, String newTableName, boolean ignoreIfNotExists) {
    throw new CatalogException("Quiver tables cannot be renamed (" + tablePath.getFullName() + " to " + newTableName
        + "): a table is its location, and object stores have no atomic rename. INSERT INTO a new table SELECT"
        + " from the old one, then DROP the old one");
  }

  @Override
  public void createTable(ObjectPath tablePath, CatalogBaseTable table, boolean ignoreIfExists)
      throws TableAlreadyExistException, DatabaseNotExistException {
    String name = getName() + "." + tablePath.getFullName();
    if (!(table instanceof ResolvedCatalogTable resolved)) {
      throw new CatalogException("CREATE " + table.getTableKind() + " " + name + ": a Quiver catalog holds tables"
          + " only; create views in another catalog (e.g. the default in-memory one)");
    }
    checkName(tablePath.getDatabaseName());
    checkName(tablePath.getObjectName());
    if (!databaseExists(tablePath.getDatabaseName())) {
      throw new DatabaseNotExistException(getName(), tablePath.getDatabaseName());
    }
    if (tableExists(tablePath)) {
      if (ignoreIfExists) {
        return;
      }
      throw new TableAlreadyExistException(getName(), tablePath);
    }
    if (resolved.isPartitioned()) {
      throw new CatalogException("CREATE TABLE " + name + " PARTITIONED BY " + resolved.getPartitionKeys()
          + ": Quiver tables have no partitions (filters prune by column statistics); create it without"
          + " PARTITIONED BY");
    }
    if (resolved.getDistribution().isPresent()) {
      throw new CatalogException("CREATE TABLE " + name + " DISTRIBUTED BY: Quiver tables have no buckets;"
          + " create it without DISTRIBUTED BY");
    }
    ResolvedSchema schema = resolved.getResolvedSchema();
    if (!schema.getWatermarkSpecs().isEmpty()) {
      throw new CatalogException("CREATE TABLE " + name + " declares a WATERMARK: a Quiver catalog stores a table's"
          + " columns only. Declare the watermark on a temporary table over it: CREATE TEMPORARY TABLE t_wm"
          + " (WATERMARK FOR … ) LIKE " + name);
    }
    for (Column c : schema.getColumns()) {
      if (!c.isPhysical()) {
        throw new CatalogException("CREATE TABLE " + name + " declares the " + (c instanceof Column.ComputedColumn
            ? "computed" : "metadata") + " column '" + c.getName() + "': a Quiver catalog stores physical columns"
            + " only. Declare it on a temporary table over this one (CREATE TEMPORARY TABLE … LIKE " + name + ")");
      }
      if (c.getComment().isPresent()) {
        throw new CatalogException("CREATE TABLE " + name + ": column '" + c.getName() + "' has a COMMENT, which a"
            + " Quiver table does not store; remove it");
      }
    }
    Map<String, String> config = tableConfig(name, resolved.getOptions());
    List<String> key = schema.getPrimaryKey().map(UniqueConstraint::getColumns).orElse(List.of());
    RowType rowType = (RowType) schema.toPhysicalRowDataType().getLogicalType();
    checkKey(name, rowType, key);
    if (!key.isEmpty()) {
      config.put(PRIMARY_KEY, String.join(",", key));
    }
    if (resolved.getComment() != null && !resolved.getComment().isEmpty()) {
      config.put(COMMENT, resolved.getComment());
    }
    String uri = uri(tablePath.getDatabaseName(), tablePath.getObjectName());
    try (Dataset created = Dataset.create(uri, FlinkTypes.toArrowSchema(rowType), List.of(), datasetOptions(),
        config)) {
      // created: an empty table at version 1
    } catch (TableAlreadyExistsException raced) {
      if (!ignoreIfExists) {
        throw new TableAlreadyExistException(getName(), tablePath, raced);
      }
    } catch (QuiverException e) {
      throw new CatalogException("CREATE TABLE " + name + ": " + e.getMessage(), e);
    }
  }

  /** The options of a CREATE TABLE as the Quiver table's configuration. */
  private static Map<String, String> tableConfig(String name, Map<String, String> options) {
    Map<String, String> config = new TreeMap<>();
    options.forEach((k, v) -> {
      if (k.equals(org.apache.flink.table.factories.FactoryUtil.CONNECTOR.key())) {
        if (!v.equals(QuiverTableOptions.IDENTIFIER)) {
          throw new CatalogException("CREATE TABLE " + name + " WITH ('connector' = '" + v + "'): a Quiver catalog"
              + " holds Quiver tables only; leave 'connector' out, or create the table in another catalog");
        }
        return;
      }
      if (k.equals(QuiverTableOptions.PATH.key())) {
        throw new CatalogException("CREATE TABLE " + name + " WITH ('path' = …): a catalog table lives at"
            + " <warehouse>/<database>/<table>. For a table elsewhere, declare it outside the catalog with"
            + " 'connector' = 'quiver' and 'path'");
      }
      if (QuiverTableOptions.STORE_OPTION_PREFIXES.stream().anyMatch(k::startsWith)) {
        throw new CatalogException("CREATE TABLE " + name + " WITH ('" + k + "' = …): store options belong to the"
            + " catalog (CREATE CATALOG … WITH ('" + k + "' = …)); a table's options are stored in the table,"
            + " where credentials must not go");
      }
      if (k.equals(PRIMARY_KEY)) {
        throw new CatalogException("CREATE TABLE " + name + " WITH ('" + PRIMARY_KEY + "' = …): declare the key"
            + " as PRIMARY KEY (…) NOT ENFORCED");
      }
      config.put(k, v);
    });
    return config;
  }

  private void checkKey(String name, RowType rowType, List<String> key) {
    for (String k : key) {
      if (k.contains(",")) {
        throw new CatalogException("table " + name + ": the primary key column '" + k + "' contains ',', which"
            + " Quiver's stored key cannot hold; rename the column");
      }
      int i = rowType.getFieldIndex(k);
      LogicalType t = i < 0 ? null : rowType.getTypeAt(i);
      if (t != null && !TypeMatch.keyable(t)) {
        throw new CatalogException("table " + name + " declares PRIMARY KEY column '" + k + "' of type "
            + t.asSummaryString() + ", which cannot be a key (floating point, ARRAY, MAP and ROW have no exact"
            + " equality); choose integer, string, binary, decimal, date, time or timestamp columns");
      }
    }
  }

  @Override
  public void alterTable(ObjectPath tablePath, CatalogBaseTable newTable, boolean ignoreIfNotExists) {
    throw new CatalogException("ALTER TABLE " + getName() + "." + tablePath.getFullName() + " without a list of"
        + " changes is not supported: use ALTER TABLE … ADD / DROP / RENAME / MODIFY / SET / RESET");
  }

  /**
   * ALTER TABLE: ADD a nullable column (last), DROP a column, RENAME a column, MODIFY a column's nullability,
   * SET / RESET options (the table's configuration), ADD / DROP / MODIFY the PRIMARY KEY. Each change is its own
   * Quiver commit, in order; anything else is refused before the first one.
   */
  @Override
  public void alterTable(ObjectPath tablePath, CatalogBaseTable newTable, List<TableChange> changes,
      boolean ignoreIfNotExists) throws TableNotExistException {
    String name = getName() + "." + tablePath.getFullName();
    if (!tableExists(tablePath)) {
      if (ignoreIfNotExists) {
        return;
      }
      throw new TableNotExistException(getName(), tablePath);
    }
    for (TableChange change : changes) {
      check(name, change);
    }
    String uri = uri(tablePath.getDatabaseName(), tablePath.getObjectName());
    try (Dataset ds = Dataset.open(uri, datasetOptions())) {
      for (TableChange change : changes) {
        apply(name, ds, change);
      }
    } catch (QuiverException e) {
      throw new CatalogException("ALTER TABLE " + name + ": " + e.getMessage(), e);
    }
  }

  private static final String SUPPORTED_CHANGES = "ADD a nullable column (at the end), DROP a column, RENAME a"
      + " column, MODIFY a column's nullability, SET / RESET options, ADD / DROP / MODIFY the PRIMARY KEY";

  private static void check(String name, TableChange change) {
    String refused = null;
    if (change instanceof TableChange.AddColumn add) {
      Column c = add.getColumn();
      if (!c.isPhysical()) {
        refused = "ADD the computed or metadata column '" + c.getName() + "': a Quiver table stores physical columns";
      } else if (!c.getDataType().getLogicalType().isNullable()) {
        refused = "ADD the NOT NULL column '" + c.getName() + "': existing rows would have no value; add it"
            + " nullable, fill it, then MODIFY it NOT NULL";
      } else if (add.getPosition() != null) {
        refused = "ADD column '" + c.getName() + "' " + add.getPosition() + ": Quiver adds columns at the end";
      } else if (c.getComment().isPresent()) {
        refused = "ADD column '" + c.getName() + "' with a COMMENT, which a Quiver table does not store";
      }
    } else if (change instanceof TableChange.ModifyPhysicalColumnType type) {
      if (!onlyNullability(type)) {
        refused = "MODIFY column '" + type.getOldColumn().getName() + "' to " + type.getNewType() + ": Quiver does"
            + " not change a column's type in place (only its nullability); add a column of the new type and fill it";
      }
    } else if (!(change instanceof TableChange.ModifyColumnName || change instanceof TableChange.DropColumn
        || change instanceof TableChange.SetOption || change instanceof TableChange.ResetOption
        || change instanceof TableChange.AddUniqueConstraint || change instanceof TableChange.ModifyUniqueConstraint
        || change instanceof TableChange.DropConstraint)) {
      refused = change.toString().trim();
    }
    if (change instanceof TableChange.SetOption set) {
      refused = refusedOption(set.getKey());
    } else if (change instanceof TableChange.ResetOption reset) {
      refused = refusedOption(reset.getKey());
    }
    if (refused != null) {
      throw new CatalogException("ALTER TABLE " + name + ": " + refused + ". Supported: " + SUPPORTED_CHANGES);
    }
  }

  private static boolean onlyNullability(TableChange.ModifyPhysicalColumnType type) {
    return type.getNewType().getLogicalType().copy(true)
        .equals(type.getOldColumn().getDataType().getLogicalType().copy(true));
  }

  private static String refusedOption(String key) {
    if (key.equals(QuiverTableOptions.PATH.key()) || key.equals("connector")) {
      return "the option '" + key + "' is the table's identity and cannot change";
    }
    if (QuiverTableOptions.STORE_OPTION_PREFIXES.stream().anyMatch(key::startsWith)) {
      return "the store option '" + key + "' belongs to the catalog, not to the table";
    }
    if (key.equals(PRIMARY_KEY)) {
      return "'" + PRIMARY_KEY + "' is set by ADD / DROP PRIMARY KEY";
    }
    return null;
  }

  private void apply(String name, Dataset ds, TableChange change) {
    if (change instanceof TableChange.AddColumn add) {
      Column c = add.getColumn();
      Field field = FlinkTypes.toArrowField(c.getName(), c.getDataType().getLogicalType(), c.getName());
      ds.columns().add(List.of(field));
    } else if (change instanceof TableChange.DropColumn drop) {
      if (primaryKey(ds.config()).contains(drop.getColumnName())) {
        throw new CatalogException("ALTER TABLE " + name + " DROP '" + drop.getColumnName() + "': it is in the"
            + " PRIMARY KEY; drop the key first");
      }
      ds.columns().drop(drop.getColumnName());
    } else if (change instanceof TableChange.ModifyColumnName rename) {
      List<String> key = new ArrayList<>(primaryKey(ds.config()));
      ds.columns().rename(rename.getOldColumnName(), rename.getNewColumnName());
      int i = key.indexOf(rename.getOldColumnName());
      if (i >= 0) {
        key.set(i, rename.getNewColumnName());
        ds.updateConfig(Map.of(PRIMARY_KEY, String.join(",", key)), Set.of());
      }
    } else if (change instanceof TableChange.SetOption set) {
      ds.updateConfig(Map.of(set.getKey(), set.getValue()), Set.of());
    } else if (change instanceof TableChange.ResetOption reset) {
      ds.updateConfig(Map.of(), Set.of(reset.getKey()));
    } else if (change instanceof TableChange.AddUniqueConstraint add) {
      setKey(name, ds, add.getConstraint());
    } else if (change instanceof TableChange.ModifyUniqueConstraint modify) {
      setKey(name, ds, modify.getNewConstraint());
    } else if (change instanceof TableChange.DropConstraint) {
      ds.updateConfig(Map.of(), Set.of(PRIMARY_KEY));
    } else if (change instanceof TableChange.ModifyPhysicalColumnType type) {
      ds.columns().setNullable(type.getOldColumn().getName(), type.getNewType().getLogicalType().isNullable());
    }
  }

  private void setKey(String name, Dataset ds, UniqueConstraint constraint) {
    RowType rowType = FlinkTypes.toRowType(ds.schema());
    for (String k : constraint.getColumns()) {
      if (rowType.getFieldIndex(k) < 0) {
        throw new CatalogException("ALTER TABLE " + name + ": PRIMARY KEY column '" + k + "' is not a column of the"
            + " table; its columns are " + rowType.getFieldNames());
      }
    }
    checkKey(name, rowType, constraint.getColumns());
    ds.updateConfig(Map.of(PRIMARY_KEY, String.join(",", constraint.getColumns())), Set.of());
  }

  // ---------------------------------------------------------------- statistics (row count from metadata)

  @Override
  public CatalogTableStatistics getTableStatistics(ObjectPath tablePath) throws TableNotExistException {
    String uri = uri(tablePath.getDatabaseName(), tablePath.getObjectName());
    try (Dataset ds = Dataset.open(uri, datasetOptions())) {
      return new CatalogTableStatistics(ds.countRows(), ds.manifest().fragments().size(), -1, -1);
    } catch (TableNotFoundException | StoreNotFoundException e) {
      throw new TableNotExistException(getName(), tablePath, e);
    }
  }

  @Override
  public CatalogColumnStatistics getTableColumnStatistics(ObjectPath tablePath) {
    return CatalogColumnStatistics.UNKNOWN;
  }

  @Override
  public void alterTableStatistics(ObjectPath tablePath, CatalogTableStatistics tableStatistics,
      boolean ignoreIfNotExists) {
    throw new CatalogException("ANALYZE TABLE / statistics of " + tablePath.getFullName() + ": a Quiver table keeps"
        + " its own statistics (row counts and column zone maps, written with the data); there is nothing to store");
  }

  @Override
  public void alterTableColumnStatistics(ObjectPath tablePath, CatalogColumnStatistics columnStatistics,
      boolean ignoreIfNotExists) {
    alterTableStatistics(tablePath, null, ignoreIfNotExists);
  }

  // ---------------------------------------------------------------- partitions: none

  private static TableNotPartitionedException notPartitioned(String catalog, ObjectPath path) {
    return new TableNotPartitionedException(catalog, path);
  }

  @Override
  public List<CatalogPartitionSpec> listPartitions(ObjectPath tablePath) throws TableNotPartitionedException {
    throw notPartitioned(getName(), tablePath);
  }

  @Override
  public List<CatalogPartitionSpec> listPartitions(ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws TableNotPartitionedException {
    throw notPartitioned(getName(), tablePath);
  }

  @Override
  public List<CatalogPartitionSpec> listPartitionsByFilter(ObjectPath tablePath, List<Expression> filters)
      throws TableNotPartitionedException {
    throw notPartitioned(getName(), tablePath);
  }

  @Override
  public CatalogPartition getPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws PartitionNotExistException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  @Override
  public boolean partitionExists(ObjectPath tablePath, CatalogPartitionSpec partitionSpec) {
    return false;
  }

  @Override
  public void createPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec, CatalogPartition partition,
      boolean ignoreIfExists) throws TableNotPartitionedException {
    throw notPartitioned(getName(), tablePath);
  }

  @Override
  public void dropPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec, boolean ignoreIfNotExists)
      throws PartitionNotExistException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  @Override
  public void alterPartition(ObjectPath tablePath, CatalogPartitionSpec partitionSpec,
      CatalogPartition newPartition, boolean ignoreIfNotExists) throws PartitionNotExistException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  @Override
  public CatalogTableStatistics getPartitionStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec)
      throws PartitionNotExistException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  @Override
  public CatalogColumnStatistics getPartitionColumnStatistics(ObjectPath tablePath,
      CatalogPartitionSpec partitionSpec) throws PartitionNotExistException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  @Override
  public void alterPartitionStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec,
      CatalogTableStatistics partitionStatistics, boolean ignoreIfNotExists) throws PartitionNotExistException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  @Override
  public void alterPartitionColumnStatistics(ObjectPath tablePath, CatalogPartitionSpec partitionSpec,
      CatalogColumnStatistics columnStatistics, boolean ignoreIfNotExists) throws PartitionNotExistException {
    throw new PartitionNotExistException(getName(), tablePath, partitionSpec);
  }

  // ---------------------------------------------------------------- functions: none

  @Override
  public List<String> listFunctions(String dbName) {
    return List.of();
  }

  @Override
  public CatalogFunction getFunction(ObjectPath functionPath) throws FunctionNotExistException {
    throw new FunctionNotExistException(getName(), functionPath);
  }

  @Override
  public boolean functionExists(ObjectPath functionPath) {
    return false;
  }

  @Override
  public void createFunction(ObjectPath functionPath, CatalogFunction function, boolean ignoreIfExists) {
    throw new CatalogException("CREATE FUNCTION " + functionPath.getFullName() + ": a Quiver catalog stores"
        + " tables only; create the function as a TEMPORARY or TEMPORARY SYSTEM function, or in another catalog");
  }

  @Override
  public void alterFunction(ObjectPath functionPath, CatalogFunction newFunction, boolean ignoreIfNotExists)
      throws FunctionNotExistException {
    throw new FunctionNotExistException(getName(), functionPath);
  }

  @Override
  public void dropFunction(ObjectPath functionPath, boolean ignoreIfNotExists) throws FunctionNotExistException {
    if (!ignoreIfNotExists) {
      throw new FunctionNotExistException(getName(), functionPath);
    }
  }
}
