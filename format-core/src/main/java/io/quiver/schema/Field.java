package io.quiver.schema;

import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.internal.schema.ArrowConverter;
import io.quiver.internal.schema.TypeRules;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * One node of a table schema, identified by an id that survives renames and reordering.
 *
 * <p>Data files and statistics refer to columns by id, never by name or position, so a rename is a
 * metadata-only change and a dropped-then-re-added name is a new column. The compact constructor
 * rejects anything a table cannot store (see {@link Schema}), so a {@code Field} in hand is always
 * storable; errors from it name only this field, the conversions in {@link Schema} name full paths.
 *
 * @param id unique within the schema, {@code >= 0}
 * @param parentId id of the enclosing field, {@code -1} for top-level fields
 * @param metadata user metadata; stored key-sorted so encodings are deterministic. The key {@link
 *     Schema#FIELD_ID_KEY} is reserved.
 * @param children struct members, the single list item, or a map's single entries struct
 */
public record Field(
    int id,
    int parentId,
    String name,
    ArrowType type,
    boolean nullable,
    Map<String, String> metadata,
    List<Field> children) {

  public Field {
    if (name == null || name.isEmpty()) {
      throw new InvalidSchemaException(
          "field with id " + id + " has an empty name; every field needs a non-empty name");
    }
    if (id < 0) {
      throw new InvalidSchemaException("field '" + name + "' has negative id " + id);
    }
    if (parentId < -1) {
      throw new InvalidSchemaException(
          "field '" + name + "' has parentId " + parentId + "; use -1 for a top-level field");
    }
    if (parentId == id) {
      throw new InvalidSchemaException("field '" + name + "' (id " + id + ") is its own parent");
    }
    metadata = copyMetadata(name, metadata);
    children = children == null ? List.of() : List.copyOf(nonNull(name, children));
    TypeRules.check(name, id, type, children);
  }

  /** A field without metadata or children. */
  public static Field of(int id, int parentId, String name, ArrowType type, boolean nullable) {
    return new Field(id, parentId, name, type, nullable, Map.of(), List.of());
  }

  /**
   * Converts an Arrow field (e.g. a column being added) assigning fresh ids in depth-first preorder.
   * Ids are taken from the allocator only if the field is valid.
   */
  public static Field fromArrow(
      org.apache.arrow.vector.types.pojo.Field arrow, int parentId, FieldIdAllocator allocator) {
    return ArrowConverter.fromArrowFresh(arrow, parentId, allocator);
  }

  public boolean isStruct() {
    return type.getTypeID() == ArrowType.ArrowTypeID.Struct;
  }

  /**
   * Atomic = stored as one unit: any non-struct field (primitive, or a whole list/large list/fixed-size
   * list/map with its children). Structs are split into their members; lists and maps are not,
   * because their children have no row alignment with the table.
   */
  public boolean isAtomic() {
    return !isStruct();
  }

  /** The direct child with this name. */
  public Optional<Field> child(String childName) {
    for (Field c : children) {
      if (c.name.equals(childName)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /** Plain Arrow field with user metadata only, as handed to users. */
  public org.apache.arrow.vector.types.pojo.Field toArrow() {
    return ArrowConverter.toArrow(this, false);
  }

  /** Arrow field carrying every node's id in metadata {@link Schema#FIELD_ID_KEY}, for storage. */
  public org.apache.arrow.vector.types.pojo.Field toArrowWithIds() {
    return ArrowConverter.toArrow(this, true);
  }

  public FieldType arrowFieldType(Map<String, String> meta) {
    return new FieldType(nullable, type, null, meta.isEmpty() ? null : meta);
  }

  public Field withName(String newName) {
    return new Field(id, parentId, newName, type, nullable, metadata, children);
  }

  public Field withNullable(boolean newNullable) {
    return new Field(id, parentId, name, type, newNullable, metadata, children);
  }

  public Field withMetadata(Map<String, String> newMetadata) {
    return new Field(id, parentId, name, type, nullable, newMetadata, children);
  }

  /** Same node with other children (e.g. a projected struct); children must name this id as parent. */
  public Field withChildren(List<Field> newChildren) {
    return new Field(id, parentId, name, type, nullable, metadata, newChildren);
  }

  /** This field then its descendants, depth-first, children in order. */
  public List<Field> preorder() {
    List<Field> out = new ArrayList<>();
    collectPreorder(this, out);
    return Collections.unmodifiableList(out);
  }

  static void collectPreorder(Field f, List<Field> out) {
    out.add(f);
    for (Field c : f.children) {
      collectPreorder(c, out);
    }
  }

  private static Map<String, String> copyMetadata(String name, Map<String, String> metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return Map.of();
    }
    TreeMap<String, String> copy = new TreeMap<>();
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      if (e.getKey() == null || e.getValue() == null) {
        throw new InvalidSchemaException("field '" + name + "' has a null metadata key or value");
      }
      if (e.getKey().equals(Schema.FIELD_ID_KEY)) {
        throw new InvalidSchemaException(
            "field '" + name + "' has metadata key '" + Schema.FIELD_ID_KEY
                + "', which is reserved for Quiver's field ids");
      }
      copy.put(e.getKey(), e.getValue());
    }
    return Collections.unmodifiableMap(copy);
  }

  private static List<Field> nonNull(String name, List<Field> children) {
    for (Field c : children) {
      if (c == null) {
        throw new InvalidSchemaException("field '" + name + "' has a null child");
      }
    }
    return children;
  }
}
