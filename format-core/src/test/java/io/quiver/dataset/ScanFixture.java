package io.quiver.dataset;

import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * A {@link SampleTable} on a fresh {@code memory://} table with everything a scan merges: five fragments
 * (60 rows per fragment, 16 rows per file batch), deletions in three of them, overlays on {@code name} and
 * on the struct member {@code s.x}, and rows read back as strings for comparisons.
 */
final class ScanFixture {
  private ScanFixture() {}

  /** Options for a handle on a {@code memory://} table: this allocator, its own cache. */
  static DatasetOptions options(BufferAllocator allocator) {
    return DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .rowsPerBatch(16)
        .maxRowsPerFragment(60)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  static String newUri() {
    return "memory://scan-" + UUID.randomUUID() + "/t";
  }

  /**
   * Ids 0..199 in fragments [0,60) [60,100) [100,160) [160,180) [180,200); deleted: 3, 4, 5, 40, 41, 65..69,
   * 150, 199; name = "upd" for ids 10..19 and 155..157 (overlays); s.x updated to 999 for ids 100..104 (an overlay
   * on a struct member; id 104's struct is null, and stays so).
   */
  static Dataset create(String uri, BufferAllocator allocator, DatasetOptions options) {
    Dataset ds;
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 100)) {
      ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(b), options);
    }
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 100, 80)) {
      ds.append(List.of(b));
    }
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 180, 20)) {
      ds.append(List.of(b));
    }
    ds.delete(Predicate.in("id", 3L, 4L, 5L, 40L, 41L, 150L, 199L));
    ds.delete(Predicate.and(Predicate.ge("id", 65L), Predicate.le("id", 69L)));
    ds.update(Predicate.or(Predicate.and(Predicate.ge("id", 10L), Predicate.lt("id", 20L)),
        Predicate.in("id", 155L, 156L, 157L)), Map.of("name", "upd"));
    ds.update(Predicate.and(Predicate.ge("id", 100L), Predicate.le("id", 104L)), Map.of("s.x", 999));
    return ds;
  }

  /** One row as text: every column's value (nested values as Arrow prints them), {@code |}-separated. */
  static String row(VectorSchemaRoot root, int i) {
    StringBuilder out = new StringBuilder();
    for (FieldVector v : root.getFieldVectors()) {
      out.append(out.length() == 0 ? "" : " | ").append(v.getName()).append('=').append(v.getObject(i));
    }
    return out.toString();
  }

  /** Every row a reader returns, in order; checks it never returns an empty batch or one above {@code max}. */
  static List<String> rows(ArrowReader reader, int maxBatch) {
    List<String> out = new ArrayList<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        if (root.getRowCount() == 0 || root.getRowCount() > maxBatch) {
          throw new AssertionError("batch of " + root.getRowCount() + " rows (at most " + maxBatch + " expected,"
              + " and no empty batch before the end)");
        }
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add(row(root, i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  static List<String> rows(ArrowReader reader) {
    return rows(reader, Integer.MAX_VALUE);
  }

  /** Rows by their {@code _rowaddr} (the last column), in scan order. */
  static Map<Long, String> rowsByAddress(ArrowReader reader) {
    Map<Long, String> out = new LinkedHashMap<>();
    try (reader) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        UInt8Vector addresses = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        for (int i = 0; i < root.getRowCount(); i++) {
          if (out.put(addresses.get(i), row(root, i)) != null) {
            throw new AssertionError("address " + addresses.get(i) + " returned twice");
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
