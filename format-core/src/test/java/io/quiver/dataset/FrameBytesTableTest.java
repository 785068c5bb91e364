package io.quiver.dataset;

import static io.quiver.dataset.CompressionTableTest.SCHEMA;
import static io.quiver.dataset.CompressionTableTest.allFiles;
import static io.quiver.dataset.CompressionTableTest.batch;
import static io.quiver.dataset.CompressionTableTest.checkRows;
import static io.quiver.dataset.CompressionTableTest.checkScan;
import static io.quiver.dataset.CompressionTableTest.val;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.TableNotFoundException;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.SeekableReadChannel;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The table configuration {@code write.compression.frame-bytes}: checked when it is set (create, {@code
 * updateConfig}), applied by the writes that follow (each file's frame table records its frame size, so one
 * table holds files of several sizes and reads them all back), and, unset, the bytes of an explicit 1024.
 */
class FrameBytesTableTest {
  private static final String KEY = "write.compression.frame-bytes";
  /** Rows per record batch: 80,000 bytes of int64 ids, several frames of every size but 1 MiB. */
  private static final int ROWS_PER_BATCH = 10_000;

  private final RootAllocator allocator = new RootAllocator();

  @AfterEach
  void close() {
    allocator.close(); // fails the test on a leaked buffer
  }

  private DatasetOptions options(MemoryObjectStore store) {
    return DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(TestStores.registry("test", TestStores.keepOpen(store)))
        .rowsPerBatch(ROWS_PER_BATCH)
        .commitOptions(CommitOptions.defaults().withBackoff(java.time.Duration.ZERO, java.time.Duration.ZERO))
        .build();
  }

  private Dataset create(MemoryObjectStore store, int rows, Map<String, String> config) {
    try (VectorSchemaRoot b = batch(allocator, 0, rows)) {
      return Dataset.create("test://t", SCHEMA, List.of(b), options(store), config);
    }
  }

  private void append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = batch(allocator, from, rows)) {
      ds.append(List.of(b));
    }
  }

  /**
   * The frame bytes the footer's frame table of a data file records (docs/format.md §5.1: base64 of varints,
   * version 1 then frame bytes), read with Arrow Java's reader.
   */
  private int frameBytes(MemoryObjectStore store, DataFile file) {
    try (ArrowFileReader reader = new ArrowFileReader(new SeekableReadChannel(
        new ByteArrayReadableSeekableByteChannel(store.read(file.path()))), allocator)) {
      reader.getVectorSchemaRoot(); // reads the footer
      String table = reader.getMetaData().get("quiver.zstd_frames");
      assertThat(table).as("frame table of " + file.path()).isNotNull();
      byte[] bytes = Base64.getDecoder().decode(table);
      assertThat(bytes[0]).as("frame table version").isEqualTo((byte) 1);
      int value = 0;
      for (int i = 1, shift = 0; ; i++, shift += 7) {
        value |= (bytes[i] & 0x7F) << shift;
        if ((bytes[i] & 0x80) == 0) {
          return value;
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The frame sizes of each fragment's files, in manifest order. */
  private List<Set<Integer>> frameSizes(MemoryObjectStore store, Dataset ds) {
    List<Set<Integer>> sizes = new ArrayList<>();
    for (Fragment f : ds.manifest().fragments()) {
      Set<Integer> s = new TreeSet<>();
      f.files().forEach(file -> s.add(frameBytes(store, file)));
      sizes.add(s);
    }
    return sizes;
  }

  /** Every row by full scan, then id and val by a projected scan, then random rows by take. */
  private void checkReads(Dataset ds, long rows) {
    List<Long> ids = checkScan(ds);
    assertThat(new TreeSet<>(ids)).as("ids scanned").containsExactlyElementsOf(
        LongStream.range(0, rows).boxed().toList());
    assertThat(ids).hasSize((int) rows);
    long projected = 0;
    try (var reader = ds.newScan().columns("val", "id").open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        assertThat(root.getSchema().getFields()).extracting(f -> f.getName()).containsExactly("val", "id");
        BigIntVector id = (BigIntVector) root.getVector("id");
        for (int i = 0; i < root.getRowCount(); i++) {
          assertThat(root.getVector("val").getObject(i)).as("val of " + id.get(i)).isEqualTo(val(id.get(i)));
        }
        projected += root.getRowCount();
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(projected).isEqualTo(rows);
    Random random = new Random(20);
    List<Long> wanted = new ArrayList<>();
    List<Long> addresses = new ArrayList<>();
    long first = 0;
    for (Fragment f : ds.manifest().fragments()) {
      for (int k = 0; k < 40; k++) {
        long offset = k == 0 ? 0 : k == 1 ? f.physicalRows() - 1 : random.nextLong(f.physicalRows());
        addresses.add(RowAddress.of(f.id(), offset));
        wanted.add(first + offset);
      }
      first += f.physicalRows();
    }
    try (VectorSchemaRoot taken = ds.take(addresses.stream().mapToLong(Long::longValue).toArray(), List.of())) {
      List<Long> got = new ArrayList<>();
      checkRows(taken, got);
      assertThat(got).as("ids taken (fragments hold consecutive ids in manifest order)").isEqualTo(wanted);
    }
  }

  @Test
  void fragmentsWrittenBeforeAndAfterChangingTheFrameSizeReadBackTogether() {
    MemoryObjectStore store = new MemoryObjectStore("mem://frames");
    try (Dataset ds = create(store, 25_000, Map.of())) {
      ds.updateConfig(Map.of(KEY, "65536"), Set.of());
      append(ds, 25_000, 25_000);
      ds.updateConfig(Map.of(KEY, "1048576"), Set.of());
      append(ds, 50_000, 25_000);
      ds.updateConfig(Map.of(KEY, "4096"), Set.of());
      append(ds, 75_000, 5_003);
      assertThat(ds.config()).containsEntry(KEY, "4096");
      assertThat(frameSizes(store, ds)).containsExactly(Set.of(1024), Set.of(65536), Set.of(1 << 20), Set.of(4096));
      checkReads(ds, 80_003);
      // an update writes overlays with the frame size of its version
      ds.update(io.quiver.predicate.Predicate.lt("id", 100L), Map.of("val", 7));
      Fragment updated = ds.manifest().fragments().get(0);
      assertThat(updated.overlays()).isNotEmpty()
          .allMatch(o -> frameBytes(store, o.dataFile()) == 4096);
      try (VectorSchemaRoot t = ds.take(new long[] {RowAddress.of(updated.id(), 50)}, List.of("val"))) {
        assertThat(t.getVector("val").getObject(0)).isEqualTo(7);
      }
      ds.updateConfig(Map.of(), Set.of(KEY));
      ds.compact(CompactionOptions.defaults());
      assertThat(allFiles(ds.manifest())).as("compaction rewrote every file at the default again")
          .allMatch(f -> frameBytes(store, f) == 1024);
      try (VectorSchemaRoot t = ds.take(new long[] {RowAddress.of(ds.manifest().fragments().get(0).id(), 50)},
          List.of("val"))) {
        assertThat(t.getVector("val").getObject(0)).isEqualTo(7);
      }
      try (Dataset v4 = ds.checkout(4)) { // v1 create, v2 config, v3 append, v4 config
        assertThat(frameSizes(store, v4)).containsExactly(Set.of(1024), Set.of(65536));
        checkReads(v4, 50_000);
      }
    }
  }

  @Test
  void anInvalidFrameSizeIsRefusedWhenSetNamingTheKeyTheValueAndWhatIsAllowed() {
    MemoryObjectStore store = new MemoryObjectStore("mem://refused");
    List<String> bad = List.of("0", "1000", "512", "2097152", "2 MiB", "abc", "-4096", "4096.0", "");
    try (Dataset ds = create(store, 100, Map.of(KEY, "4096"))) {
      for (String value : bad) {
        assertThatExceptionOfType(InvalidArgumentException.class).as(value)
            .isThrownBy(() -> ds.updateConfig(Map.of(KEY, value), Set.of()))
            .withMessageContaining("table configuration " + KEY + " is '" + value + "'")
            .withMessageContaining("expected uncompressed bytes per ZSTD frame, a power of two from 1024 to 1048576")
            .withMessageContaining("set it to one such as 4096, or remove the key");
      }
      assertThat(ds.version()).isEqualTo(1);
      assertThat(ds.config()).isEqualTo(Map.of(KEY, "4096"));
    }
    MemoryObjectStore never = new MemoryObjectStore("mem://never");
    for (String value : bad) {
      assertThatExceptionOfType(InvalidArgumentException.class).as(value)
          .isThrownBy(() -> create(never, 100, Map.of(KEY, value)).close())
          .withMessageContaining(KEY).withMessageContaining("'" + value + "'");
    }
    assertThat(never.listAll("")).as("nothing written").isEmpty();
    assertThatExceptionOfType(TableNotFoundException.class)
        .isThrownBy(() -> Dataset.open("test://t", options(never)).close());
  }

  @Test
  void anUnsetFrameSizeWritesTheBytesOfAnExplicit1024() {
    List<List<byte[]>> files = new ArrayList<>();
    for (Map<String, String> config : List.of(Map.<String, String>of(), Map.of(KEY, "1024"), Map.of(KEY, "4096"))) {
      MemoryObjectStore store = new MemoryObjectStore("mem://bytes");
      try (Dataset ds = create(store, 25_000, config)) {
        append(ds, 25_000, 3_001);
        List<byte[]> bytes = new ArrayList<>();
        for (DataFile f : allFiles(ds.manifest())) {
          bytes.add(store.read(f.path()));
        }
        files.add(bytes);
        assertThat(frameSizes(store, ds)).containsOnly(Set.of(Integer.parseInt(config.getOrDefault(KEY, "1024"))));
      }
    }
    assertThat(files.get(0)).hasSize(2);
    for (int i = 0; i < files.get(0).size(); i++) {
      assertThat(files.get(0).get(i)).as("file %d, unset and 1024", i).isEqualTo(files.get(1).get(i));
      assertThat(files.get(2).get(i)).as("file %d, 4096", i).isNotEqualTo(files.get(0).get(i));
    }
  }
}
