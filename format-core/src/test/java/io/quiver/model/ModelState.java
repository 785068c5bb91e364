package io.quiver.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The reference model's view of one table version: the column names in schema order (the first is always
 * {@code id}) and every live row by id, each a map from column name to value (null for a null cell).
 * Immutable: every change returns a new state.
 */
public final class ModelState {
  private final List<String> columns;
  private final TreeMap<Long, Map<String, Object>> rows;

  ModelState(List<String> columns, TreeMap<Long, Map<String, Object>> rows) {
    this.columns = List.copyOf(columns);
    this.rows = rows;
  }

  public List<String> columns() {
    return columns;
  }

  /** Live rows by id (read-only). */
  public Map<Long, Map<String, Object>> rows() {
    return Collections.unmodifiableMap(rows);
  }

  public boolean has(String column) {
    return columns.contains(column);
  }

  ModelState withRows(Map<Long, Map<String, Object>> added) {
    TreeMap<Long, Map<String, Object>> next = copyRows();
    added.forEach((id, row) -> next.put(id, new HashMap<>(row)));
    return new ModelState(columns, next);
  }

  ModelState without(java.util.Collection<Long> ids) {
    TreeMap<Long, Map<String, Object>> next = copyRows();
    ids.forEach(next::remove);
    return new ModelState(columns, next);
  }

  /** Sets {@code column} of the rows in {@code values} that are live here, if the column exists here. */
  ModelState withValues(String column, Map<Long, Object> values) {
    if (!has(column)) {
      return this;
    }
    TreeMap<Long, Map<String, Object>> next = copyRows();
    values.forEach((id, value) -> {
      Map<String, Object> row = next.get(id);
      if (row != null) {
        row.put(column, value);
      }
    });
    return new ModelState(columns, next);
  }

  /** Adds a column: rows in {@code values} get their value, every other row null. */
  ModelState withColumn(String column, Map<Long, Object> values) {
    List<String> cols = new ArrayList<>(columns);
    cols.add(column);
    TreeMap<Long, Map<String, Object>> next = copyRows();
    next.forEach((id, row) -> row.put(column, values.get(id)));
    return new ModelState(cols, next);
  }

  ModelState withoutColumn(String column) {
    List<String> cols = new ArrayList<>(columns);
    cols.remove(column);
    TreeMap<Long, Map<String, Object>> next = copyRows();
    next.values().forEach(row -> row.remove(column));
    return new ModelState(cols, next);
  }

  private TreeMap<Long, Map<String, Object>> copyRows() {
    TreeMap<Long, Map<String, Object>> next = new TreeMap<>();
    rows.forEach((id, row) -> next.put(id, new HashMap<>(row)));
    return next;
  }

  /** A short description of how {@code actual} differs from this state, or null when equal. */
  String diff(ModelState actual) {
    if (!columns.equals(actual.columns)) {
      return "columns: model " + columns + ", quiver " + actual.columns;
    }
    if (!rows.keySet().equals(actual.rows.keySet())) {
      List<Long> missing = new ArrayList<>(rows.keySet());
      missing.removeAll(actual.rows.keySet());
      List<Long> extra = new ArrayList<>(actual.rows.keySet());
      extra.removeAll(rows.keySet());
      return "row ids: missing in quiver " + missing + ", not in model " + extra;
    }
    for (Map.Entry<Long, Map<String, Object>> e : rows.entrySet()) {
      Map<String, Object> other = actual.rows.get(e.getKey());
      for (String c : columns) {
        if (!Objects.equals(e.getValue().get(c), other.get(c))) {
          return "row id=" + e.getKey() + " column " + c + ": model " + e.getValue().get(c) + ", quiver "
              + other.get(c) + " (model row " + new TreeMap<>(e.getValue()) + ", quiver row "
              + new TreeMap<>(other) + ")";
        }
      }
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ModelState s && columns.equals(s.columns) && rows.equals(s.rows);
  }

  @Override
  public int hashCode() {
    return Objects.hash(columns, rows);
  }

  @Override
  public String toString() {
    return columns + " " + rows.size() + " rows " + rows.keySet();
  }
}
