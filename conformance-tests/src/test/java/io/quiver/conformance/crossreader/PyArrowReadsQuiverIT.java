package io.quiver.conformance.crossreader;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.internal.file.DataFileMetadata;
import io.quiver.internal.file.DataFileReader;
import io.quiver.internal.file.MetadataCache;
import io.quiver.internal.file.ReadOptions;
import io.quiver.manifest.DataFile;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compressed Quiver data files are plain Arrow for another implementation: Arrow C++ (pyarrow, installed by
 * {@code emulators/pyarrow/install.sh} before the integration tests) opens one and compares it cell for cell
 * with the values this test wrote (as JSON next to it); it then writes the same table with its own LZ4_FRAME
 * and ZSTD body compression, which Quiver's reader reads back cell for cell.
 */
class PyArrowReadsQuiverIT {
  private static final int ROWS = 5000;
  private static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("val", FieldType.nullable(new ArrowType.Int(32, true)), null),
      new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
      new Field("b", FieldType.nullable(ArrowType.Bool.INSTANCE), null),
      new Field("emb", FieldType.nullable(new ArrowType.FixedSizeList(4)),
          List.of(new Field("item", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null))),
      new Field("l", FieldType.nullable(ArrowType.List.INSTANCE),
          List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null))),
      new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
          new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null),
          new Field("y", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))));

  @TempDir
  Path dir;

  private static Path repoRoot() {
    String property = System.getProperty("quiver.repo.root");
    if (property != null && !property.isEmpty()) {
      return Path.of(property);
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("emulators"))) {
        return p;
      }
    }
    throw new IllegalStateException("cannot find the repository root; set -Dquiver.repo.root");
  }

  private static Path python() {
    String venv = System.getProperty("quiver.pyarrow.venv", System.getenv().getOrDefault("QUIVER_PYARROW_VENV",
        System.getProperty("user.home") + "/.cache/quiver/pyarrow-venv"));
    Path python = Path.of(venv, "bin", "python");
    if (!Files.isExecutable(python)) {
      throw new IllegalStateException("no pyarrow environment at " + venv + ": the build installs it before the"
          + " integration tests (emulators/pyarrow/install.sh); run that script, or skip integration tests with -DskipITs");
    }
    return python;
  }

  @Test
  void pyarrowReadsACompressedQuiverDataFileCellForCellAndQuiverReadsPyarrowsLz4AndZstdFiles() throws Exception {
    String uri = "memory://pyarrow-it-" + UUID.randomUUID();
    try (RootAllocator allocator = new RootAllocator()) {
      // 4,096-row batches: the int64 and string buffers span several ZSTD frames (ZstdFrames), which pyarrow must read too.
      DatasetOptions options = DatasetOptions.builder().allocator(allocator).rowsPerBatch(4096).build();
      Path quiverFile = dir.resolve("quiver.arrow");
      try (VectorSchemaRoot data = rows(allocator)) {
        try (Dataset ds = Dataset.create(uri, SCHEMA, List.of(data), options, Map.of("write.compression.exclude", "emb"))) {
          DataFile file = ds.manifest().fragments().get(0).files().get(0);
          assertThat(file.formatMinor()).isEqualTo(1);
          ObjectStore store = ObjectStores.defaultRegistry().open(uri, Map.of());
          DataFileMetadata md = new DataFileReader(store, new MetadataCache(1 << 20), ReadOptions.defaults())
              .metadata(file.path());
          assertThat(md.compression(0)).isEqualTo("ZSTD");
          Files.write(quiverFile, store.read(file.path()));
        }
        Files.writeString(dir.resolve("expected.json"), json(data), StandardCharsets.UTF_8);

        Path script = repoRoot().resolve("conformance-tests/src/test/python/read_quiver_file.py");
        Process p = new ProcessBuilder(python().toString(), script.toString(), quiverFile.toString(),
            dir.resolve("expected.json").toString(), dir.toString()).redirectErrorStream(true).start();
        String output;
        boolean finished = p.waitFor(180, TimeUnit.SECONDS);
        output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.print(output);
        assertThat(finished).as("pyarrow finished within 180 s").isTrue();
        assertThat(p.exitValue()).as("pyarrow's verdict:\n" + output).isEqualTo(0);
        assertThat(output).contains("every cell as expected");

        // Quiver reads what Arrow C++ compressed (LZ4_FRAME, which Quiver never writes, and ZSTD).
        for (String codec : List.of("lz4", "zstd")) {
          io.quiver.store.MemoryObjectStore files = new io.quiver.store.MemoryObjectStore("memory://pyarrow-files");
          files.write("data/p.arrow", Files.readAllBytes(dir.resolve("pyarrow-" + codec + ".arrow")));
          DataFileReader reader = new DataFileReader(files, new MetadataCache(1 << 20), ReadOptions.defaults());
          DataFileMetadata md = reader.metadata("data/p.arrow");
          assertThat(md.compression(0)).isEqualTo(codec.equals("lz4") ? "LZ4_FRAME" : "ZSTD");
          int[] all = new int[md.atomicColumnCount()];
          for (int i = 0; i < all.length; i++) {
            all[i] = i;
          }
          List<String> got = new ArrayList<>();
          for (int b = 0; b < md.batchCount(); b++) {
            try (VectorSchemaRoot batch = reader.readBatch("data/p.arrow", b, all, allocator)) {
              for (int r = 0; r < batch.getRowCount(); r++) {
                got.add(rowString(batch, r));
              }
            }
          }
          List<String> want = new ArrayList<>();
          for (int r = 0; r < data.getRowCount(); r++) {
            want.add(rowString(data, r));
          }
          assertThat(got).as(codec + " file written by pyarrow").isEqualTo(want);
        }
      }
    }
  }

  private static String rowString(VectorSchemaRoot root, int row) {
    StringBuilder sb = new StringBuilder();
    for (FieldVector v : root.getFieldVectors()) {
      sb.append(v.getName()).append('=').append(v.getObject(row)).append(';');
    }
    return sb.toString();
  }

  /** Row i: a mix of compressible and random values, nulls in every nullable column. */
  private static VectorSchemaRoot rows(RootAllocator allocator) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    IntVector val = (IntVector) root.getVector("val");
    Float8Vector f = (Float8Vector) root.getVector("f");
    BitVector b = (BitVector) root.getVector("b");
    FixedSizeListVector emb = (FixedSizeListVector) root.getVector("emb");
    Float4Vector items = (Float4Vector) emb.getDataVector();
    ListVector l = (ListVector) root.getVector("l");
    StructVector s = (StructVector) root.getVector("s");
    IntVector x = (IntVector) s.getChild("x");
    VarCharVector y = (VarCharVector) s.getChild("y");
    UnionListWriter lw = l.getWriter();
    java.util.Random random = new java.util.Random(11);
    for (int i = 0; i < ROWS; i++) {
      id.setSafe(i, i);
      if (i % 9 == 4) {
        name.setNull(i);
      } else {
        name.setSafe(i, ("naïve-" + i / 10).getBytes(StandardCharsets.UTF_8));
      }
      if (i % 7 == 1) {
        val.setNull(i);
      } else {
        val.setSafe(i, i / 3);
      }
      if (i % 13 == 2) {
        f.setNull(i);
      } else {
        f.setSafe(i, random.nextGaussian());
      }
      if (i % 5 == 0) {
        b.setNull(i);
      } else {
        b.setSafe(i, i % 3 == 0 ? 1 : 0);
      }
      emb.setNotNull(i);
      for (int k = 0; k < 4; k++) {
        items.setSafe(i * 4 + k, random.nextFloat());
      }
      lw.setPosition(i);
      if (i % 11 == 6) {
        l.setNull(i);
      } else {
        lw.startList();
        for (int k = 0; k < i % 4; k++) {
          lw.integer().writeInt(i + k);
        }
        lw.endList();
      }
      if (i % 17 == 3) {
        s.setNull(i);
        x.setNull(i);
        y.setNull(i);
      } else {
        s.setIndexDefined(i);
        x.setSafe(i, i % 100);
        y.setSafe(i, ("y" + i % 3).getBytes(StandardCharsets.UTF_8));
      }
    }
    items.setValueCount(ROWS * 4);
    root.setRowCount(ROWS);
    return root;
  }

  /** The rows as pyarrow's to_pylist() gives them: a list of objects keyed by column name. */
  private static String json(VectorSchemaRoot root) {
    StringBuilder sb = new StringBuilder("[\n");
    for (int r = 0; r < root.getRowCount(); r++) {
      sb.append(r == 0 ? "" : ",\n").append('{');
      List<FieldVector> vectors = root.getFieldVectors();
      for (int c = 0; c < vectors.size(); c++) {
        FieldVector v = vectors.get(c);
        sb.append(c == 0 ? "" : ", ").append(quote(v.getName())).append(": ");
        value(sb, v, r);
      }
      sb.append('}');
    }
    return sb.append("\n]\n").toString();
  }

  private static void value(StringBuilder sb, FieldVector v, int r) {
    if (v.isNull(r)) {
      sb.append("null");
    } else if (v instanceof StructVector s) {
      sb.append('{');
      List<FieldVector> children = s.getChildrenFromFields();
      for (int c = 0; c < children.size(); c++) {
        sb.append(c == 0 ? "" : ", ").append(quote(children.get(c).getName())).append(": ");
        value(sb, children.get(c), r);
      }
      sb.append('}');
    } else if (v instanceof FixedSizeListVector fsl) {
      int size = fsl.getListSize();
      sb.append('[');
      for (int k = 0; k < size; k++) {
        sb.append(k == 0 ? "" : ", ");
        value(sb, (FieldVector) fsl.getDataVector(), r * size + k);
      }
      sb.append(']');
    } else if (v instanceof ListVector list) {
      int start = list.getElementStartIndex(r);
      int end = list.getElementEndIndex(r);
      sb.append('[');
      for (int k = start; k < end; k++) {
        sb.append(k == start ? "" : ", ");
        value(sb, list.getDataVector(), k);
      }
      sb.append(']');
    } else if (v instanceof Float4Vector f4) {
      sb.append(Double.toString(f4.get(r))); // the float32's exact value, as pyarrow widens it
    } else if (v instanceof Float8Vector f8) {
      sb.append(Double.toString(f8.get(r)));
    } else if (v instanceof BitVector bit) {
      sb.append(bit.get(r) == 1 ? "true" : "false");
    } else if (v instanceof VarCharVector s) {
      sb.append(quote(new String(s.get(r), StandardCharsets.UTF_8)));
    } else {
      sb.append(v.getObject(r));
    }
  }

  private static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') {
        sb.append('\\').append(ch);
      } else if (ch < 0x20 || ch > 0x7e) {
        sb.append(String.format("\\u%04x", (int) ch));
      } else {
        sb.append(ch);
      }
    }
    return sb.append('"').toString();
  }
}
