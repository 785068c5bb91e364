package io.quiver.conformance;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import io.quiver.dataset.SampleTable;
import io.quiver.dataset.VersionInfo;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import io.quiver.store.ObjectStoreProvider;
import io.quiver.store.ObjectStores;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/** Dataset journeys on a real store adapter, opened by URI through ServiceLoader. */
public abstract class DatasetStoreContract extends StoreJourney {
  protected DatasetOptions options() {
    return optionsBuilder()
        .build();
  }

  private long append(Dataset ds, long from, int rows) {
    try (VectorSchemaRoot b = SampleTable.batch(allocator, from, rows)) {
      return ds.append(List.of(b));
    }
  }

  @Test
  void everyVersionScansToExactlyWhatItHeld() {
    String uri = newTableUri();
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 10);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options())) {
      for (int v = 2; v <= 6; v++) {
        assertEquals(v, append(ds, (v - 1) * 10L, 10));
      }
      try (VectorSchemaRoot replacement = SampleTable.batch(allocator, 1000, 5)) {
        assertEquals(7, ds.overwrite(SampleTable.SCHEMA, List.of(replacement)));
      }
    }
    try (Dataset ds = Dataset.open(uri, options())) {
      for (long v = 1; v <= 6; v++) {
        try (Dataset old = ds.checkout(v)) {
          assertEquals(range(0, v * 10), scanIds(old.newScan().open()), "version " + v);
        }
      }
      assertEquals(range(1000, 1005), scanIds(ds.newScan().open()));
      assertEquals(7, ds.versions().size());
    }
  }

  @Test
  void b2_ambiguousAcknowledgementCommitsExactlyOnce() {
    String uri = newTableUri();
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 10);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options())) {
      assertEquals(1, ds.version());
    }
    // Wrap the real adapter: the manifest put for version 2 happens, then the client sees an error.
    FaultInjectingObjectStore[] faulty = new FaultInjectingObjectStore[1];
    ObjectStoreProvider wrapping =
        new ObjectStoreProvider() {
          @Override
          public Set<String> schemes() {
            return Set.of(URI.create(uri).getScheme());
          }

          @Override
          public ObjectStore open(URI u, Map<String, String> options) {
            faulty[0] = new FaultInjectingObjectStore(ObjectStores.defaultRegistry().open(u.toString(), options));
            faulty[0].armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(2), Fault.FAIL_AFTER);
            return faulty[0];
          }
        };
    DatasetOptions withFaults =
        options().toBuilder()
            .registry(ObjectStores.empty().register(wrapping))
            .commitOptions(CommitOptions.defaults().withBackoff(Duration.ZERO, Duration.ZERO))
            .build();
    try (Dataset ds = Dataset.open(uri, withFaults)) {
      assertEquals(2, append(ds, 10, 5));
      assertEquals(0, faulty[0].pendingFaults(), "the fault fired");
    }
    try (Dataset ds = Dataset.open(uri, options())) {
      assertEquals(2, ds.version());
      List<VersionInfo> versions = ds.versions();
      assertEquals(List.of(2L, 1L), versions.stream().map(VersionInfo::version).toList());
      assertEquals(range(0, 15), scanIds(ds.newScan().open()));
    }
  }
}
