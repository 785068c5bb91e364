package io.quiver.internal.schema;

import io.quiver.exceptions.InvalidSchemaException;
import io.quiver.schema.Field;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Which Arrow types and shapes a Quiver table can store. Shared by {@link Field}'s constructor and
 * the Arrow converter so both reject the same things, the converter with the full field path.
 */
final public class TypeRules {
  private TypeRules() {}

  static public void check(String path, int id, ArrowType type, List<Field> children) {
    checkType(path, type);
    checkChildren(path, id, type, children);
  }

  static void checkType(String path, ArrowType type) {
    if (type == null) {
      throw new InvalidSchemaException("field '" + path + "' has no type");
    }
    switch (type.getTypeID()) {
      case Null:
        throw unsupported(path, type, "a Null column has no storable values; use a nullable concrete type");
      case Union:
        throw unsupported(path, type, "union types are not supported; split the variants into separate nullable columns or a struct");
      case RunEndEncoded:
        throw unsupported(path, type, "run-end encoded arrays are not supported; decode to the value type first");
      case Utf8View:
      case BinaryView:
      case ListView:
      case LargeListView:
        throw unsupported(path, type, "view layouts are not supported; cast to the non-view type (Utf8, Binary, List, LargeList)");
      case Bool:
      case Utf8:
      case LargeUtf8:
      case Binary:
      case LargeBinary:
      case Date:
      case Timestamp:
      case Duration:
      case Interval:
      case FloatingPoint:
      case Struct:
      case List:
      case LargeList:
      case Map:
        return;
      case Int:
        {
          int w = ((ArrowType.Int) type).getBitWidth();
          if (w != 8 && w != 16 && w != 32 && w != 64) {
            throw unsupported(path, type, "integer bit width must be 8, 16, 32 or 64");
          }
          return;
        }
      case Decimal:
        {
          ArrowType.Decimal d = (ArrowType.Decimal) type;
          int maxPrecision;
          if (d.getBitWidth() == 128) {
            maxPrecision = 38;
          } else if (d.getBitWidth() == 256) {
            maxPrecision = 76;
          } else {
            throw unsupported(path, type, "decimal bit width must be 128 or 256");
          }
          if (d.getPrecision() < 1 || d.getPrecision() > maxPrecision) {
            throw unsupported(path, type, "decimal" + d.getBitWidth() + " precision must be in 1.." + maxPrecision);
          }
          if (d.getScale() > d.getPrecision()) {
            throw unsupported(path, type, "decimal scale must not exceed its precision");
          }
          return;
        }
      case Time:
        {
          ArrowType.Time t = (ArrowType.Time) type;
          boolean small = t.getUnit() == TimeUnit.SECOND || t.getUnit() == TimeUnit.MILLISECOND;
          int expected = small ? 32 : 64;
          if (t.getBitWidth() != expected) {
            throw unsupported(path, type, "time in " + t.getUnit() + " must be " + expected + " bits wide");
          }
          return;
        }
      case FixedSizeBinary:
        if (((ArrowType.FixedSizeBinary) type).getByteWidth() < 0) {
          throw unsupported(path, type, "byte width must not be negative");
        }
        return;
      case FixedSizeList:
        if (((ArrowType.FixedSizeList) type).getListSize() < 0) {
          throw unsupported(path, type, "list size must not be negative");
        }
        return;
      default:
        throw unsupported(path, type, "this Arrow type is not supported by Quiver");
    }
  }

  private static void checkChildren(String path, int id, ArrowType type, List<Field> children) {
    switch (type.getTypeID()) {
      case Struct:
        if (children.isEmpty()) {
          throw new InvalidSchemaException(
              "struct field '" + path + "' has no children; an empty struct cannot be stored reliably in Arrow IPC, add a child or drop the field");
        }
        break;
      case List:
      case LargeList:
      case FixedSizeList:
        if (children.size() != 1) {
          throw new InvalidSchemaException(
              "field '" + path + "' of type " + type + " must have exactly 1 child (the item field), found " + children.size());
        }
        break;
      case Map:
        checkMapChildren(path, type, children);
        break;
      default:
        if (!children.isEmpty()) {
          throw new InvalidSchemaException(
              "field '" + path + "' of type " + type + " must have no children, found " + children.size());
        }
    }
    Set<String> names = new HashSet<>();
    for (Field c : children) {
      if (c == null) {
        throw new InvalidSchemaException("field '" + path + "' has a null child");
      }
      if (!names.add(c.name())) {
        throw new InvalidSchemaException(
            "field '" + path + "' has two children named '" + c.name() + "'; child names must be unique");
      }
      if (c.parentId() != id) {
        throw new InvalidSchemaException(
            "field '" + FieldPaths.child(path, c.name()) + "' (id " + c.id() + ") has parentId " + c.parentId()
                + " but its parent '" + path + "' has id " + id);
      }
    }
  }

  private static void checkMapChildren(String path, ArrowType type, List<Field> children) {
    if (children.size() != 1) {
      throw new InvalidSchemaException(
          "map field '" + path + "' must have exactly 1 child (a non-nullable entries struct), found " + children.size());
    }
    Field entries = children.get(0);
    String entriesPath = FieldPaths.child(path, entries.name());
    if (!entries.isStruct()) {
      throw new InvalidSchemaException(
          "map field '" + path + "' must have a struct child, but '" + entriesPath + "' is " + entries.type());
    }
    if (entries.nullable()) {
      throw new InvalidSchemaException("map entries field '" + entriesPath + "' must not be nullable");
    }
    if (entries.children().size() != 2) {
      throw new InvalidSchemaException(
          "map entries field '" + entriesPath + "' must have exactly 2 children (key, value), found "
              + entries.children().size());
    }
    Field key = entries.children().get(0);
    if (key.nullable()) {
      throw new InvalidSchemaException(
          "map key field '" + FieldPaths.child(entriesPath, key.name()) + "' must not be nullable");
    }
  }

  private static InvalidSchemaException unsupported(String path, ArrowType type, String why) {
    return new InvalidSchemaException("field '" + path + "' has unsupported type " + type + ": " + why);
  }
}
