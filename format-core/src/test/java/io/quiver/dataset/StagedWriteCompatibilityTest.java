package io.quiver.dataset;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.MemoryObjectStore;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Staged writes encoded before staged writes carried inputs (the fixture {@code compat/staged-write-1.0},
 * see its README) still decode, mean the same (they re-encode to the same bytes) and commit as they did:
 * bound to the fields they write only.
 */
class StagedWriteCompatibilityTest {
  private BufferAllocator allocator;
  private MemoryObjectStore store;
  private Dataset ds;
  private Path fixture;

  @BeforeEach
  void setUp() throws IOException, URISyntaxException {
    allocator = new RootAllocator();
    fixture = Path.of(getClass().getResource("/compat/staged-write-1.0").toURI());
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    Path table = fixture.resolve("table");
    try (Stream<Path> files = Files.walk(table)) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        store.write(table.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
      }
    }
    ds = Dataset.open(OverlayTestSupport.URI_, OverlayTestSupport.options(allocator, store, 2));
  }

  @AfterEach
  void tearDown() {
    ds.close();
    allocator.close();
  }

  private byte[] bytes(String name) throws IOException {
    return Files.readAllBytes(fixture.resolve(name));
  }

  @Test
  void oldBytesDecodeWithoutInputsAndReencodeToThemselves() throws Exception {
    for (String name : List.of("new-column-n.qvs1", "rewrite-w.qvs1")) {
      byte[] old = bytes(name);
      StagedColumnWrite w = StagedColumnWrite.decode(old);
      assertThat(w.readVersion()).isEqualTo(2);
      assertThat(w.fragmentId()).isEqualTo(0);
      assertThat(w.inputFieldIds().isEmpty()).as(name).isTrue();
      assertThat(w.inputWitness().isEmpty()).as(name).isTrue();
      assertThat(w.encode()).as(name + ": the new encoder writes a write without inputs exactly as before").containsExactly(old);
    }
  }

  @Test
  void oldBytesCommitAsBeforeBoundToTheirWrittenFieldsOnly() throws Exception {
    StagedColumnWrite n = StagedColumnWrite.decode(bytes("new-column-n.qvs1"));
    StagedColumnWrite w = StagedColumnWrite.decode(bytes("rewrite-w.qvs1"));
    // n was computed from v in the generator, but declared nothing: a change to v does not stop it (as
    // before); this is what declaring inputs is for.
    try (Dataset other = ds.checkout(ds.version())) {
      other.update(new long[] {RowAddress.of(0, 0)}, Map.of("v", 5));
    }
    long version = ds.columns().commit(List.of(n, w));
    assertThat(version).isEqualTo(4);
    assertThat(StagedColumnSupport.column(ds, "n")).isEqualTo(List.of(1, 11, 21, 31));
    assertThat(StagedColumnSupport.column(ds, "w")).isEqualTo(Arrays.asList(7, null, 9, 10));
    assertThat(StagedColumnSupport.column(ds, "v")).isEqualTo(List.of(5, 10, 20, 30));
    assertThat(ds.validate().isValid()).as(ds.validate().toString()).isTrue();
  }
}
