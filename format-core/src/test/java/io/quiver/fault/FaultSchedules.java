package io.quiver.fault;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.dataset.CleanupOptions;
import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.CompactionOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.Session;
import io.quiver.dataset.VersionInfo;
import io.quiver.exceptions.QuiverException;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.scenario.ScenarioTable.ManualClock;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.TestStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.assertj.core.api.Assertions;

/**
 * Fault injection on a jqwik-chosen schedule, on any store: give it a source of fresh, empty table locations
 * (as {@link io.quiver.model.ModelChains} takes one of URIs). A sequence of writers each append a distinct
 * id range, delete or compact through their own {@link FaultInjectingObjectStore} over the store under
 * test; the schedule decides, per store call of that
 * writer, to fail it before it happens, fail it after it happened (ambiguous), crash the writer there (every
 * later call refuses), or interleave another handle's append at that point. Properties:
 *
 * <ul>
 *   <li>rows of every append reported committed are present exactly once; rows of a failed append are
 *       absent, unless the failure was ambiguous and the commit is found in history under its idempotence
 *       key (then present exactly once);
 *   <li>every version reported committed is readable and validates;
 *   <li>after cleanup with a zero safety window and no live writers, no unreferenced file remains under
 *       {@code data/}, {@code _deletions/}, {@code _transactions/}, {@code _staging/} and no referenced
 *       file is missing.
 * </ul>
 *
 * <p>Every handle reaches the store under test through {@code fault://table}; the handles' clock is moved
 * by hand, starting at the wall clock's second, and before cleanup it is moved past the wall clock, so the
 * zero safety window also covers stores that stamp files with their own time (every store but memory).
 * Run by {@code FaultScheduleProperties} on memory and by conformance-tests on every store fixture.
 */
public final class FaultSchedules {
  public static final String URI_ = "fault://table";
  public static final Schema SCHEMA = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));

  /** A fresh, empty table location of the store under test, for one try; closed by the try. */
  public interface StoreSource {
    /**
     * The store; {@code clock} is the handles' clock, for a store that can take one for its file times
     * (memory) and ignored by the others.
     */
    ObjectStore open(Clock clock);
  }

  private final StoreSource stores;

  public FaultSchedules(StoreSource stores) {
    this.stores = stores;
  }

  /** What the schedule does at one store call. */
  public enum Action {
    NONE(null),
    FAIL_BEFORE(Fault.FAIL_BEFORE),
    FAIL_AFTER(Fault.FAIL_AFTER),
    CRASH(Fault.CRASH),
    INTERLEAVE(Fault.INTERLEAVE);

    final Fault fault;

    Action(Fault fault) {
      this.fault = fault;
    }
  }

  /** What a writer does. */
  public enum Kind {
    APPEND,
    DELETE,
    COMPACT
  }

  /**
   * One writer: appends {@code rows} fresh ids, deletes up to {@code rows} live ids (those congruent to
   * {@code rows} mod 3), or compacts; {@code schedule.get(i)} decides its i-th store call.
   */
  public record Writer(Kind kind, int rows, List<Action> schedule) {
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder(kind.name().toLowerCase(java.util.Locale.ROOT) + " " + rows + " [");
      for (int i = 0; i < schedule.size(); i++) {
        if (schedule.get(i) != Action.NONE) {
          sb.append(" call").append(i).append('=').append(schedule.get(i));
        }
      }
      return sb.append(" ]").toString();
    }
  }

  /** Up to five writers, each with a schedule for its first 30 store calls (80% of them left alone). */
  public static Arbitrary<List<Writer>> writers() {
    Arbitrary<Action> action = Arbitraries.frequencyOf(
        Tuple.of(80, Arbitraries.just(Action.NONE)),
        Tuple.of(5, Arbitraries.just(Action.FAIL_BEFORE)),
        Tuple.of(5, Arbitraries.just(Action.FAIL_AFTER)),
        Tuple.of(3, Arbitraries.just(Action.CRASH)),
        Tuple.of(7, Arbitraries.just(Action.INTERLEAVE)));
    Arbitrary<Kind> kind = Arbitraries.frequency(Tuple.of(5, Kind.APPEND), Tuple.of(3, Kind.DELETE), Tuple.of(2, Kind.COMPACT));
    Arbitrary<Writer> writer = Combinators.combine(
            kind, Arbitraries.integers().between(1, 5), action.list().ofMinSize(0).ofMaxSize(30))
        .as(Writer::new);
    return writer.list().ofMinSize(1).ofMaxSize(5);
  }

  /** What a writer was told, and which ids it wrote. */
  record Outcome(String who, long from, int rows, Long version, String key, QuiverException error, boolean ambiguous) {}

  /** One try: runs the writers on a fresh table of the store under test and checks the properties. */
  public void check(List<Writer> writers) {
    ManualClock clock = new ManualClock(Instant.now().truncatedTo(ChronoUnit.SECONDS));
    try (ObjectStore real = stores.open(clock);
        RootAllocator allocator = new RootAllocator()) {
      ObjectStore shared = TestStores.keepOpen(real); // every handle closes its store; this try closes the real one
      DatasetOptions clean = options(allocator, shared, clock);
      List<Outcome> outcomes = new ArrayList<>();
      TreeSet<Long> live = new TreeSet<>();
      long[] nextId = {0};
      try (Dataset base = create(allocator, clean, nextId, outcomes, live);
          Dataset other = Dataset.open(URI_, clean)) {
        for (Writer w : writers) {
          clock.advance(Duration.ofMillis(1));
          runWriter(w, allocator, shared, clock, other, nextId, outcomes, live);
          try (Dataset latest = Dataset.open(URI_, options(allocator, shared, clock))) {
            checkRows(latest, live, "after " + w);
          }
        }
        try (Dataset latest = base.checkoutLatest()) {
          checkReportedVersions(latest, outcomes);
          clock.advance(Duration.ofSeconds(1));
          clock.advanceTo(Instant.now().plusSeconds(1)); // past the store's own file times
          latest.cleanup(CleanupOptions.builder().safetyWindow(Duration.ZERO).build());
          checkFilesAfterCleanup(latest, shared);
          checkRows(latest, live, "after cleanup");
          checkReportedVersions(latest, outcomes);
        }
      }
    }
  }

  /**
   * A fresh metadata cache per handle: caches are keyed by location (every try uses the same URI), and an
   * interleaved commit runs inside the writer's cache load, which must not be the same cache.
   */
  private static DatasetOptions options(BufferAllocator allocator, ObjectStore store, Clock clock) {
    return DatasetOptions.builder()
        .allocator(allocator)
        .session(new Session(1 << 20))
        .registry(TestStores.registry("fault", store))
        .clock(clock)
        .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
        .build();
  }

  private static Dataset create(BufferAllocator allocator, DatasetOptions options, long[] nextId, List<Outcome> out,
      Set<Long> live) {
    try (VectorSchemaRoot b = batch(allocator, nextId[0], 3)) {
      Dataset ds = Dataset.create(URI_, SCHEMA, List.of(b), options);
      out.add(new Outcome("create", 0, 3, ds.version(), null, null, false));
      live.addAll(List.of(0L, 1L, 2L));
      nextId[0] += 3;
      return ds;
    }
  }

  /** Runs one writer through its faulty store and applies its effect, as the table shows it, to {@code live}. */
  private static void runWriter(Writer w, BufferAllocator allocator, ObjectStore shared, ManualClock clock,
      Dataset other, long[] nextId, List<Outcome> outcomes, Set<Long> live) {
    FaultInjectingObjectStore store = new FaultInjectingObjectStore(shared);
    boolean[] ambiguous = {false};
    store.schedule((index, op, key) -> {
      Action a = index < w.schedule().size() ? w.schedule().get(index) : Action.NONE;
      if (a == Action.FAIL_AFTER || a == Action.CRASH) {
        ambiguous[0] = true;
      }
      return a.fault;
    }, () -> {
      // Another handle commits at this point of the writer's protocol.
      long from = nextId[0];
      nextId[0] += 2;
      try (VectorSchemaRoot b = batch(allocator, from, 2)) {
        long v = other.append(List.of(b));
        outcomes.add(new Outcome("interleaved", from, 2, v, null, null, false));
        live.addAll(List.of(from, from + 1));
      } catch (QuiverException e) {
        Assertions.fail("the clean interleaved append failed: " + e, e);
      }
    });
    // Deletes target live ids only (interleaved appends add fresh ids a rebased delete must not touch).
    List<Long> targets = live.stream().filter(id -> id % 3 == w.rows() % 3).limit(w.rows()).toList();
    long from = nextId[0];
    if (w.kind() == Kind.APPEND) {
      nextId[0] += w.rows();
    }
    String key = "writer-" + UUID.randomUUID();
    QuiverException error = null;
    Long version = null;
    try (Dataset ds = Dataset.open(URI_, options(allocator, store, clock))) {
      if (w.kind() == Kind.APPEND) {
        try (VectorSchemaRoot b = batch(allocator, from, w.rows())) {
          version = ds.append(List.of(b), CommitOptions.defaults()
              .withBackoff(Duration.ZERO, Duration.ZERO).withIdempotenceKey(key));
        }
      } else if (w.kind() == Kind.DELETE) {
        if (!targets.isEmpty()) {
          version = ds.delete(io.quiver.predicate.Predicate.in("id", targets)).version();
        }
      } else {
        version = ds.compact(CompactionOptions.defaults()).version();
      }
    } catch (QuiverException e) {
      error = e;
    }
    Statistics.label("outcome").collect(w.kind() + (error == null ? " ok" : ambiguous[0] ? " failed ambiguously" : " failed"));
    Statistics.label("crashed").collect(store.crashedAt().isPresent());
    try (Dataset latest = Dataset.open(URI_, options(allocator, shared, clock))) {
      if (w.kind() == Kind.APPEND) {
        boolean committed = error == null || latest.distributed().findCommit(key, 0).isCommitted();
        if (error != null && committed && !ambiguous[0]) {
          Assertions.fail(w + " failed with a non-ambiguous error but its commit is in history: " + error);
        }
        if (committed) {
          for (long id = from; id < from + w.rows(); id++) {
            live.add(id);
          }
        }
        outcomes.add(new Outcome("writer", from, w.rows(), version, key, error, ambiguous[0]));
      } else if (version != null) {
        outcomes.add(new Outcome(w.kind().toString(), 0, 0, version, null, null, false)); // must read and validate
      }
      if (w.kind() == Kind.DELETE && !targets.isEmpty()) {
        Set<Long> present = new HashSet<>(scanIds(latest));
        present.retainAll(targets);
        if (error == null || present.isEmpty()) {
          // A delete whose rows are gone committed: it may only have reported an error if that error was
          // ambiguous (the commit point's acknowledgement was lost). See KnownFaultBugsTest.
          assertThat(error == null || ambiguous[0]).as(w + " committed but reported " + error).isTrue();
          assertThat(present).as(w + " reported committed but ids remain").isEqualTo(Set.of());
          targets.forEach(live::remove);
        } else {
          assertThat(present).as(w + " failed but deleted part of its rows").isEqualTo(new HashSet<>(targets));
        }
      }
    }
  }

  /** The latest version holds exactly the model's ids, each once. */
  private static void checkRows(Dataset latest, Set<Long> live, String when) {
    List<Long> ids = scanIds(latest);
    assertThat(new HashSet<>(ids).size()).as(when + ": duplicated rows " + ids).isEqualTo(ids.size());
    assertThat(new TreeSet<>(ids)).as(when + ": rows lost or resurrected").isEqualTo(new TreeSet<>(live));
  }

  private static void checkReportedVersions(Dataset latest, List<Outcome> outcomes) {
    for (Outcome o : outcomes) {
      if (o.version() == null) {
        continue;
      }
      try (Dataset at = latest.checkout(o.version())) {
        at.validate().orThrow();
        List<Long> ids = scanIds(at);
        for (long id = o.from(); id < o.from() + o.rows(); id++) {
          assertThat(ids.contains(id)).as("version " + o.version() + " reported for " + o + " lacks id " + id).isTrue();
        }
      }
    }
  }

  private static void checkFilesAfterCleanup(Dataset latest, ObjectStore store) {
    Set<String> referenced = new HashSet<>();
    for (VersionInfo info : latest.versions()) {
      try (Dataset at = latest.checkout(info.version())) {
        at.validate().orThrow(); // every referenced file exists with its size and footer
        referenced.addAll(referencedBy(at.manifest()));
      }
    }
    List<String> unreferenced = new ArrayList<>();
    for (String prefix : List.of("data/", "_deletions/", "_transactions/", "_staging/")) {
      for (ObjectInfo info : store.listAll(prefix)) {
        if (!referenced.contains(info.key())) {
          unreferenced.add(info.key());
        }
      }
    }
    assertThat(unreferenced).as("files no version references remain after cleanup").isEqualTo(List.of());
    for (String key : referenced) {
      assertThat(store.head(key).isPresent()).as("referenced file missing: " + key).isTrue();
    }
  }

  private static Set<String> referencedBy(Manifest m) {
    Set<String> out = new HashSet<>();
    for (Fragment f : m.fragments()) {
      for (DataFile d : f.files()) {
        out.add(d.path());
      }
      f.deletionFile().ifPresent(d -> out.add(d.path()));
      for (Overlay o : f.overlays()) {
        out.add(o.dataFile().path());
      }
    }
    if (!m.transactionPath().isEmpty()) {
      out.add(m.transactionPath());
    }
    return out;
  }

  public static VectorSchemaRoot batch(BufferAllocator allocator, long from, int rows) {
    VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
    BigIntVector id = (BigIntVector) root.getVector("id");
    id.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      id.set(i, from + i);
    }
    root.setRowCount(rows);
    return root;
  }

  public static List<Long> scanIds(Dataset ds) {
    List<Long> ids = new ArrayList<>();
    try (ArrowReader r = ds.newScan().open()) {
      while (r.loadNextBatch()) {
        BigIntVector v = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < v.getValueCount(); i++) {
          ids.add(v.get(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ids;
  }
}
