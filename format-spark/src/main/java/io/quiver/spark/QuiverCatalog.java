package io.quiver.spark;

import io.quiver.dataset.Dataset;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StoreNotFoundException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.spark.types.SparkTypes;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.Prefixes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.StagingTableCatalog;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Spark catalog of Quiver tables under one warehouse URI, with no catalog server: table {@code db.t} is
 * the Quiver table at {@code <warehouse>/db/t}, and namespaces are path prefixes.
 *
 * <pre>
 * spark.sql.catalog.quiver            = io.quiver.spark.QuiverCatalog
 * spark.sql.catalog.quiver.warehouse  = s3://bucket/warehouse      (any scheme a store adapter handles)
 * spark.sql.catalog.quiver.&lt;option&gt;   = store options (endpoint, region, credentials …), given to every table
 * </pre>
 *
 * <p>Supports CREATE TABLE (AS SELECT), DROP TABLE (deletes the table's objects), ALTER TABLE ADD / DROP /
 * RENAME COLUMN, ALTER COLUMN … DROP/SET NOT NULL, SET / UNSET TBLPROPERTIES (the table's configuration),
 * SHOW TBLPROPERTIES, time travel ({@code VERSION AS OF} a version or a tag, {@code TIMESTAMP AS OF}). A
 * table property {@code location} at creation places the table elsewhere than under the warehouse.
 */
public class QuiverCatalog implements StagingTableCatalog, SupportsNamespaces, ProcedureCatalog {
  /** Catalog option naming the warehouse URI. */
  public static final String WAREHOUSE = "warehouse";

  /** Spark's own table properties, which are not table configuration. */
  private static final Set<String> SPARK_PROPERTIES = Set.of(TableCatalog.PROP_PROVIDER, TableCatalog.PROP_OWNER,
      TableCatalog.PROP_LOCATION, TableCatalog.PROP_COMMENT, TableCatalog.PROP_EXTERNAL,
      TableCatalog.PROP_IS_MANAGED_LOCATION, "quiver.version");

  private String name;
  private String warehouse;
  private Map<String, String> storeOptions;

  @Override
  public void initialize(String catalogName, CaseInsensitiveStringMap options) {
    this.name = catalogName;
    String w = options.get(WAREHOUSE);
    if (w == null || w.isBlank()) {
      throw new InvalidArgumentException("catalog '" + catalogName + "' needs a warehouse URI: set spark.sql.catalog."
          + catalogName + "." + WAREHOUSE + " (for example file:/data/warehouse or s3://bucket/warehouse)");
    }
    this.warehouse = w.endsWith("/") ? w.substring(0, w.length() - 1) : w;
    Map<String, String> store = new TreeMap<>();
    options.asCaseSensitiveMap().forEach((k, v) -> {
      if (!k.equalsIgnoreCase(WAREHOUSE)) {
        store.put(k, v);
      }
    });
    this.storeOptions = store;
  }

  @Override
  public String name() {
    return name;
  }

  /** The warehouse URI tables live under. */
  public String warehouse() {
    return warehouse;
  }

  TableRef ref(Identifier ident) {
    return new TableRef(uri(ident.namespace(), ident.name()), storeOptions);
  }

  private String uri(String[] namespace, String leaf) {
    StringBuilder b = new StringBuilder(warehouse);
    for (String part : namespace) {
      b.append('/').append(checkName(part));
    }
    if (leaf != null) {
      b.append('/').append(checkName(leaf));
    }
    return b.toString();
  }

  private static String checkName(String part) {
    if (part.isEmpty() || part.contains("/") || part.equals(".") || part.equals("..") || part.startsWith("_")) {
      throw new InvalidArgumentException("'" + part + "' cannot name a Quiver namespace or table: names are path"
          + " segments, so they must be non-empty, contain no '/', and not start with '_' (reserved for Quiver)");
    }
    return part;
  }

  // ---------------------------------------------------------------- tables

  @Override
  public Identifier[] listTables(String[] namespace) {
    List<Identifier> out = new ArrayList<>();
    for (Prefixes.Child child : children(namespace)) {
      if (child.table()) {
        out.add(Identifier.of(namespace, child.name()));
      }
    }
    return out.toArray(new Identifier[0]);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return load(ident, new VersionRef.Latest());
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    return load(ident, VersionRef.ofVersionString(version));
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    // Spark gives TIMESTAMP AS OF in microseconds since the epoch.
    return load(ident, new VersionRef.AsOf(java.time.Instant.EPOCH.plusNanos(Math.multiplyExact(timestamp, 1000L))));
  }

  private Table load(Identifier ident, VersionRef version) throws NoSuchTableException {
    if (ident.name().equals("changes") && ident.namespace().length > 0 && !isTable(ref(ident))) {
      // db.events.changes: the change feed of db.events (a table with row ids).
      String[] ns = ident.namespace();
      Identifier table = Identifier.of(java.util.Arrays.copyOf(ns, ns.length - 1), ns[ns.length - 1]);
      try {
        return io.quiver.spark.read.ChangeFeedTable.load(name + "." + ident, ref(table),
            org.apache.spark.sql.util.CaseInsensitiveStringMap.empty());
      } catch (TableNotFoundException | StoreNotFoundException e) {
        throw new NoSuchTableException(ident);
      }
    }
    Optional<MetadataTable.Kind> kind = MetadataTable.Kind.of(ident.name());
    if (kind.isPresent() && ident.namespace().length > 0 && !isTable(ref(ident))) {
      // db.events.history: the metadata table of db.events (a table of that name comes first).
      String[] ns = ident.namespace();
      Identifier table = Identifier.of(java.util.Arrays.copyOf(ns, ns.length - 1), ns[ns.length - 1]);
      try {
        return MetadataTable.load(name + "." + ident, kind.get(), ref(table), version);
      } catch (TableNotFoundException | StoreNotFoundException | InvalidArgumentException e) {
        throw new NoSuchTableException(ident); // no table db.events either
      }
    }
    try {
      return QuiverTable.load(name + "." + ident, ref(ident), version);
    } catch (TableNotFoundException | StoreNotFoundException e) {
      throw new NoSuchTableException(ident);
    }
  }

  private boolean isTable(TableRef ref) {
    try (ObjectStore store = ObjectStores.defaultRegistry().open(ref.uri(), storeOptions)) {
      return Prefixes.isTable(store, "");
    } catch (StoreNotFoundException e) {
      return false;
    }
  }

  /** The Quiver table {@code ident} names; a metadata table ({@code db.t.history}) is refused as a target. */
  private QuiverTable dataTable(Identifier ident) throws NoSuchTableException {
    Table t = loadTable(ident);
    if (t instanceof QuiverTable q) {
      return q;
    }
    throw new InvalidArgumentException(name + "." + ident + " is a metadata table of " + name + "."
        + String.join(".", ident.namespace()) + ", computed from its manifest: it cannot be replaced or written");
  }

  @Override
  public boolean tableExists(Identifier ident) {
    try {
      loadTable(ident);
      return true;
    } catch (NoSuchTableException e) {
      return false;
    }
  }

  @Override
  public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
      throws org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException {
    if (partitions != null && partitions.length > 0) {
      throw new InvalidArgumentException("Quiver tables are not partitioned; drop PARTITIONED BY "
          + java.util.Arrays.toString(partitions) + " (filters prune fragments instead)");
    }
    StructType schema = new StructType();
    for (Column c : columns) {
      schema = schema.add(new StructField(c.name(), c.dataType(), c.nullable(),
          org.apache.spark.sql.types.Metadata.empty()));
    }
    String location = properties.get(TableCatalog.PROP_LOCATION);
    TableRef ref = location == null || location.isBlank() ? ref(ident) : new TableRef(location, storeOptions);
    Map<String, String> config = tableConfig(properties);
    org.apache.arrow.vector.types.pojo.Schema arrow = SparkTypes.toArrow(schema);
    try (Dataset ds = Dataset.create(ref.uri(), arrow, List.of(), ref.datasetOptions())) {
      if (!config.isEmpty()) {
        ds.updateConfig(config, Set.of());
      }
      return new QuiverTable(name + "." + ident, ref, ds, true);
    } catch (io.quiver.exceptions.TableAlreadyExistsException e) {
      throw new org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException(ident);
    }
  }

  // ---------------------------------------------------------------- atomic CTAS / RTAS

  /** CREATE TABLE … AS SELECT: the table is created empty, the query's rows are one append; abort drops it. */
  @Override
  public StagedTable stageCreate(Identifier ident, Column[] columns, Transform[] partitions,
      Map<String, String> properties) throws org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException {
    QuiverTable created = (QuiverTable) createTable(ident, columns, partitions, properties);
    return new StagedQuiverTable(this, ident, created, false, true, Map.of());
  }

  /**
   * REPLACE TABLE … AS SELECT: one overwrite commit of the existing table (its history stays; a failed query
   * leaves it as it was). The new schema must be the table's: Quiver replaces rows atomically only with the
   * schema kept, so a schema change is refused before anything is written.
   */
  @Override
  public StagedTable stageReplace(Identifier ident, Column[] columns, Transform[] partitions,
      Map<String, String> properties) throws NoSuchTableException {
    return replacing(ident, dataTable(ident), columns, partitions, properties);
  }

  @Override
  public StagedTable stageCreateOrReplace(Identifier ident, Column[] columns, Transform[] partitions,
      Map<String, String> properties) {
    try {
      return replacing(ident, dataTable(ident), columns, partitions, properties);
    } catch (NoSuchTableException e) {
      try {
        return stageCreate(ident, columns, partitions, properties);
      } catch (org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException raced) {
        throw new io.quiver.exceptions.TableAlreadyExistsException("table " + ident + " was created by another"
            + " writer during CREATE OR REPLACE; run the statement again");
      }
    }
  }

  private StagedTable replacing(Identifier ident, QuiverTable existing, Column[] columns, Transform[] partitions,
      Map<String, String> properties) {
    if (partitions != null && partitions.length > 0) {
      throw new InvalidArgumentException("Quiver tables are not partitioned; drop PARTITIONED BY "
          + java.util.Arrays.toString(partitions));
    }
    StructType wanted = new StructType();
    for (Column c : columns) {
      wanted = wanted.add(new StructField(c.name(), c.dataType(), c.nullable(),
          org.apache.spark.sql.types.Metadata.empty()));
    }
    if (!sameTypes(wanted, existing.schema())) {
      throw new io.quiver.exceptions.SchemaMismatchException("REPLACE TABLE " + ident + " AS SELECT would change"
          + " its schema from " + SparkTypes.toSpark(existing.arrowSchema()).simpleString() + " to "
          + wanted.simpleString() + "; Quiver replaces a table's rows in one commit only with its schema kept."
          + " Nothing was changed: select the table's columns, ALTER the columns first, or DROP the table and"
          + " CREATE it AS SELECT");
    }
    return new StagedQuiverTable(this, ident, existing, true, false, tableConfig(properties));
  }

  /** Same names and Spark types, in order, nullability aside (the query's may be wider or narrower). */
  private static boolean sameTypes(org.apache.spark.sql.types.DataType a, org.apache.spark.sql.types.DataType b) {
    if (a instanceof StructType x && b instanceof StructType y) {
      if (x.fields().length != y.fields().length) {
        return false;
      }
      for (int i = 0; i < x.fields().length; i++) {
        if (!x.fields()[i].name().equals(y.fields()[i].name())
            || !sameTypes(x.fields()[i].dataType(), y.fields()[i].dataType())) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof org.apache.spark.sql.types.ArrayType x && b instanceof org.apache.spark.sql.types.ArrayType y) {
      return sameTypes(x.elementType(), y.elementType());
    }
    if (a instanceof org.apache.spark.sql.types.MapType x && b instanceof org.apache.spark.sql.types.MapType y) {
      return sameTypes(x.keyType(), y.keyType()) && sameTypes(x.valueType(), y.valueType());
    }
    return a.equals(b);
  }

  private static Map<String, String> tableConfig(Map<String, String> properties) {
    Map<String, String> config = new TreeMap<>();
    properties.forEach((k, v) -> {
      if (!SPARK_PROPERTIES.contains(k) && !k.startsWith(TableCatalog.OPTION_PREFIX)) {
        config.put(k, v);
      }
    });
    return config;
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    TableRef ref = ref(ident);
    try (Dataset ds = ref.open()) {
      for (TableChange change : changes) {
        apply(ds, change);
      }
      return new QuiverTable(name + "." + ident, ref, ds, true);
    } catch (TableNotFoundException | StoreNotFoundException e) {
      throw new NoSuchTableException(ident);
    }
  }

  private static void apply(Dataset ds, TableChange change) {
    if (change instanceof TableChange.AddColumn add) {
      String[] path = add.fieldNames();
      if (path.length != 1) {
        throw new InvalidArgumentException("ALTER TABLE ADD COLUMN " + String.join(".", path) + ": Quiver adds"
            + " top-level columns only; add the struct member by replacing the struct column");
      }
      if (!add.isNullable()) {
        throw new InvalidArgumentException("ALTER TABLE ADD COLUMN " + path[0] + " NOT NULL: existing rows would"
            + " have no value; add it nullable, fill it (io.quiver.spark.QuiverSpark.backfill), then ALTER COLUMN"
            + " SET NOT NULL");
      }
      Field arrow = SparkTypes.toArrow(path[0], add.dataType(), true);
      ds.columns().add(List.of(arrow));
    } else if (change instanceof TableChange.DeleteColumn del) {
      String column = String.join(".", del.fieldNames());
      if (del.ifExists() && ds.schema().findField(column).isEmpty()) {
        return;
      }
      ds.columns().drop(column);
    } else if (change instanceof TableChange.RenameColumn rename) {
      ds.columns().rename(String.join(".", rename.fieldNames()), rename.newName());
    } else if (change instanceof TableChange.UpdateColumnNullability nullability) {
      ds.columns().setNullable(String.join(".", nullability.fieldNames()), nullability.nullable());
    } else if (change instanceof TableChange.SetProperty set) {
      if (!SPARK_PROPERTIES.contains(set.property())) {
        ds.updateConfig(Map.of(set.property(), set.value()), Set.of());
      }
    } else if (change instanceof TableChange.RemoveProperty remove) {
      if (!SPARK_PROPERTIES.contains(remove.property())) {
        ds.updateConfig(Map.of(), Set.of(remove.property()));
      }
    } else {
      throw new InvalidArgumentException("ALTER TABLE change " + change.getClass().getSimpleName() + " is not"
          + " supported by Quiver; supported: ADD COLUMN, DROP COLUMN, RENAME COLUMN, ALTER COLUMN DROP/SET NOT NULL,"
          + " SET/UNSET TBLPROPERTIES");
    }
  }

  /** Deletes every object of the table: its versions first (so it stops being a table at once), then the rest. */
  @Override
  public boolean dropTable(Identifier ident) {
    TableRef ref = ref(ident);
    if (!tableExists(ident)) {
      return false;
    }
    try (ObjectStore store = ObjectStores.defaultRegistry().open(ref.uri(), ref.storeOptions())) {
      List<String> versions = store.listAll("_versions/").stream().map(ObjectInfo::key).toList();
      store.deleteAll(versions);
      store.deleteAll(store.listAll("").stream().map(ObjectInfo::key).toList());
    }
    return true;
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    return dropTable(ident);
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent) {
    throw new UnsupportedOperationException("Quiver tables cannot be renamed: a table is its location, and object"
        + " stores have no atomic rename. Create the new table AS SELECT from the old one, then DROP the old one");
  }

  // ---------------------------------------------------------------- procedures (CALL quiver.system.…)

  @Override
  public org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure loadProcedure(Identifier ident) {
    org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure p = Procedures.load(this, ident);
    if (p == null) {
      throw new InvalidArgumentException("no procedure " + name + "." + ident + "; catalog " + name + " has "
          + Procedures.NAMES.stream().map(n -> "system." + n).toList());
    }
    return p;
  }

  @Override
  public Identifier[] listProcedures(String[] namespace) {
    if (namespace.length != 1 || !namespace[0].equals("system")) {
      return new Identifier[0];
    }
    return Procedures.NAMES.stream().map(n -> Identifier.of(namespace, n)).toArray(Identifier[]::new);
  }

  /** A procedure's {@code table} argument: {@code namespace.name} in this catalog, or a URI. */
  TableRef resolve(String table) {
    if (table.contains(":/") || table.startsWith("/")) {
      return new TableRef(table, storeOptions);
    }
    String[] parts = table.split("\\.");
    if (parts.length < 2) {
      throw new InvalidArgumentException("'" + table + "' names no table of catalog '" + name + "': give"
          + " namespace.table (for example db.events) or a URI");
    }
    return ref(Identifier.of(java.util.Arrays.copyOf(parts, parts.length - 1), parts[parts.length - 1]));
  }

  // ---------------------------------------------------------------- namespaces (path prefixes)

  /** The direct children of a namespace: tables and namespaces (none if the store is not there). */
  private List<Prefixes.Child> children(String[] namespace) {
    ObjectStore store;
    try {
      store = ObjectStores.defaultRegistry().open(uri(namespace, null), storeOptions);
    } catch (StoreNotFoundException e) {
      return List.of();
    }
    try (store) {
      return Prefixes.children(store);
    }
  }

  @Override
  public String[][] listNamespaces() {
    return listNamespaces(new String[0]);
  }

  @Override
  public String[][] listNamespaces(String[] namespace) {
    List<String[]> out = new ArrayList<>();
    for (Prefixes.Child child : children(namespace)) {
      if (!child.table()) {
        String[] ns = java.util.Arrays.copyOf(namespace, namespace.length + 1);
        ns[namespace.length] = child.name();
        out.add(ns);
      }
    }
    return out.toArray(new String[0][]);
  }

  /** Namespaces are path prefixes: every namespace exists (it is empty until a table is created in it). */
  @Override
  public boolean namespaceExists(String[] namespace) {
    for (String part : namespace) {
      checkName(part);
    }
    return true;
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace) {
    return Map.of("location", uri(namespace, null));
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata) {
    for (String part : namespace) {
      checkName(part);
    }
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {
    throw new UnsupportedOperationException("Quiver namespaces are path prefixes and hold no properties");
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade) {
    Set<String> tables = new TreeSet<>();
    for (Identifier t : listTables(namespace)) {
      tables.add(t.name());
    }
    if (!tables.isEmpty() && !cascade) {
      throw new InvalidArgumentException("namespace " + String.join(".", namespace) + " holds tables " + tables
          + "; drop them first or use DROP NAMESPACE … CASCADE");
    }
    for (String t : tables) {
      dropTable(Identifier.of(namespace, t));
    }
    return true;
  }
}
