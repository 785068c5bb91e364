package io.quiver.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.CorruptFileException;
import io.quiver.predicate.Predicate;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.roaringbitmap.RoaringBitmap;

/**
 * Scan task bytes (magic QVP1): any task, with any filter and literal of every supported type, decodes to
 * an equal task and re-encodes to the same bytes; damaged payloads (with a valid checksum, so the decoder
 * itself is exercised) decode or fail with {@link CorruptFileException}, never anything else.
 */
class ScanTaskCodecTest {
  @Provide
  Arbitrary<ScanTaskCodec.Task> tasks() {
    Arbitrary<String> uris = Arbitraries.of("memory://t", "s3://bucket/tables/people", "/data/ü t");
    Arbitrary<List<Integer>> ids = Arbitraries.integers().between(0, 500).list().ofMaxSize(6);
    Arbitrary<Optional<Predicate>> filters = predicates().optional(0.8);
    Arbitrary<long[]> ranges = Arbitraries.longs().between(0, 1L << 32).array(long[].class).ofSize(2)
        .map(r -> {
          Arrays.sort(r);
          return r;
        });
    Arbitrary<ScanTaskCodec.Task> plain = Combinators.combine(uris, Arbitraries.longs().between(1, Long.MAX_VALUE),
        Arbitraries.longs().between(0, 0xFFFF_FFFFL), ranges, ids, filters, Arbitraries.integers().between(1, 1 << 20),
        Arbitraries.longs().between(0, 1_000).optional(0.3)).as((uri, version, fragment, range, fields, filter, batch,
            limit) -> new ScanTaskCodec.Task(uri, uri, version, fragment, range[0], range[1], fields, filter, batch % 2 == 0,
            batch, limit.map(OptionalLong::of).orElse(OptionalLong.empty()), range[1] - range[0], batch * 3L));
    // Half the tasks carry an index selection: random offsets of the range, sparse, dense or in runs.
    return Combinators.combine(plain, Arbitraries.integers().between(0, 2), Arbitraries.longs(), Arbitraries.of(true, false))
        .as((task, shape, seed, selected) -> selected ? withSelection(task, shape, seed) : task);
  }

  /** {@code task} with a selection of its range: {@code shape} 0 sparse, 1 dense, 2 runs (deterministic in seed). */
  static ScanTaskCodec.Task withSelection(ScanTaskCodec.Task task, int shape, long seed) {
    java.util.Random random = new java.util.Random(seed);
    RoaringBitmap selection = new RoaringBitmap();
    long span = task.rowEnd() - task.rowStart();
    for (int i = 0; span > 0 && i < 200; i++) {
      long from = task.rowStart() + (long) (random.nextDouble() * span);
      long to = Math.min(task.rowEnd(), from + (shape == 0 ? 1 : shape == 1 ? 3 : 5_000));
      selection.add(from, to);
    }
    return with(task, Optional.of(selection));
  }

  static ScanTaskCodec.Task with(ScanTaskCodec.Task t, Optional<RoaringBitmap> selection) {
    return new ScanTaskCodec.Task(t.tableUri(), t.tableLocation(), t.version(), t.fragmentId(), t.rowStart(), t.rowEnd(),
        t.fieldIds(), t.filter(), t.withRowAddress(), t.batchSize(), t.limit(), t.rowCount(), t.bytesEstimate(),
        t.fieldBounds(), t.withRowLineage(), selection);
  }

  /**
   * A task as builds before the selection field (16) encode it: table s3://bucket/t, version 7, fragment 3, rows
   * [0, 1000), fields 1 and 2, filter {@code id > 5}, batch 8192, 1000 rows, 4096 bytes. Pinned: these bytes must
   * always decode, to a task without a selection.
   */
  static final String BEFORE_SELECTIONS = "5156503163adab7a0a0d73333a2f2f6275636b65742f74120d73333a2f2f6275636b65742f741807200330e8073a"
      + "020102420c0a0a0a02696410051a02280a50804060e807688020";

  @org.junit.jupiter.api.Test
  void tasksEncodedBeforeSelectionsStillDecodeAndReadTheWholeRange() {
    ScanTaskCodec.Task old = ScanTaskCodec.decode(java.util.HexFormat.of().parseHex(BEFORE_SELECTIONS));
    assertThat(old).isEqualTo(new ScanTaskCodec.Task("s3://bucket/t", "s3://bucket/t", 7, 3, 0, 1000, List.of(1, 2),
        Optional.of(Predicate.gt("id", 5L)), false, 8192, OptionalLong.empty(), 1000, 4096));
    assertThat(old.selection()).isEmpty();
    assertThat(old.selectionOrNull()).isNull();
    // Re-encoded without a selection, a task is byte for byte what the older builds wrote.
    assertThat(java.util.HexFormat.of().formatHex(ScanTaskCodec.encode(old))).isEqualTo(BEFORE_SELECTIONS);
  }

  @Property(tries = 100)
  void aSelectionOnlyAppendsFieldSixteenSoOlderReadersSeeTheSameTask(@ForAll("tasks") ScanTaskCodec.Task task,
      @ForAll("positions") double density) {
    ScanTaskCodec.Task without = with(task, Optional.empty());
    ScanTaskCodec.Task selected = withSelection(without, (int) (density * 3), Double.doubleToLongBits(density));
    byte[] plain = ScanTaskCodec.encode(without);
    byte[] bytes = ScanTaskCodec.encode(selected);
    // Envelope: magic, CRC-32C, payload. Deterministic protobuf writes fields by number, so the payload of the task
    // with a selection is the plain payload followed by field 16, which a reader without it skips as unknown.
    byte[] payload = Arrays.copyOfRange(bytes, 8, bytes.length);
    byte[] plainPayload = Arrays.copyOfRange(plain, 8, plain.length);
    assertThat(Arrays.copyOf(payload, plainPayload.length)).isEqualTo(plainPayload);
    assertThat(payload[plainPayload.length]).as("field 16, length-delimited").isEqualTo((byte) 0x82);
    ScanTaskCodec.Task back = ScanTaskCodec.decode(bytes);
    assertThat(back.selection()).isEqualTo(selected.selection());
    assertThat(io.quiver.internal.proto.ScanTask.newBuilder().setTableUri("x").build().hasSelection()).isFalse();
  }

  @org.junit.jupiter.api.Test
  void aSelectionOutsideTheRangeOrNotABitmapIsACorruptFile() {
    ScanTaskCodec.Task task = new ScanTaskCodec.Task("memory://t", "memory://t", 1, 0, 100, 200, List.of(1),
        Optional.empty(), false, 10, OptionalLong.empty(), 100, 10);
    byte[] good = ScanTaskCodec.encode(with(task, Optional.of(RoaringBitmap.bitmapOf(100, 150, 199))));
    assertThat(ScanTaskCodec.decode(good).selection()).hasValue(RoaringBitmap.bitmapOf(100, 150, 199));
    io.quiver.internal.proto.ScanTask proto = payloadOf(good);
    for (RoaringBitmap outside : List.of(RoaringBitmap.bitmapOf(99, 150), RoaringBitmap.bitmapOf(150, 200))) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(outside.serializedSizeInBytes());
      outside.serialize(b);
      byte[] bad = MetadataCodec.envelope("QVP1".getBytes(StandardCharsets.US_ASCII),
          proto.toBuilder().setSelection(com.google.protobuf.ByteString.copyFrom(b.array())).build().toByteArray());
      assertThatThrownBy(() -> ScanTaskCodec.decode(bad)).isInstanceOf(CorruptFileException.class)
          .hasMessageContaining("not all within the task's range [100, 200)");
    }
    byte[] notABitmap = MetadataCodec.envelope("QVP1".getBytes(StandardCharsets.US_ASCII),
        proto.toBuilder().setSelection(com.google.protobuf.ByteString.copyFromUtf8("no bitmap")).build().toByteArray());
    assertThatThrownBy(() -> ScanTaskCodec.decode(notABitmap)).isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("selection is not a portable RoaringBitmap");
    // The task keeps its own copy: changing the caller's bitmap changes nothing.
    RoaringBitmap mine = RoaringBitmap.bitmapOf(120);
    ScanTaskCodec.Task copied = with(task, Optional.of(mine));
    mine.add(121);
    assertThat(copied.selectionOrNull()).isEqualTo(RoaringBitmap.bitmapOf(120));
  }

  private static io.quiver.internal.proto.ScanTask payloadOf(byte[] bytes) {
    try {
      return io.quiver.internal.proto.ScanTask.parseFrom(Arrays.copyOfRange(bytes, 8, bytes.length));
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  private Arbitrary<Object> literals() {
    return Arbitraries.oneOf(
        Arbitraries.of(true, false).map(b -> b),
        Arbitraries.bytes().map(b -> b),
        Arbitraries.shorts().map(s -> s),
        Arbitraries.integers().map(i -> i),
        Arbitraries.longs().map(l -> l),
        Arbitraries.bigIntegers().between(BigInteger.TWO.pow(70).negate(), BigInteger.TWO.pow(70)).map(b -> b),
        Arbitraries.floats().withSpecialValue(Float.NaN).withSpecialValue(-0.0f)
            .withSpecialValue(Float.NEGATIVE_INFINITY).map(f -> f),
        Arbitraries.doubles().withSpecialValue(Double.NaN).withSpecialValue(-0.0d).map(d -> d),
        Combinators.combine(Arbitraries.bigIntegers().between(BigInteger.valueOf(-1_000_000_000), BigInteger.TEN.pow(20)),
            Arbitraries.integers().between(-5, 30)).as((u, s) -> (Object) new BigDecimal(u, s)),
        Arbitraries.strings().withCharRange('a', 'z').withChars('\'', '`', '.', 'ü', '€', ' ').ofMaxLength(12).map(s -> s),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(8).map(b -> b),
        Arbitraries.longs().between(-1_000_000, 1_000_000).map(d -> (Object) LocalDate.ofEpochDay(d)),
        Combinators.combine(Arbitraries.longs().between(-10_000_000_000L, 10_000_000_000L),
            Arbitraries.integers().between(0, 999_999_999)).as((s, n) -> (Object) Instant.ofEpochSecond(s, n)),
        Combinators.combine(Arbitraries.longs().between(-10_000_000_000L, 10_000_000_000L),
            Arbitraries.integers().between(0, 999_999_999))
            .as((s, n) -> (Object) LocalDateTime.ofEpochSecond(s, n, java.time.ZoneOffset.UTC)));
  }

  private Arbitrary<Predicate> predicates() {
    Arbitrary<String> columns = Arbitraries.of("id", "s.x", "`a.b`.c", "ünï");
    Arbitrary<Predicate> leaf = Arbitraries.oneOf(
        Combinators.combine(columns, Arbitraries.of(Predicate.Op.values()), literals())
            .as((c, op, v) -> Predicate.compare(c, op, v)),
        Combinators.combine(columns, literals().list().ofMaxSize(4)).as((c, vs) -> (Predicate) new Predicate.In(c, vs)),
        columns.map(Predicate::isNull),
        Arbitraries.just(Predicate.TRUE));
    return Arbitraries.recursive(() -> leaf, inner -> Arbitraries.oneOf(
        inner.map(Predicate::not),
        inner.list().ofMinSize(2).ofMaxSize(3).map(l -> (Predicate) new Predicate.And(l)),
        inner.list().ofMinSize(2).ofMaxSize(3).map(l -> (Predicate) new Predicate.Or(l))), 0, 3);
  }

  @Property(tries = 300)
  void everyTaskRoundTripsToEqualBytes(@ForAll("tasks") ScanTaskCodec.Task task) {
    byte[] bytes = ScanTaskCodec.encode(task);
    ScanTaskCodec.Task back = ScanTaskCodec.decode(bytes);
    assertThat(back).isEqualTo(task);
    assertThat(ScanTaskCodec.encode(back)).isEqualTo(bytes);
    assertThat(new String(bytes, 0, 4, StandardCharsets.US_ASCII)).isEqualTo("QVP1");
  }

  @Property(tries = 300)
  void aDamagedPayloadWithAValidChecksumDecodesOrIsACorruptFile(@ForAll("tasks") ScanTaskCodec.Task task,
      @ForAll("positions") double where, @ForAll("masks") int mask) {
    byte[] bytes = ScanTaskCodec.encode(task);
    byte[] payload = Arrays.copyOfRange(bytes, 8, bytes.length);
    if (payload.length == 0) {
      return;
    }
    payload[(int) (where * (payload.length - 1))] ^= (byte) mask;
    byte[] damaged = MetadataCodec.envelope("QVP1".getBytes(StandardCharsets.US_ASCII), payload);
    try {
      ScanTaskCodec.decode(damaged);
    } catch (CorruptFileException expected) {
      assertThat(expected.getMessage()).contains("scan task");
    }
  }

  @Property(tries = 20)
  void aStagedColumnWritesBytesAreNotAScanTask(@ForAll("tasks") ScanTaskCodec.Task task) {
    // Each wire format has its own magic: QVS1 is the staged column write's, QVP1 the scan task's.
    byte[] bytes = ScanTaskCodec.encode(task);
    byte[] asStaged = MetadataCodec.envelope("QVS1".getBytes(StandardCharsets.US_ASCII),
        Arrays.copyOfRange(bytes, 8, bytes.length));
    assertThatThrownBy(() -> ScanTaskCodec.decode(asStaged)).isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("expected magic QVP1");
  }

  @Property(tries = 50)
  void everyTruncationIsACorruptFile(@ForAll("tasks") ScanTaskCodec.Task task) {
    byte[] bytes = ScanTaskCodec.encode(task);
    for (int length = 0; length < bytes.length; length += Math.max(1, bytes.length / 32)) {
      byte[] truncated = Arrays.copyOf(bytes, length);
      assertThatThrownBy(() -> ScanTaskCodec.decode(truncated)).isInstanceOf(CorruptFileException.class);
    }
  }

  @Provide
  Arbitrary<Double> positions() {
    return Arbitraries.doubles().between(0, 1);
  }

  @Provide
  Arbitrary<Integer> masks() {
    return Arbitraries.integers().between(1, 255);
  }
}
