import io.quiver.bench.data.BenchData;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes the inputs of the operations benchmark (bench.py's take, filter and merge-insert cases, JavaOps): {@code
 * OUT/merge-source.arrow}, the merge-insert source for the scan table of ROWS rows (1% of its rows, every column of
 * {@code BenchData.scanSchema}: the first half have the keys of every 200th existing row, the second half new keys
 * from ROWS on; {@code x} is {@value #MERGED_X}), as benchmark 12 builds its source, and, when BLOB_ROWS &gt; 0, the
 * table of Lance's published take shape at {@code OUT/blob-quiver}: {@code id} int64 (the row number) and {@code
 * text}, a utf8 value of about 1 KiB made of words (so it compresses as text does), default configuration. Usage:
 * {@code MakeOpsData OUT ROWS BLOB_ROWS}.
 */
public class MakeOpsData {
  static final double MERGED_X = -2.0;
  static final int TEXT_BYTES = 1000;
  static final String[] WORDS = ("the of and to in is was for on that with as by at from his her an which or be are"
      + " this had not but were they have one all their has been its who also more other after first when new two"
      + " time can only into some years would over such most three many made between these state people").split(" ");

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    long rows = Long.parseLong(args[1]);
    long blobRows = Long.parseLong(args[2]);
    Files.createDirectories(out);
    try (RootAllocator allocator = new RootAllocator()) {
      Path source = out.resolve("merge-source.arrow");
      if (!Files.exists(source)) {
        writeSource(allocator, source, rows);
      }
      Path blob = out.resolve("blob-quiver");
      if (blobRows > 0 && !Files.exists(blob.resolve("_versions"))) {
        writeBlobTable(allocator, blob, blobRows);
      }
      if (allocator.getAllocatedMemory() != 0) {
        throw new IllegalStateException("Arrow memory still allocated: " + allocator.getAllocatedMemory());
      }
    }
  }

  /** Key of source row {@code i} of {@code n}: an existing row (every 200th) for the first half, a new one after. */
  static long key(long i, long n, long rows) {
    return i < n / 2 ? i * 200 : rows + (i - n / 2);
  }

  static void writeSource(BufferAllocator a, Path file, long rows) throws Exception {
    long n = rows / 100;
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(BenchData.scanSchema(), a);
        FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ArrowFileWriter w = new ArrowFileWriter(root, null, ch)) {
      w.start();
      for (long from = 0; from < n; from += 8192) {
        int k = (int) Math.min(8192, n - from);
        BenchData.fill(root, from, k);
        BigIntVector id = (BigIntVector) root.getVector("id");
        Float8Vector x = (Float8Vector) root.getVector("x");
        for (int r = 0; r < k; r++) {
          id.set(r, key(from + r, n, rows));
          x.set(r, MERGED_X);
        }
        root.setRowCount(k);
        w.writeBatch();
      }
      w.end();
    }
    Files.move(tmp, file);
    System.out.println("merge source: " + n + " rows at " + file);
  }

  static Schema blobSchema() {
    return new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
        new Field("text", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
  }

  /** The text of row {@code row}: words picked by a hash of the row until {@value #TEXT_BYTES} bytes or more. */
  static byte[] text(long row) {
    StringBuilder b = new StringBuilder(TEXT_BYTES + 16);
    b.append(row).append(':');
    long h = row * 0x9E3779B97F4A7C15L + 1;
    while (b.length() < TEXT_BYTES) {
      h ^= h >>> 29;
      h *= 0xBF58476D1CE4E5B9L;
      h ^= h >>> 32;
      b.append(' ').append(WORDS[(int) Long.remainderUnsigned(h, WORDS.length)]);
    }
    return b.toString().getBytes(StandardCharsets.US_ASCII);
  }

  static void writeBlobTable(BufferAllocator a, Path dir, long rows) throws Exception {
    Schema schema = blobSchema();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
      Iterable<VectorSchemaRoot> batches = () -> new Iterator<>() {
        long next = 0;

        @Override
        public boolean hasNext() {
          return next < rows;
        }

        @Override
        public VectorSchemaRoot next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          int k = (int) Math.min(8192, rows - next);
          root.clear();
          BigIntVector id = (BigIntVector) root.getVector("id");
          VarCharVector text = (VarCharVector) root.getVector("text");
          id.allocateNew(k);
          text.allocateNew((long) k * (TEXT_BYTES + 16), k);
          for (int r = 0; r < k; r++) {
            id.set(r, next + r);
            text.setSafe(r, text(next + r));
          }
          root.setRowCount(k);
          next += k;
          return root;
        }
      };
      create(a, dir, schema, batches);
    }
  }

  static void create(BufferAllocator a, Path dir, Schema schema, Iterable<VectorSchemaRoot> batches) {
    DatasetOptions options = DatasetOptions.builder().allocator(a).build();
    try (Dataset ds = Dataset.create("file://" + dir.toAbsolutePath(), schema, batches, options, Map.of())) {
      System.out.println("blob table: version " + ds.version() + ", " + ds.countRows() + " rows, "
          + ds.manifest().fragments().size() + " fragments");
    }
  }
}
