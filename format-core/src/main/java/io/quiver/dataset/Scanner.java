package io.quiver.dataset;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.read.ScanReader;
import io.quiver.internal.table.TableIo;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Builds a scan of one version: which fields, how many rows per batch, whether to add row addresses.
 * Obtain one from {@link Dataset#newScan()}; {@link #open()} returns an {@link ArrowReader} the caller
 * closes.
 */
public final class Scanner {
  /** Default most rows per returned batch. */
  public static final int DEFAULT_BATCH_SIZE = 8192;

  private final TableIo io;
  private final Manifest manifest;
  private final BufferAllocator defaultAllocator;
  private List<String> columns;
  private List<Integer> fieldIds;
  private int batchSize = DEFAULT_BATCH_SIZE;
  private boolean withRowAddress;
  private BufferAllocator allocator;

  public Scanner(TableIo io, Manifest manifest, BufferAllocator defaultAllocator) {
    this.io = io;
    this.manifest = manifest;
    this.defaultAllocator = defaultAllocator;
  }

  /**
   * Projects by name: top-level names or dotted paths into structs ({@code "s.x"}). Output columns
   * follow the order given; a nested path keeps its struct ancestors with only the selected children.
   */
  public Scanner columns(List<String> names) {
    this.columns = List.copyOf(names);
    this.fieldIds = null;
    return this;
  }

  public Scanner columns(String... names) {
    return columns(List.of(names));
  }

  /** Projects by field id; output columns follow the order given. */
  public Scanner fieldIds(List<Integer> ids) {
    this.fieldIds = List.copyOf(ids);
    this.columns = null;
    return this;
  }

  /** Most rows per batch (default 8192). Batches may be smaller, e.g. at file batch boundaries. */
  public Scanner batchSize(int rows) {
    if (rows < 1) {
      throw new InvalidArgumentException("batch size must be >= 1, got " + rows);
    }
    this.batchSize = rows;
    return this;
  }

  /** Adds a non-nullable uint64 {@code _rowaddr} column (fragment id << 32 | offset) at the end. */
  public Scanner withRowAddress(boolean value) {
    this.withRowAddress = value;
    return this;
  }

  /** Allocator for the returned batches; defaults to the dataset handle's. */
  public Scanner allocator(BufferAllocator value) {
    this.allocator = value;
    return this;
  }

  /** The schema (with field ids) of the projected columns, without {@code _rowaddr}. */
  public Schema projectedSchema() {
    return project(manifest.schema(), columns, fieldIds);
  }

  /** Starts the scan. */
  public ArrowReader open() {
    return new ScanReader(
        io, manifest, projectedSchema(), withRowAddress, batchSize, allocator != null ? allocator : defaultAllocator);
  }

  static public Schema project(Schema schema, List<String> columns, List<Integer> fieldIds) {
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
      for (int id : fieldIds) {
        if (schema.findField(id).isEmpty()) {
          throw new InvalidArgumentException("no field with id " + id + " in the table schema");
        }
        ids.add(id);
      }
    } else {
      return schema;
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
