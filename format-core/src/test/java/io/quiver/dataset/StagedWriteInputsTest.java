package io.quiver.dataset;

import static io.quiver.dataset.StagedColumnSupport.intField;
import static io.quiver.dataset.StagedColumnSupport.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.codec.MetadataCodec;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.scenario.StagedColumnScenarios;
import io.quiver.store.MemoryObjectStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Declaring inputs: how they are resolved into atomic field ids, that they travel with the column schema
 * and every staged write, and that their witness survives every encoding (staged bytes, the transaction).
 * The races themselves are the E6 scenarios ({@code io.quiver.scenario.DerivedColumnScenarios}).
 */
class StagedWriteInputsTest {
  private BufferAllocator allocator;
  private MemoryObjectStore store;
  private Dataset ds;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    store = new MemoryObjectStore(OverlayTestSupport.URI_);
    ds = OverlayTestSupport.create(allocator, OverlayTestSupport.options(allocator, store, 2), 0, 4);
    ds.columns().add(List.of(intField("v", true), intField("w", true)), List.of("id"), StagedColumnScenarios::tens);
  }

  @AfterEach
  void tearDown() {
    ds.close();
    allocator.close();
  }

  private int id(String path) {
    return ds.schema().findField(path).orElseThrow().id();
  }

  private StagedColumnWrite stage(ColumnSchema schema, Integer... values) {
    try (ArrowReader reader = ints(allocator, schema.arrowSchema(), values)) {
      return ds.columns().writeFragment(0, reader, schema);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void schemasWithoutInputsDeclareNone() {
    assertThat(ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of()).inputFieldIds().isEmpty()).isTrue();
    assertThat(ds.columns().newSchema(List.of(), List.of("v"), List.of()).inputs().fields().isEmpty()).isTrue();
    StagedColumnWrite w = stage(ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of()), 1, 2, 3, 4);
    assertThat(w.inputFieldIds().isEmpty()).isTrue();
    assertThat(w.inputWitness().isEmpty()).isTrue();
  }

  @Test
  void inputsResolveToAtomicFieldsRecursively() {
    List<org.apache.arrow.vector.types.pojo.Field> n = List.of(intField("n", true));
    assertThat(ds.columns().newSchema(n, List.of(), List.of("s")).inputFieldIds()).isEqualTo(Set.of(id("s.x"), id("s.y")));
    assertThat(ds.columns().newSchema(n, List.of(), List.of("s.y")).inputFieldIds()).isEqualTo(Set.of(id("s.y")));
    // A list is stored whole: its item stands for the list.
    assertThat(ds.columns().newSchema(n, List.of(), List.of("tags.item")).inputFieldIds()).isEqualTo(Set.of(id("tags")));
    ColumnSchema schema = ds.columns().newSchema(n, List.of(), List.of("v", "s", "v"));
    assertThat(schema.inputFieldIds()).isEqualTo(Set.of(id("v"), id("s.x"), id("s.y")));
    assertThat(schema.inputs().fields().stream().map(io.quiver.schema.Field::name).toList()).isEqualTo(List.of("s", "v"));
    assertThat(ds.columns().newSchema(n, List.of(), List.of("s", "v")).inputFieldIds()).isEqualTo(schema.inputFieldIds());
    assertThat(schema.toString()).contains("inputs [");
  }

  @Test
  void unknownInputsAreRefused() {
    List<org.apache.arrow.vector.types.pojo.Field> n = List.of(intField("n", true));
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> ds.columns().newSchema(n, List.of(), List.of("nope"))).actual();
    assertThat(e.getMessage()).contains("no input column 'nope'");
  }

  @Test
  void selectKeepsEveryInputAndEveryStagedWriteCarriesThem() {
    ColumnSchema both = ds.columns().newSchema(List.of(intField("a", true), intField("b", true)), List.of("w"),
        List.of("v", "w"));
    ColumnSchema a = both.select("a");
    assertThat(a.inputFieldIds()).isEqualTo(both.inputFieldIds());
    StagedColumnWrite wa = stage(a, 1, 2, 3, 4);
    StagedColumnWrite ww = stage(both.select("w"), 5, 6, 7, 8);
    assertThat(wa.inputFieldIds()).isEqualTo(Set.of(id("v"), id("w")));
    assertThat(ww.inputFieldIds()).isEqualTo(Set.of(id("v"), id("w")));
    ds.columns().commit(List.of(wa, ww));
    assertThat(StagedColumnSupport.column(ds, "a")).isEqualTo(List.of(1, 2, 3, 4));
    assertThat(StagedColumnSupport.column(ds, "w")).isEqualTo(List.of(5, 6, 7, 8));
  }

  @Test
  void theInputWitnessRoundTripsThroughBytesAndTheTransaction() {
    ds.update(new long[] {RowAddress.of(0, 2)}, Map.of("v", 5));
    ds.columns().add(List.of(intField("empty", true))); // stored nowhere: its witness is an absence
    ColumnSchema schema = ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of("v", "empty", "s"));
    StagedColumnWrite w = stage(schema, 1, 2, 3, 4);
    assertThat(w.inputWitness().size()).isEqualTo(4);
    io.quiver.internal.txn.FieldBacking v = w.inputWitness().stream().filter(b -> b.fieldId() == id("v")).findFirst()
        .orElseThrow();
    assertThat(v.base().isPresent()).isTrue();
    assertThat(v.overlays().size()).isEqualTo(1);
    assertThat(w.inputWitness().stream().filter(b -> b.fieldId() == id("empty")).findFirst().orElseThrow()
        .base().isEmpty()).isTrue();

    byte[] bytes = w.encode();
    StagedColumnWrite decoded = StagedColumnWrite.decode(bytes);
    assertThat(decoded).isEqualTo(w);
    assertThat(decoded.encode()).containsExactly(bytes);
    assertThat(decoded.inputWitness()).isEqualTo(w.inputWitness());

    WorkerResults bundle = WorkerResults.decode(WorkerResults.ofColumnWrites(List.of(w)).encode());
    assertThat(bundle.columnWrites().get(0).inputWitness()).as("a WorkerResults bundle keeps them").isEqualTo(w.inputWitness());

    Transaction txn = new Transaction(java.util.UUID.randomUUID().toString(), w.readVersion(), new Operation.WriteColumns(List.of(w.write())), Map.of());
    Transaction back = MetadataCodec.decodeTransaction(MetadataCodec.encodeTransaction(txn), "test");
    assertThat(back).isEqualTo(txn);
    assertThat(back.operation().readFieldIds()).isEqualTo(Set.of(id("v"), id("empty"), id("s.x"), id("s.y")));
  }

  @Test
  void stagingWithAColumnSchemaWhoseVersionIsGoneSaysSo() {
    ColumnSchema old = ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of("v"));
    ds.update(new long[] {RowAddress.of(0, 1)}, Map.of("w", 1));
    store.delete(io.quiver.store.ObjectStoreCommitStore.manifestKey(old.readVersion()));
    try (Dataset fresh = Dataset.open(OverlayTestSupport.URI_,
        OverlayTestSupport.options(allocator, store, 2)); ArrowReader reader = ints(allocator, old.arrowSchema(), 1, 2, 3, 4)) {
      io.quiver.exceptions.StaleColumnWriteException e = assertThatExceptionOfType(io.quiver.exceptions.StaleColumnWriteException.class).isThrownBy(() -> fresh.columns().writeFragment(0, reader, old)).actual();
      assertThat(e.getMessage()).contains("version " + old.readVersion() + " is no longer in the table");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void anInputWithoutItsBackingIsCorrupt() throws Exception {
    StagedColumnWrite w = stage(ds.columns().newSchema(List.of(intField("n", true)), List.of(), List.of("v")), 1, 2, 3, 4);
    byte[] bytes = w.encode();
    io.quiver.internal.proto.StagedColumnWrite proto =
        io.quiver.internal.proto.StagedColumnWrite.parseFrom(Arrays.copyOfRange(bytes, 8, bytes.length));
    assertThat(proto.getWrite().getInputsCount()).isEqualTo(1);
    assertThat(proto.getWrite().getInputs(0).getPath()).isEqualTo("v");
    io.quiver.internal.proto.StagedColumnWrite broken = proto.toBuilder()
        .setWrite(proto.getWrite().toBuilder().setInputs(0, proto.getWrite().getInputs(0).toBuilder().clearBacking()))
        .build();
    CorruptFileException e = assertThatExceptionOfType(CorruptFileException.class).isThrownBy(() -> StagedColumnWrite.decode(envelope(broken.toByteArray()))).actual();
    assertThat(e.getMessage()).contains("input ('v') without its backing");
  }

  /** The QVS1 envelope: magic, CRC-32C of the payload, payload. */
  private static byte[] envelope(byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(payload);
    return ByteBuffer.allocate(8 + payload.length).put("QVS1".getBytes(StandardCharsets.US_ASCII))
        .putInt((int) crc.getValue()).put(payload).array();
  }
}
