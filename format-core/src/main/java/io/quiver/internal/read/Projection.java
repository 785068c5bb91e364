package io.quiver.internal.read;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Resolves a scan's projection (names, dotted paths or field ids) against a table schema. */
public final class Projection {
  private Projection() {}

  /**
   * The fields a projection selects: by name ({@code columns}), by id ({@code fieldIds}), or every field
   * when both are null. Output columns follow the order given; a nested path keeps its struct ancestors
   * with only the selected children.
   *
   * @throws InvalidArgumentException if a name or id is not in the schema
   */
  public static Schema project(Schema schema, List<String> columns, List<Integer> fieldIds) {
    if (columns == null && fieldIds == null) {
      return schema;
    }
    return byIds(schema, requestedIds(schema, columns, fieldIds));
  }

  /**
   * The field ids a projection names, in the order given (every top-level field when both are null): the
   * projection as a scan task carries it, so that {@link #byIds} rebuilds the same schema.
   */
  public static List<Integer> requestedIds(Schema schema, List<String> columns, List<Integer> fieldIds) {
    List<Integer> ids = new ArrayList<>();
    if (columns != null) {
      for (String name : columns) {
        Optional<Field> field = schema.findField(name);
        if (field.isEmpty()) {
          throw new InvalidArgumentException(
              "no column '" + name + "' in the table; columns are "
                  + schema.fields().stream().map(Field::name).toList());
        }
        ids.add(field.get().id());
      }
    } else if (fieldIds != null) {
      for (Integer id : fieldIds) {
        if (id == null || schema.findField(id).isEmpty()) {
          throw new InvalidArgumentException("no field with id " + id + " in the table schema");
        }
        ids.add(id);
      }
    } else {
      schema.fields().forEach(f -> ids.add(f.id()));
    }
    return ids;
  }

  /** The projection of {@code ids} (each present in the schema), top-level fields in the order given. */
  public static Schema byIds(Schema schema, List<Integer> ids) {
    for (int id : ids) {
      if (schema.findField(id).isEmpty()) {
        throw new InvalidArgumentException("no field with id " + id + " in the table schema");
      }
    }
    Schema projected = schema.project(ids);
    // Order the top-level fields as requested (project keeps schema order).
    Set<Integer> order = new LinkedHashSet<>();
    for (int id : ids) {
      order.add(topLevelOf(schema, id));
    }
    List<Field> ordered = new ArrayList<>();
    for (int top : order) {
      projected.fields().stream().filter(f -> f.id() == top).findFirst().ifPresent(ordered::add);
    }
    return new Schema(ordered, projected.metadata());
  }

  private static int topLevelOf(Schema schema, int id) {
    Field field = schema.field(id);
    while (field.parentId() >= 0) {
      field = schema.field(field.parentId());
    }
    return field.id();
  }
}
