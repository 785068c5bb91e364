package io.quiver.checkpoint;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.DistributedWriter;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.Session;
import io.quiver.dataset.WriteResult;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.MemoryObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/** A memory table with a hand-moved clock, fault injection, and workers that count their runs. */
final class Fixture implements AutoCloseable {
  static final String URI_ = "test://ckpt";
  static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  final RootAllocator allocator = new RootAllocator();
  final ManualClock clock = new ManualClock(T0);
  final MemoryObjectStore memory = new MemoryObjectStore(URI_, clock);
  final FaultInjectingObjectStore store = new FaultInjectingObjectStore(memory);
  final DatasetOptions options = DatasetOptions.builder()
      .allocator(allocator)
      .registry(ObjectStores.empty().register(TestStores.provider("test", () -> store)))
      .session(new Session(1 << 20))
      .rowsPerBatch(16)
      .clock(clock)
      .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
      .build();
  final AtomicInteger workerRuns = new AtomicInteger();

  /** Creates the table with ids [0, 10) as version 1. */
  Fixture create() {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, 0, 10);
        Dataset ds = Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options)) {
      return this;
    }
  }

  Dataset open() {
    return Dataset.open(URI_, options);
  }

  CheckpointStore checkpoints() {
    return CheckpointStore.in(store);
  }

  CheckpointedWriter driver(Dataset ds, CheckpointStore checkpoints) {
    return CheckpointedWriter.create(ds, checkpoints, io.quiver.dataset.WriteMode.APPEND,
        options.commitOptions());
  }

  /** A worker: with only the URI and options, writes ids [from, from + rows) and returns the result. */
  WriteResult worker(long from, int rows) {
    workerRuns.incrementAndGet();
    try (DistributedWriter w = DistributedWriter.open(URI_, options);
        VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return w.write(List.of(b));
    }
  }

  @Override
  public void close() {
    allocator.close();
  }

  /** A clock tests move by hand, shared by the memory store (file times) and the dataset. */
  static final class ManualClock extends Clock {
    private volatile Instant now;

    ManualClock(Instant start) {
      now = start;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
