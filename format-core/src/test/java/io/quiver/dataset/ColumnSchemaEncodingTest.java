package io.quiver.dataset;

import static io.quiver.dataset.StagedColumnSupport.intField;
import static io.quiver.dataset.StagedColumnSupport.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.scenario.StagedColumnScenarios;
import io.quiver.store.MemoryObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ColumnSchema.encode/decode: a driver ships the schema of a staged column write to its workers. */
class ColumnSchemaEncodingTest {
  private BufferAllocator allocator;
  private MemoryObjectStore store;
  private DatasetOptions options;
  private Dataset ds;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    options = OverlayTestSupport.options(allocator, store, 2);
    ds = OverlayTestSupport.create(allocator, options, 0, 4);
    ds.columns().add(List.of(intField("v", true), intField("w", true)), List.of("id"), StagedColumnScenarios::tens);
  }

  @AfterEach
  void tearDown() {
    ds.close();
    allocator.close();
  }

  /** A new struct column {@code n {a, b}}, a new int {@code m}, the existing member {@code s.x} as target. */
  private ColumnSchema richSchema() {
    Field struct = new Field("n", FieldType.nullable(org.apache.arrow.vector.types.pojo.ArrowType.Struct.INSTANCE),
        List.of(intField("a", true), intField("b", true)));
    return ds.columns().newSchema(List.of(struct, intField("m", true)), List.of("s.x"), List.of("v", "s"));
  }

  @Test
  void aColumnSchemaRoundTripsWithStructsInputsAndNewFieldIds() {
    ColumnSchema schema = richSchema();
    byte[] bytes = schema.encode();
    assertThat(new String(bytes, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("QVK1");

    ColumnSchema decoded = ColumnSchema.decode(bytes);
    assertThat(decoded).isEqualTo(schema);
    assertThat(decoded.hashCode()).isEqualTo(schema.hashCode());
    assertThat(decoded.encode()).as("deterministic").containsExactly(bytes);
    assertThat(decoded.tableLocation()).isEqualTo(ds.io().location());
    assertThat(decoded.readVersion()).isEqualTo(ds.version());
    assertThat(decoded.contract().fields().stream().map(io.quiver.schema.Field::name).toList())
        .containsExactly("s", "n", "m");
    io.quiver.schema.Field n = decoded.contract().findTopLevel("n").orElseThrow();
    assertThat(n.children()).extracting(io.quiver.schema.Field::name).containsExactly("a", "b");
    assertThat(n.children()).allSatisfy(c -> assertThat(c.parentId()).isEqualTo(n.id()));
    assertThat(decoded.contract().findField("s.x").orElseThrow().id()).isEqualTo(ds.schema().findField("s.x").orElseThrow().id());
    assertThat(decoded.contract().findField("s.y")).as("the target struct holds only the targeted member").isEmpty();
    assertThat(decoded.newFieldIds()).isEqualTo(Set.of(n.id(), decoded.contract().findTopLevel("m").orElseThrow().id()))
        .isEqualTo(schema.newFieldIds());
    assertThat(n.id()).isGreaterThan(ds.manifest().maxFieldId());
    assertThat(decoded.inputFieldIds()).isEqualTo(schema.inputFieldIds())
        .isEqualTo(Set.of(id("v"), id("s.x"), id("s.y")));
    assertThat(decoded.arrowSchema()).isEqualTo(schema.arrowSchema());
    assertThat(decoded.select("m")).isEqualTo(schema.select("m"));
  }

  @Test
  void aSchemaWithoutInputsRoundTrips() {
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("n", false)), List.of(), List.of());
    ColumnSchema decoded = ColumnSchema.decode(schema.encode());
    assertThat(decoded).isEqualTo(schema);
    assertThat(decoded.inputs().fields()).isEmpty();
    assertThat(decoded.contract().findTopLevel("n").orElseThrow().nullable()).isFalse();
  }

  @Test
  void writesStagedOnAWorkerWithTheDecodedSchemaCommit() throws IOException {
    ColumnSchema schema = richSchema();
    byte[] shipped = schema.encode();
    // The worker: its own handle on the table, the schema decoded from the driver's bytes.
    StagedColumnWrite staged;
    try (Dataset worker = Dataset.open(OverlayTestSupport.URI_, options)) {
      ColumnSchema onWorker = ColumnSchema.decode(shipped);
      try (ArrowReader batches = ints(allocator, onWorker.arrowSchema(), 7, 8, null, 9)) {
        staged = StagedColumnWrite.decode(worker.columns().writeFragment(0, batches, onWorker).encode());
      }
    }
    assertThat(staged.newFieldIds()).isEqualTo(schema.newFieldIds());
    assertThat(staged.inputFieldIds()).isEqualTo(schema.inputFieldIds());
    long before = ds.version();
    long committed = ds.columns().commit(List.of(staged));
    assertThat(committed).isEqualTo(before + 1);
    assertThat(StagedColumnSupport.column(ds, "m")).containsExactly(7, 8, null, 9);
    assertThat(StagedColumnSupport.column(ds, "n.a")).containsExactly(7, 8, null, 9);
    assertThat(StagedColumnSupport.column(ds, "s.x")).as("struct validity kept: s is null where the table says")
        .isEqualTo(expectedSx(7, 8, null, 9));
    assertThat(ds.schema().findTopLevel("n").orElseThrow().id())
        .isEqualTo(schema.contract().findTopLevel("n").orElseThrow().id());
  }

  /** s.x as written, null where the sample table's struct is null. */
  private static java.util.List<Integer> expectedSx(Integer... written) {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    for (int i = 0; i < written.length; i++) {
      out.add(SampleTable.structIsNull(i) ? null : written[i]);
    }
    return out;
  }

  @Test
  void badBytesAreACorruptFileExceptionThatSaysWhatToPass() {
    byte[] good = richSchema().encode();
    assertThat(assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> ColumnSchema.decode(null)).actual().getMessage()).contains("ColumnSchema.encode()");
    assertThat(assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> ColumnSchema.decode(new byte[] {1, 2})).actual().getMessage()).contains("header");
    assertThat(assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> ColumnSchema.decode(Arrays.copyOf(good, good.length - 3))).actual().getMessage())
        .contains("checksum");
    byte[] flipped = good.clone();
    flipped[flipped.length - 1] ^= 0x10;
    assertThat(assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> ColumnSchema.decode(flipped)).actual().getMessage()).contains("checksum");
    byte[] staged;
    try (ArrowReader batches = ints(allocator, richSchema().select("m").arrowSchema(), 1, 2, 3, 4)) {
      staged = ds.columns().writeFragment(0, batches, richSchema().select("m")).encode();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> ColumnSchema.decode(staged)).actual().getMessage())
        .contains("expected magic QVK1").contains("column schema");
    CorruptFileException notProto = assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> ColumnSchema.decode(envelope(new byte[] {(byte) 0xff, (byte) 0xff, 0x01}))).actual();
    assertThat(notProto.getMessage()).contains("not valid protobuf").contains("ColumnSchema.encode()");
    io.quiver.internal.proto.ColumnSchema noTable;
    try {
      noTable = io.quiver.internal.proto.ColumnSchema.parseFrom(Arrays.copyOfRange(good, 8, good.length)).toBuilder()
          .clearTableLocation().build();
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
    assertThat(assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> ColumnSchema.decode(envelope(noTable.toByteArray()))).actual().getMessage())
        .contains("invalid column schema").contains("names no table");
    io.quiver.internal.proto.ColumnSchema strayId = noTable.toBuilder().setTableLocation("x").addNewFieldIds(9999).build();
    assertThat(assertThatExceptionOfType(CorruptFileException.class)
        .isThrownBy(() -> ColumnSchema.decode(envelope(strayId.toByteArray()))).actual().getMessage())
        .contains("9999").contains("not all top-level fields");
  }

  private int id(String path) {
    return ds.schema().findField(path).orElseThrow().id();
  }

  private static byte[] envelope(byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(payload);
    return ByteBuffer.allocate(8 + payload.length).put("QVK1".getBytes(StandardCharsets.US_ASCII))
        .putInt((int) crc.getValue()).put(payload).array();
  }
}
