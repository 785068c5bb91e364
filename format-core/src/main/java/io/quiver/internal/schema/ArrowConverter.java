package io.quiver.internal.schema;

import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.schema.Field;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.types.pojo.ArrowType;

/** Arrow pojo &lt;-&gt; Quiver conversion; validates with full field paths in messages. */
final public class ArrowConverter {
  private ArrowConverter() {}

  /** Supplies the id of a node being converted. */
  private interface IdSource {
    int idFor(org.apache.arrow.vector.types.pojo.Field arrow, String path);
  }

  static public Schema fromArrowFresh(org.apache.arrow.vector.types.pojo.Schema arrow, FieldIdAllocator allocator) {
    requireNonNull(arrow);
    // Allocate on a scratch copy so a rejected schema consumes no ids.
    FieldIdAllocator scratch = new FieldIdAllocator(allocator.maxAllocated());
    IdSource ids = (f, p) -> scratch.next();
    List<Field> fields = new ArrayList<>();
    for (org.apache.arrow.vector.types.pojo.Field f : arrow.getFields()) {
      fields.add(convert(f, -1, "", ids, true));
    }
    Schema schema = new Schema(fields, arrow.getCustomMetadata());
    advance(allocator, scratch);
    return schema;
  }

  static public Field fromArrowFresh(
      org.apache.arrow.vector.types.pojo.Field arrow, int parentId, FieldIdAllocator allocator) {
    if (arrow == null) {
      throw new InvalidSchemaException("field is null");
    }
    FieldIdAllocator scratch = new FieldIdAllocator(allocator.maxAllocated());
    Field field = convert(arrow, parentId, "", (f, p) -> scratch.next(), true);
    advance(allocator, scratch);
    return field;
  }

  static public Schema fromArrowWithIds(org.apache.arrow.vector.types.pojo.Schema arrow) {
    requireNonNull(arrow);
    IdSource ids = ArrowConverter::readId;
    List<Field> fields = new ArrayList<>();
    for (org.apache.arrow.vector.types.pojo.Field f : arrow.getFields()) {
      fields.add(convert(f, -1, "", ids, false));
    }
    return new Schema(fields, arrow.getCustomMetadata());
  }

  static public org.apache.arrow.vector.types.pojo.Field toArrow(Field f, boolean withIds) {
    List<org.apache.arrow.vector.types.pojo.Field> children = new ArrayList<>(f.children().size());
    for (Field c : f.children()) {
      children.add(toArrow(c, withIds));
    }
    Map<String, String> meta = f.metadata();
    if (withIds) {
      Map<String, String> m = new TreeMap<>(meta);
      m.put(Schema.FIELD_ID_KEY, Integer.toString(f.id()));
      meta = m;
    }
    return new org.apache.arrow.vector.types.pojo.Field(f.name(), f.arrowFieldType(meta), children);
  }

  static public org.apache.arrow.vector.types.pojo.Schema toArrow(Schema s, boolean withIds) {
    List<org.apache.arrow.vector.types.pojo.Field> fields = new ArrayList<>(s.fields().size());
    for (Field f : s.fields()) {
      fields.add(toArrow(f, withIds));
    }
    return new org.apache.arrow.vector.types.pojo.Schema(fields, s.metadata().isEmpty() ? null : s.metadata());
  }

  private static Field convert(
      org.apache.arrow.vector.types.pojo.Field arrow,
      int parentId,
      String parentPath,
      IdSource ids,
      boolean stripIdKey) {
    String name = arrow.getName();
    if (name == null || name.isEmpty()) {
      throw new InvalidSchemaException(
          (parentPath.isEmpty() ? "a top-level field" : "a child of '" + parentPath + "'")
              + " has an empty name; every field needs a non-empty name");
    }
    String path = FieldPaths.child(parentPath, name);
    ArrowType type = arrow.getType();
    if (arrow.getDictionary() != null) {
      throw new InvalidSchemaException(
          "field '" + path + "' of type " + type + " is dictionary-encoded, which is not supported;"
              + " decode it to its value type first");
    }
    TypeRules.checkType(path, type);
    int id = ids.idFor(arrow, path); // before children: preorder
    List<Field> children = new ArrayList<>(arrow.getChildren().size());
    for (org.apache.arrow.vector.types.pojo.Field c : arrow.getChildren()) {
      children.add(convert(c, id, path, ids, stripIdKey));
    }
    TypeRules.check(path, id, type, children);
    Map<String, String> meta = arrow.getMetadata();
    if (meta != null && meta.containsKey(Schema.FIELD_ID_KEY)) {
      // Fresh conversion re-ids the field, so an id carried over from elsewhere is meaningless.
      meta = new TreeMap<>(meta);
      meta.remove(Schema.FIELD_ID_KEY);
    }
    return new Field(id, parentId, name, type, arrow.isNullable(), meta, children);
  }

  private static int readId(org.apache.arrow.vector.types.pojo.Field arrow, String path) {
    Map<String, String> meta = arrow.getMetadata();
    String raw = meta == null ? null : meta.get(Schema.FIELD_ID_KEY);
    if (raw == null) {
      throw new InvalidSchemaException(
          "field '" + path + "' has no '" + Schema.FIELD_ID_KEY + "' metadata; a stored Quiver schema"
              + " carries an id on every field (use Schema.fromArrow to assign fresh ids)");
    }
    int id;
    try {
      id = Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
      id = -1;
    }
    if (id < 0 || !raw.equals(Integer.toString(id))) {
      throw new InvalidSchemaException(
          "field '" + path + "' has invalid '" + Schema.FIELD_ID_KEY + "' metadata '" + raw
              + "'; expected a non-negative integer");
    }
    return id;
  }

  private static void advance(FieldIdAllocator allocator, FieldIdAllocator scratch) {
    while (allocator.maxAllocated() < scratch.maxAllocated()) {
      allocator.next();
    }
  }

  private static void requireNonNull(org.apache.arrow.vector.types.pojo.Schema arrow) {
    if (arrow == null) {
      throw new InvalidSchemaException("schema is null");
    }
  }
}
