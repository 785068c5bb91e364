package io.quiver.conformance;

import static io.quiver.dataset.SampleTable.range;
import static io.quiver.dataset.SampleTable.scanIds;
import static org.assertj.core.api.Assertions.assertThat;

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
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options(), io.quiver.model.ModelWorld.SMALL_SEGMENTS)) {
      for (int v = 2; v <= 6; v++) {
        assertThat(append(ds, (v - 1) * 10L, 10)).isEqualTo(v);
      }
      try (VectorSchemaRoot replacement = SampleTable.batch(allocator, 1000, 5)) {
        assertThat(ds.overwrite(SampleTable.SCHEMA, List.of(replacement))).isEqualTo(7);
      }
    }
    try (Dataset ds = Dataset.open(uri, options())) {
      for (long v = 1; v <= 6; v++) {
        try (Dataset old = ds.checkout(v)) {
          assertThat(scanIds(old.newScan().open())).as("version " + v).isEqualTo(range(0, v * 10));
        }
      }
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(1000, 1005));
      assertThat(ds.versions().size()).isEqualTo(7);
    }
  }

  @Test
  void b2_ambiguousAcknowledgementCommitsExactlyOnce() {
    String uri = newTableUri();
    try (VectorSchemaRoot first = SampleTable.batch(allocator, 0, 10);
        Dataset ds = Dataset.create(uri, SampleTable.SCHEMA, List.of(first), options(), io.quiver.model.ModelWorld.SMALL_SEGMENTS)) {
      assertThat(ds.version()).isEqualTo(1);
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
      assertThat(append(ds, 10, 5)).isEqualTo(2);
      assertThat(faulty[0].pendingFaults()).as("the fault fired").isEqualTo(0);
    }
    try (Dataset ds = Dataset.open(uri, options())) {
      assertThat(ds.version()).isEqualTo(2);
      List<VersionInfo> versions = ds.versions();
      assertThat(versions.stream().map(VersionInfo::version).toList()).isEqualTo(List.of(2L, 1L));
      assertThat(scanIds(ds.newScan().open())).isEqualTo(range(0, 15));
    }
  }
}
