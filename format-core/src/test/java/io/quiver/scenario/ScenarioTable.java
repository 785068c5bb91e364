package io.quiver.scenario;

import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.Session;
import io.quiver.dataset.ValidationReport;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import io.quiver.store.TestStores;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A table for one catalogue scenario on any store: every call of every handle goes through a
 * {@link FaultInjectingObjectStore} over the store under test (so a scenario can inject faults), the
 * handles share a clock the scenario moves by hand, and {@link #close()} closes the store under test.
 * The same scenario body runs in format-core on the memory store and in conformance-tests on every
 * store fixture.
 */
public final class ScenarioTable implements AutoCloseable {
  /** The URI the scenario's handles open; the registry routes it to the store under test. */
  public static final String URI_ = "scenario://table";

  private final ObjectStore real;
  private final FaultInjectingObjectStore store;
  private final ManualClock clock;
  private final BufferAllocator allocator;
  private final DatasetOptions options;

  private ScenarioTable(ObjectStore real, BufferAllocator allocator) {
    this.real = real;
    this.store = new FaultInjectingObjectStore(TestStores.keepOpen(real));
    this.clock = new ManualClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    this.allocator = allocator;
    this.options = DatasetOptions.builder()
        .allocator(allocator)
        .registry(TestStores.registry("scenario", store))
        .session(new Session(1 << 20))
        .rowsPerBatch(16)
        .maxRowsPerFragment(40)
        .clock(clock)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  /** A scenario table on {@code store} (an empty table location); closing the table closes the store. */
  public static ScenarioTable on(ObjectStore store, BufferAllocator allocator) {
    return new ScenarioTable(store, allocator);
  }

  /** A scenario table on the store the default registry opens for {@code uri} with {@code storeOptions}. */
  public static ScenarioTable on(String uri, java.util.Map<String, String> storeOptions, BufferAllocator allocator) {
    return new ScenarioTable(ObjectStores.defaultRegistry().open(uri, storeOptions), allocator);
  }

  public String uri() {
    return URI_;
  }

  public DatasetOptions options() {
    return options;
  }

  public BufferAllocator allocator() {
    return allocator;
  }

  /** The fault-injecting view of the store under test that every handle uses. */
  public FaultInjectingObjectStore faults() {
    return store;
  }

  /** The store under test itself, unwrapped. */
  public ObjectStore store() {
    return real;
  }

  /** The clock of every handle (commit times, cleanup ages); scenarios advance it by hand. */
  public ManualClock clock() {
    return clock;
  }

  /** Creates the table with the sample rows {@code [from, from + rows)} as version 1. */
  public Dataset create(long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return Dataset.create(URI_, SampleTable.SCHEMA, List.of(b), options);
    }
  }

  public Dataset open() {
    return Dataset.open(URI_, options);
  }

  /** Appends the sample rows {@code [from, from + rows)} through {@code ds}; returns the version. */
  public long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  /** Every key under the table. */
  public Set<String> keys() {
    return real.listAll("").stream().map(ObjectInfo::key).collect(Collectors.toCollection(TreeSet::new));
  }

  /**
   * The closing check of every scenario: the latest version validates, and scanning every field of it
   * gives the sample rows with the ids returned, each value checked against its id.
   */
  public List<Long> validateAndScanLatest() {
    try (Dataset latest = open()) {
      ValidationReport report = latest.validate();
      assertThat(report.isValid()).as(() -> "validate() after the scenario: " + report).isTrue();
      return scanIds(latest.newScan().open());
    }
  }

  @Override
  public void close() {
    real.close();
  }

  /** A clock moved by hand. */
  public static final class ManualClock extends Clock {
    private volatile Instant now;

    public ManualClock(Instant start) {
      now = start;
    }

    public void advance(Duration d) {
      now = now.plus(d);
    }

    /** Moves the clock to {@code t} if that is later; never back. */
    public void advanceTo(Instant t) {
      if (t.isAfter(now)) {
        now = t;
      }
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
