package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.CountingObjectStore;
import io.quiver.store.FetchTuning;
import io.quiver.store.ForwardingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.TestStores;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A store's {@link ObjectStore#fetchTuning() request shape} reaches the scans of a table on it, through
 * decorators, and each explicit {@link DatasetOptions} fetch setting wins over it. The table is wide in the
 * way that matters: four uncompressed 8-byte columns in one file, 1024-row batches, so two consecutive
 * batches' {@code id} buffers are 24 KiB of other columns apart — more than the local 8 KiB gap, less than
 * the cloud's 1 MiB.
 */
class StoreFetchTuningTest {
  private static final int BATCHES = 64;
  private static final int ROWS = BATCHES * 1024;
  private static final Schema WIDE = new Schema(List.of(column("id"), column("a"), column("b"), column("c")));

  private BufferAllocator allocator;

  private static Field column(String name) {
    return new Field(name, FieldType.notNullable(new ArrowType.Int(64, true)), null);
  }

  @BeforeEach
  void open() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void close() {
    allocator.close(); // fails on a leak
  }

  /** A memory store that asks for {@code tuning}, counted, and the names of the threads that read data. */
  private record Store(CountingObjectStore counting, Set<String> readers) {
    static Store asking(FetchTuning tuning) {
      MemoryObjectStore memory = new MemoryObjectStore("memory://tuning");
      Set<String> readers = ConcurrentHashMap.newKeySet();
      ObjectStore asking = new ForwardingObjectStore(memory) {
        @Override
        public FetchTuning fetchTuning() {
          return tuning;
        }

        @Override
        public int readRangeInto(String key, long offset, ByteBuffer target) {
          if (key.startsWith("data/")) {
            readers.add(Thread.currentThread().getName());
          }
          return super.readRangeInto(key, offset, target);
        }
      };
      return new Store(new CountingObjectStore(asking), readers);
    }
  }

  private DatasetOptions.Builder options(Store store) {
    return ScanFixture.options(allocator).toBuilder()
        .rowsPerBatch(1024)
        .maxRowsPerFragment(1L << 20)
        .registry(TestStores.registry("test", TestStores.keepOpen(store.counting())));
  }

  private Store wideTable(FetchTuning tuning) {
    Store store = Store.asking(tuning);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(WIDE, allocator)) {
      for (Field f : WIDE.getFields()) {
        BigIntVector v = (BigIntVector) root.getVector(f.getName());
        v.allocateNew(ROWS);
        for (int i = 0; i < ROWS; i++) {
          v.set(i, f.getName().equals("id") ? i : (long) i * 31 + f.getName().charAt(0));
        }
      }
      root.setRowCount(ROWS);
      Dataset.create("test://t", WIDE, List.of(root), options(store).build(), Map.of("write.compression", "none"))
          .close();
    }
    return store;
  }

  /** The ids a projected scan returns, and the GETs and bytes it issued with warm footer caches. */
  private record Scan(long idSum, long gets, long bytes) {}

  private Scan idScan(Store store, UnaryOperator<DatasetOptions.Builder> settings) {
    try (Dataset ds = Dataset.open("test://t", settings.apply(options(store)).build())) {
      drain(ds); // footers cached
      store.counting().reset();
      store.readers().clear();
      long sum = drain(ds);
      return new Scan(sum, store.counting().readCalls(), store.counting().bytesRead());
    }
  }

  private static long drain(Dataset ds) {
    long sum = 0;
    try (ArrowReader reader = ds.newScan().columns("id").open()) {
      while (reader.loadNextBatch()) {
        BigIntVector id = (BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < id.getValueCount(); i++) {
          sum += id.get(i);
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return sum;
  }

  private static final long ID_SUM = (long) ROWS * (ROWS - 1) / 2;

  @Test
  void aLocalStoresGapFetchesEachBatchAndACloudStoresGapFetchesTheFileInOneRequest() {
    Scan local = idScan(wideTable(FetchTuning.LOCAL), b -> b);
    Scan cloud = idScan(wideTable(FetchTuning.CLOUD), b -> b);
    assertThat(local.idSum()).isEqualTo(cloud.idSum()).isEqualTo(ID_SUM);
    assertThat(local.gets()).as("8 KiB gap: the other columns separate the batches' id buffers").isEqualTo(BATCHES);
    assertThat(local.bytes()).as("only the id column").isBetween((long) ROWS * 8, (long) ROWS * 8 * 11 / 10);
    // the file (about 2 MiB) is within one 8 MiB request once 24 KiB gaps merge
    assertThat(cloud.gets()).as("1 MiB gap: the other columns' buffers are read through").isEqualTo(1);
    assertThat(cloud.bytes()).as("all four columns").isGreaterThan((long) ROWS * 8 * 4);
  }

  @Test
  void theStoresRequestSizeAndInFlightReachTheScan() {
    Store store = wideTable(new FetchTuning(1 << 20, 256 << 10, 3, 0));
    Scan scan = idScan(store, b -> b);
    assertThat(scan.idSum()).isEqualTo(ID_SUM);
    long expected = (scan.bytes() + (256 << 10) - 1) / (256 << 10);
    assertThat(scan.gets()).as("%d bytes in 256 KiB requests", scan.bytes()).isBetween(expected, expected + 1);
    assertThat(store.readers()).as("3 in flight: fetched on fetch threads").allMatch(n -> n.startsWith("quiver-fetch-"));

    Store local = wideTable(FetchTuning.LOCAL);
    idScan(local, b -> b);
    assertThat(local.readers()).as("0 in flight: fetched on the scanning thread")
        .containsExactly(Thread.currentThread().getName());
  }

  @Test
  void explicitSettingsWinOverTheStores() {
    Store cloud = wideTable(FetchTuning.CLOUD);
    Scan gap = idScan(cloud, b -> b.coalesceGapBytes(8 << 10));
    assertThat(gap.gets()).as("the caller's 8 KiB gap on a cloud store").isEqualTo(BATCHES);

    Scan requests = idScan(cloud, b -> b.fetchRequestBytes(512 << 10));
    long expected = (requests.bytes() + (512 << 10) - 1) / (512 << 10);
    assertThat(requests.gets()).as("the caller's 512 KiB requests").isBetween(expected, expected + 1);

    idScan(cloud, b -> b.fetchRequestsInFlight(0));
    assertThat(cloud.readers()).as("the caller's 0 in flight on a cloud store")
        .containsExactly(Thread.currentThread().getName());

    Store local = wideTable(FetchTuning.LOCAL);
    Scan wide = idScan(local, b -> b.coalesceGapBytes(1 << 20));
    assertThat(wide.gets()).as("the caller's 1 MiB gap on a local store").isEqualTo(1);
    idScan(local, b -> b.fetchRequestsInFlight(2));
    assertThat(local.readers()).as("the caller's 2 in flight on a local store").allMatch(n -> n.startsWith("quiver-fetch-"));
    assertThat(gap.idSum()).isEqualTo(requests.idSum()).isEqualTo(wide.idSum()).isEqualTo(ID_SUM);
  }

  /** The ids a take of one row per batch returns, and the ranges it asked for, footers cached. */
  private Scan takeOnePerBatch(Store store, UnaryOperator<DatasetOptions.Builder> settings) {
    try (Dataset ds = Dataset.open("test://t", settings.apply(options(store)).build())) {
      long fragment = ds.manifest().fragments().get(0).id();
      long[] addresses = new long[BATCHES];
      for (int i = 0; i < BATCHES; i++) {
        addresses[i] = RowAddress.of(fragment, i * 1024L + 5);
      }
      ds.take(addresses, List.of("id")).close(); // footers cached
      store.counting().reset();
      try (VectorSchemaRoot root = ds.take(addresses, List.of("id"))) {
        BigIntVector id = (BigIntVector) root.getVector("id");
        long sum = 0;
        for (int i = 0; i < id.getValueCount(); i++) {
          sum += id.get(i);
        }
        return new Scan(sum, store.counting().rangesRead(), store.counting().bytesRead());
      }
    }
  }

  private static final long TAKE_SUM = 1024L * BATCHES * (BATCHES - 1) / 2 + 5L * BATCHES;

  @Test
  void takeMergesPointRangesWithTheStoresTakeGapUnlessTold() {
    Store local = wideTable(FetchTuning.LOCAL);
    Store cloud = wideTable(FetchTuning.CLOUD);
    Scan near = takeOnePerBatch(local, b -> b);
    Scan far = takeOnePerBatch(cloud, b -> b);
    Scan told = takeOnePerBatch(cloud, b -> b.takeGapBytes(8 << 10));
    assertThat(near.idSum()).isEqualTo(far.idSum()).isEqualTo(told.idSum()).isEqualTo(TAKE_SUM);
    assertThat(near.gets()).as("8 KiB: one range per wanted row (24 KiB of other columns between)").isEqualTo(BATCHES);
    assertThat(far.gets()).as("256 KiB: the rows of all batches in one range").isEqualTo(1);
    assertThat(told.gets()).as("the caller's 8 KiB on a cloud store").isEqualTo(BATCHES);
    assertThat(near.bytes()).isEqualTo(BATCHES * 8L);
  }

  @Test
  void unsetSettingsStayUnsetThroughToBuilderAndSetOnesAreKept() {
    DatasetOptions unset = DatasetOptions.defaults();
    assertThat(unset.coalesceGapBytes()).isEmpty();
    assertThat(unset.fetchRequestBytes()).isEmpty();
    assertThat(unset.fetchRequestsInFlight()).isEmpty();
    assertThat(unset.takeGapBytes()).isEmpty();
    assertThat(unset.toBuilder().build().coalesceGapBytes()).as("toBuilder keeps 'by store'").isEmpty();
    DatasetOptions set = unset.toBuilder().coalesceGapBytes(0).fetchRequestBytes(1).fetchRequestsInFlight(0).build();
    assertThat(set.toBuilder().build().coalesceGapBytes()).hasValue(0);
    assertThat(set.fetchRequestBytes()).hasValue(1);
    assertThat(set.fetchRequestsInFlight()).hasValue(0);
  }

  @Test
  void aStoreCannotAskForAnInvalidShape() {
    assertThatThrownBy(() -> new FetchTuning(-1, 1, 0, 0)).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("coalesceGapBytes must be >= 0, got -1");
    assertThatThrownBy(() -> new FetchTuning(0, 0, 0, 0)).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("requestBytes must be >= 1, got 0");
    assertThatThrownBy(() -> new FetchTuning(0, 1, 65, 0)).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("requestsInFlight must be in [0, 64], got 65");
    assertThatThrownBy(() -> new FetchTuning(0, 1, 0, -2)).isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("takeGapBytes must be >= 0, got -2");
  }
}
