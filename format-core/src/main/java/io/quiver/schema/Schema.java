package io.quiver.schema;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.internal.schema.ArrowConverter;
import io.quiver.internal.schema.FieldPaths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A table schema: a tree of {@link Field}s with ids that are unique across the whole tree.
 *
 * <p>Ids, not names or positions, tie data files to columns, so that renames and reorders never
 * rewrite data and a dropped column's data can never resurface under a new column. The compact
 * constructor accepts only what a table can store:
 *
 * <ul>
 *   <li>types: Bool, Int (8/16/32/64, signed or not), FloatingPoint, Utf8, LargeUtf8, Binary,
 *       LargeBinary, FixedSizeBinary, Decimal (128/256), Date, Time, Timestamp, Duration, Interval,
 *       List, LargeList, FixedSizeList, Map, Struct. Null, Union, RunEndEncoded, view types and
 *       dictionary encoding are rejected;
 *   <li>lists have exactly one child; a map has one non-nullable struct child with a non-nullable
 *       key and a value; a struct has at least one child (empty structs do not survive Arrow IPC);
 *   <li>names are non-empty and unique among siblings; top-level names are not {@linkplain
 *       ReservedNames reserved} (nested fields may use those names: system columns are top-level
 *       only);
 *   <li>ids are {@code >= 0}, unique, and every {@code parentId} matches the tree.
 * </ul>
 *
 * <p>Lookups walk the tree (O(number of fields)); schemas are small and this keeps the record a
 * plain value.
 */
public record Schema(List<Field> fields, Map<String, String> metadata) {

  /** Arrow field-metadata key under which a stored schema carries each node's id. */
  public static final String FIELD_ID_KEY = "quiver:field_id";

  private static final Schema EMPTY = new Schema(List.of(), Map.of());

  public Schema {
    fields = fields == null ? List.of() : List.copyOf(fields);
    metadata = copyMetadata(metadata);
    validate(fields);
  }

  public Schema(List<Field> fields) {
    this(fields, Map.of());
  }

  public static Schema empty() {
    return EMPTY;
  }

  /**
   * Assigns fresh ids depth-first preorder (parent before children, children in order; list/map
   * children get ids too) from {@code allocator.next()}, so ids are dense from the allocator's
   * next id. Any {@link #FIELD_ID_KEY} metadata on the input is dropped. Validates; a rejected
   * schema consumes no ids.
   */
  public static Schema fromArrow(org.apache.arrow.vector.types.pojo.Schema arrow, FieldIdAllocator allocator) {
    return ArrowConverter.fromArrowFresh(arrow, allocator);
  }

  /**
   * Reads ids from {@link #FIELD_ID_KEY} metadata on every node (as written by {@link
   * #toArrowWithIds()}); missing/bad id -> InvalidSchemaException naming the field path.
   */
  public static Schema fromArrowWithIds(org.apache.arrow.vector.types.pojo.Schema arrow) {
    return ArrowConverter.fromArrowWithIds(arrow);
  }

  /** The schema as users see it: user metadata only, no ids. */
  public org.apache.arrow.vector.types.pojo.Schema toArrow() {
    return ArrowConverter.toArrow(this, false);
  }

  /** The schema as stored: every node carries {@link #FIELD_ID_KEY}. */
  public org.apache.arrow.vector.types.pojo.Schema toArrowWithIds() {
    return ArrowConverter.toArrow(this, true);
  }

  public Optional<Field> findField(int id) {
    for (Field f : allFields()) {
      if (f.id() == id) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** Like {@link #findField(int)}, for ids the caller knows are in this schema. */
  public Field field(int id) {
    return findField(id).orElseThrow(() -> unknownId(id));
  }

  /**
   * Looks a field up by dotted path of names, e.g. {@code "a.b"}, {@code "tags.item"}, {@code
   * "m.entries.key"}. A name containing {@code '.'} or {@code '`'} is written in backticks with
   * {@code '`'} doubled ({@code "`a.b`.c"}), as {@link #pathOf} produces. Malformed paths find
   * nothing.
   */
  public Optional<Field> findField(String dottedPath) {
    Optional<List<String>> names = FieldPaths.parse(dottedPath);
    if (names.isEmpty()) {
      return Optional.empty();
    }
    List<Field> level = fields;
    Field found = null;
    for (String name : names.get()) {
      found = null;
      for (Field f : level) {
        if (f.name().equals(name)) {
          found = f;
          break;
        }
      }
      if (found == null) {
        return Optional.empty();
      }
      level = found.children();
    }
    return Optional.ofNullable(found);
  }

  public Optional<Field> findTopLevel(String name) {
    for (Field f : fields) {
      if (f.name().equals(name)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** Dotted path of the field (see {@link #findField(String)} for quoting). Unknown id -> InvalidArgumentException. */
  public String pathOf(int id) {
    for (Field f : fields) {
      String p = pathOf(f, "", id);
      if (p != null) {
        return p;
      }
    }
    throw unknownId(id);
  }

  private static String pathOf(Field f, String parentPath, int id) {
    String path = FieldPaths.child(parentPath, f.name());
    if (f.id() == id) {
      return path;
    }
    for (Field c : f.children()) {
      String p = pathOf(c, path, id);
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  /** The enclosing field; empty for a top-level field. Unknown id -> InvalidArgumentException. */
  public Optional<Field> parentOf(int id) {
    Field f = field(id);
    return f.parentId() == -1 ? Optional.empty() : findField(f.parentId());
  }

  /**
   * Largest id in this schema, or {@code -1} when the schema has no fields (so {@code new
   * FieldIdAllocator(maxFieldId())} starts at 0 for a new table). Not a high-water mark: ids of
   * dropped fields are not counted, so existing tables must allocate from the manifest's mark.
   */
  public int maxFieldId() {
    int max = -1;
    for (Field f : allFields()) {
      max = Math.max(max, f.id());
    }
    return max;
  }

  /** Every node, depth-first preorder. */
  public List<Field> allFields() {
    List<Field> out = new ArrayList<>();
    for (Field f : fields) {
      Field.collectPreorder(f, out);
    }
    return Collections.unmodifiableList(out);
  }

  /**
   * Atomic fields whose ancestors are all structs, in preorder. A data file stores exactly these as
   * its "leaf" columns: structs are transparent, a list or map is written whole.
   */
  public List<Field> atomicFields() {
    List<Field> out = new ArrayList<>();
    collectAtomic(fields, out);
    return Collections.unmodifiableList(out);
  }

  private static void collectAtomic(List<Field> level, List<Field> out) {
    for (Field f : level) {
      if (f.isStruct()) {
        collectAtomic(f.children(), out);
      } else {
        out.add(f);
      }
    }
  }

  /**
   * Sub-schema keeping the given field ids: a requested struct keeps all its descendants; a requested
   * atomic field keeps its ancestor structs (with only requested descendants); requesting a child of
   * a list/map selects the whole atomic field, since it cannot be read apart from it. Order follows
   * the schema, not the request; ids are unchanged; schema metadata is kept. Unknown id ->
   * InvalidArgumentException.
   */
  public Schema project(Collection<Integer> fieldIds) {
    if (fieldIds == null) {
      throw new InvalidArgumentException("fieldIds must not be null");
    }
    Map<Integer, Field> byId = new HashMap<>();
    for (Field f : allFields()) {
      byId.put(f.id(), f);
    }
    Set<Integer> selected = new HashSet<>();
    for (Integer id : fieldIds) {
      if (id == null || !byId.containsKey(id)) {
        throw unknownId(id);
      }
      selected.add(selectionAnchor(byId, id));
    }
    List<Field> kept = projectLevel(fields, selected);
    return new Schema(kept, metadata);
  }

  /** The outermost non-struct ancestor-or-self if there is one, else the field itself. */
  private static int selectionAnchor(Map<Integer, Field> byId, int id) {
    int anchor = id;
    for (Field f = byId.get(id); f != null; f = f.parentId() == -1 ? null : byId.get(f.parentId())) {
      if (f.isAtomic()) {
        anchor = f.id();
      }
    }
    return anchor;
  }

  private static List<Field> projectLevel(List<Field> level, Set<Integer> selected) {
    List<Field> out = new ArrayList<>();
    for (Field f : level) {
      if (selected.contains(f.id())) {
        out.add(f);
      } else if (f.isStruct()) {
        List<Field> children = projectLevel(f.children(), selected);
        if (!children.isEmpty()) {
          out.add(f.withChildren(children));
        }
      }
    }
    return out;
  }

  /** Same ids, tree shape, names, types and nullability; metadata (field and schema) is ignored. */
  public boolean sameStructure(Schema other) {
    return other != null && sameStructure(fields, other.fields);
  }

  private static boolean sameStructure(List<Field> a, List<Field> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Field x = a.get(i);
      Field y = b.get(i);
      if (x.id() != y.id()
          || x.parentId() != y.parentId()
          || x.nullable() != y.nullable()
          || !x.name().equals(y.name())
          || !x.type().equals(y.type())
          || !sameStructure(x.children(), y.children())) {
        return false;
      }
    }
    return true;
  }

  private InvalidArgumentException unknownId(Integer id) {
    return new InvalidArgumentException(
        "no field with id " + id + " in the schema (" + allFields().size() + " fields, max id "
            + maxFieldId() + ")");
  }

  private static void validate(List<Field> fields) {
    Set<String> topNames = new HashSet<>();
    Map<Integer, String> pathsById = new HashMap<>();
    for (Field f : fields) {
      if (f == null) {
        throw new InvalidSchemaException("schema has a null field");
      }
      if (ReservedNames.isReserved(f.name())) {
        throw new InvalidSchemaException(ReservedNames.reservedMessage(f.name()));
      }
      if (!topNames.add(f.name())) {
        throw new InvalidSchemaException(
            "duplicate column name '" + f.name() + "'; top-level names must be unique");
      }
      if (f.parentId() != -1) {
        throw new InvalidSchemaException(
            "top-level field '" + FieldPaths.quote(f.name()) + "' (id " + f.id() + ") has parentId "
                + f.parentId() + "; top-level fields must have parentId -1");
      }
      checkIds(f, "", pathsById);
    }
  }

  private static void checkIds(Field f, String parentPath, Map<Integer, String> pathsById) {
    String path = FieldPaths.child(parentPath, f.name());
    String previous = pathsById.putIfAbsent(f.id(), path);
    if (previous != null) {
      throw new InvalidSchemaException(
          "field id " + f.id() + " is used by both '" + previous + "' and '" + path
              + "'; field ids must be unique in a schema");
    }
    for (Field c : f.children()) {
      checkIds(c, path, pathsById);
    }
  }

  private static Map<String, String> copyMetadata(Map<String, String> metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return Map.of();
    }
    TreeMap<String, String> copy = new TreeMap<>();
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        throw new InvalidSchemaException("schema metadata has a null key or value");
      }
      copy.put(e.getKey(), e.getValue());
    }
    return Collections.unmodifiableMap(copy);
  }
}
