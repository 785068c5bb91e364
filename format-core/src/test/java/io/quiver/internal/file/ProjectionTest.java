package io.quiver.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.MemoryObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compare.VectorEqualsVisitor;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** A projected read returns exactly the full read's values for the chosen columns, in schema shape. */
class ProjectionTest {
  static final Schema SCHEMA = schema();

  private static Schema schema() {
    List<Field> fields = new ArrayList<>();
    fields.add(TestData.nullable("a", new ArrowType.Int(64, true)));
    fields.addAll(TestData.nestedFields());
    fields.add(TestData.nullable("z", ArrowType.Utf8.INSTANCE));
    return new Schema(fields, Map.of("k", "v"));
  }

  @Property(tries = 60, seed = "20240601")
  void anySubsetOfAtomicColumnsReadsTheSameValuesAsAFullRead(
      @ForAll @Size(14) List<Boolean> chosen, @ForAll int seed) {
    MemoryObjectStore store = new MemoryObjectStore("mem://p");
    DataFileReader reader = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());
    try (RootAllocator allocator = new RootAllocator()) {
      Files.writeRandom(store, "p.arrow", SCHEMA, 150, seed, allocator, 64);
      DataFileMetadata md = reader.metadata("p.arrow");
      assertThat(md.atomicColumnCount()).isEqualTo(14);
      List<Integer> cols = new ArrayList<>();
      for (int i = 0; i < chosen.size(); i++) {
        if (chosen.get(i)) {
          cols.add(i);
        }
      }
      int[] projection = cols.stream().mapToInt(Integer::intValue).toArray();
      List<String> paths = cols.stream().map(md::atomicColumnPath).toList();
      for (int b = 0; b < md.batchCount(); b++) {
        try (VectorSchemaRoot full = reader.readBatch("p.arrow", b, Files.allColumns(md), allocator);
            VectorSchemaRoot part = reader.readBatch("p.arrow", b, projection, allocator)) {
          assertThat(part.getSchema()).isEqualTo(expectedSchema(SCHEMA, paths));
          assertThat(part.getRowCount()).isEqualTo(full.getRowCount());
          for (String path : paths) {
            assertThat(VectorEqualsVisitor.vectorEquals(find(full, path), find(part, path))).as("column " + path).isTrue();
            // struct ancestors carry the same validity
            String prefix = path;
            while (prefix.contains(".")) {
              prefix = prefix.substring(0, prefix.lastIndexOf('.'));
              FieldVector f = find(full, prefix);
              FieldVector p = find(part, prefix);
              for (int i = 0; i < full.getRowCount(); i++) {
                assertThat(p.isNull(i)).as(prefix + " validity at " + i).isEqualTo(f.isNull(i));
              }
            }
          }
        }
      }
      assertThat(allocator.getAllocatedMemory()).isEqualTo(0);
    }
  }

  @Test
  void rejectsBadProjectionsAndBatches() {
    MemoryObjectStore store = new MemoryObjectStore("mem://p");
    DataFileReader reader = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults());
    try (RootAllocator allocator = new RootAllocator()) {
      Files.writeRandom(store, "p.arrow", SCHEMA, 100, 1, allocator, 64);
      for (int[] bad : new int[][] {{2, 1}, {1, 1}, {-1}, {14}, null}) {
        InvalidArgumentException e =
            assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> reader.readBatch("p.arrow", 0, bad, allocator)).actual();
        assertThat(e.getMessage().length() > 20).as(e.getMessage()).isTrue();
      }
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> reader.readBatch("p.arrow", 2, new int[]{0}, allocator));
      assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> reader.readBatch("p.arrow", -1, new int[]{0}, allocator));
      try (VectorSchemaRoot none = reader.readBatch("p.arrow", 1, new int[0], allocator)) {
        assertThat(none.getFieldVectors().size()).isEqualTo(0);
        assertThat(none.getRowCount()).isEqualTo(36);
      }
      assertThat(allocator.getAllocatedMemory()).isEqualTo(0);
    }
  }

  /** The file schema keeping only the given atomic column paths and their struct ancestors. */
  static Schema expectedSchema(Schema schema, List<String> paths) {
    List<Field> kept = new ArrayList<>();
    for (Field f : schema.getFields()) {
      Field k = keep(f, f.getName(), paths);
      if (k != null) {
        kept.add(k);
      }
    }
    return new Schema(kept, schema.getCustomMetadata());
  }

  private static Field keep(Field f, String path, List<String> paths) {
    if (paths.contains(path)) {
      return f;
    }
    if (!(f.getType() instanceof ArrowType.Struct)) {
      return null;
    }
    List<Field> children = new ArrayList<>();
    for (Field c : f.getChildren()) {
      Field k = keep(c, path + "." + c.getName(), paths);
      if (k != null) {
        children.add(k);
      }
    }
    return children.isEmpty() ? null : new Field(f.getName(), f.getFieldType(), children);
  }

  static FieldVector find(VectorSchemaRoot root, String path) {
    String[] parts = path.split("\\.");
    FieldVector v = root.getVector(parts[0]);
    for (int i = 1; i < parts.length; i++) {
      v = ((StructVector) v).getChild(parts[i]);
    }
    return v;
  }
}
