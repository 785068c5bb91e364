package io.quiver.internal.codec;

import io.quiver.internal.txn.Operation;
import io.quiver.internal.txn.Transaction;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.DeletionFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.schema.Field;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaArbitraries;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;
import org.roaringbitmap.buffer.MutableRoaringBitmap;

/** Random but valid manifests and transactions, for codec properties. */
public final class ManifestArbitraries {
  private ManifestArbitraries() {}

  public record Committed(Manifest manifest, Transaction transaction) {}

  public static Arbitrary<Committed> committed() {
    return Combinators.combine(
            SchemaArbitraries.arrowSchemas(),
            Arbitraries.longs().between(1, 1_000_000),
            Arbitraries.longs(),
            Arbitraries.integers().between(0, 6),
            Arbitraries.maps(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(8),
                    Arbitraries.strings().ofMaxLength(12))
                .ofMaxSize(3),
            Arbitraries.of(true, false))
        .as((arrow, version, seed, fragmentCount, config, append) -> {
          Schema schema = Schema.fromArrow(arrow, new FieldIdAllocator(0));
          Random random = new Random(seed);
          List<Fragment> fragments = new ArrayList<>();
          long id = random.nextInt(5);
          for (int i = 0; i < fragmentCount; i++) {
            fragments.add(fragment(id, schema, random));
            id += 1 + random.nextInt(3);
          }
          String uuid = new UUID(random.nextLong(), random.nextLong()).toString();
          long readVersion = version - 1 - (version > 1 ? random.nextInt((int) Math.min(version - 1, 5)) : 0);
          Operation op = operation(schema, fragments, config, random);
          Transaction txn = new Transaction(uuid, readVersion, op, Map.of("k" + random.nextInt(9), "v"));
          Manifest manifest =
              new Manifest(
                  version,
                  schema,
                  fragments,
                  fragments.isEmpty() ? (random.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(3))
                      : OptionalLong.of(id + random.nextInt(4)),
                  schema.maxFieldId() + random.nextInt(4) + 1,
                  Instant.ofEpochMilli(Math.abs(random.nextLong() % 4_000_000_000_000L)),
                  "quiver-java/test",
                  config,
                  uuid,
                  txn.path(),
                  Set.of(),
                  Set.of());
          if (random.nextInt(3) == 0) {
            List<Integer> atomic = schema.atomicFields().stream().map(Field::id).toList();
            List<io.quiver.manifest.ScalarIndex> indices = new ArrayList<>();
            for (int i = 1 + random.nextInt(2); i > 0; i--) {
              indices.add(index(atomic, fragments, random, indices.size()));
            }
            manifest = manifest.withIndices(indices);
          }
          return new Committed(manifest, txn);
        });
  }

  /** A random scalar index of one of {@code atomic}, covering some of {@code fragments}. */
  static io.quiver.manifest.ScalarIndex index(List<Integer> atomic, List<Fragment> fragments, Random random, int n) {
    String uuid = new java.util.UUID(random.nextLong(), random.nextLong()).toString();
    List<io.quiver.manifest.IndexSegment> segments = new ArrayList<>();
    for (int s = random.nextInt(3); s > 0; s--) {
      List<io.quiver.manifest.IndexedFragment> covered = new ArrayList<>();
      for (Fragment f : fragments) {
        if (random.nextBoolean()) {
          covered.add(new io.quiver.manifest.IndexedFragment(f.id(), f.physicalRows(),
              f.files().stream().map(DataFile::path).limit(1 + random.nextInt(2)).toList()));
        }
      }
      long size = 100 + random.nextInt(1000);
      segments.add(new io.quiver.manifest.IndexSegment("_indices/" + uuid + "/" + s + ".idx", size, size - 50, 50,
          1, random.nextInt(1000), covered));
    }
    return new io.quiver.manifest.ScalarIndex(uuid, "idx_" + n, random.nextBoolean()
        ? io.quiver.manifest.ScalarIndex.Kind.BTREE : io.quiver.manifest.ScalarIndex.Kind.BITMAP,
        atomic.get(random.nextInt(atomic.size())), 1, segments);
  }

  /** A random operation of any kind, built from the sample's schema and fragments. */
  static Operation operation(Schema schema, List<Fragment> fragments, Map<String, String> config, Random random) {
    Operation.Kind kind = Operation.Kind.values()[random.nextInt(Operation.Kind.values().length)];
    List<Integer> atomic = schema.atomicFields().stream().map(Field::id).toList();
    Set<Integer> someFields = Set.of(atomic.get(random.nextInt(atomic.size())));
    Fragment any = fragments.isEmpty() ? fragment(0, schema, random) : fragments.get(random.nextInt(fragments.size()));
    return switch (kind) {
      case APPEND -> new Operation.Append(fragments.isEmpty() ? List.of() : List.of(fragments.get(0).withId(0)));
      case OVERWRITE -> new Operation.Overwrite(schema, fragments, config);
      case DELETE -> {
        MutableRoaringBitmap added = bitmap(any.physicalRows(), random).toMutableRoaringBitmap();
        yield new Operation.Delete(
            List.of(new Operation.FragmentDeletion(any.id(), any.deletionFile(),
                new DeletionFile("_deletions/" + any.id() + "-2-x.bin", added.getCardinality(), 40),
                added.toImmutableRoaringBitmap())),
            someFields, "x > " + random.nextInt(100));
      }
      case UPDATE -> new Operation.Update(List.of(new Operation.FragmentOverlays(any.id(), any.overlays())), someFields);
      case ADD_COLUMNS ->
          new Operation.AddColumns(schema, List.of(new Operation.FragmentFile(any.id(), any.files().get(0))), someFields);
      case PROJECT -> new Operation.Project(schema, someFields, Set.of());
      case REPLACE_DATA ->
          new Operation.DataReplacement(List.of(new Operation.Replacement(any.id(), any.files().get(0))), someFields);
      case REWRITE -> new Operation.Rewrite(List.of(new Operation.RewriteGroup(List.of(any.id()), fragments)));
      case RESTORE -> new Operation.Restore(1 + random.nextInt(5), schema, fragments, config);
      case UPDATE_CONFIG -> new Operation.UpdateConfig(config, Set.of("gone-" + random.nextInt(3)));
      case UPDATE_INDICES -> new Operation.UpdateIndices(
          Operation.UpdateIndices.Action.values()[random.nextInt(3)], index(atomic, fragments, random, 0));
      case MERGE_INSERT -> {
        MutableRoaringBitmap added = bitmap(any.physicalRows(), random).toMutableRoaringBitmap();
        List<Integer> keys = List.of(atomic.get(random.nextInt(atomic.size())));
        io.quiver.internal.txn.MergeKeys inserted;
        byte[] lo = io.quiver.internal.txn.MergeKeys.encode(List.of(new io.quiver.manifest.StatValue.Int(-3)));
        byte[] hi = io.quiver.internal.txn.MergeKeys.encode(List.of(new io.quiver.manifest.StatValue.Bytes(new byte[] {1, 2})));
        if (random.nextBoolean()) {
          List<byte[]> exact = new ArrayList<>();
          for (int i = random.nextInt(4); i >= 0; i--) {
            exact.add(io.quiver.internal.txn.MergeKeys.encode(List.of(new io.quiver.manifest.StatValue.Int(random.nextLong()))));
          }
          inserted = io.quiver.internal.txn.MergeKeys.of(exact);
        } else {
          inserted = io.quiver.internal.txn.MergeKeys.decoded(20_000, List.of(), new long[] {random.nextLong(), -1L},
              1 + random.nextInt(7), lo, hi);
        }
        yield new Operation.MergeInsert(keys,
            List.of(new Operation.FragmentDeletion(any.id(), any.deletionFile(),
                new DeletionFile("_deletions/" + any.id() + "-2-y.bin", added.getCardinality(), 40),
                added.toImmutableRoaringBitmap())),
            List.of(new Operation.FragmentOverlays(any.id(), any.overlays())),
            fragments.isEmpty() ? List.of() : List.of(fragments.get(0).withId(0)), someFields, Set.of(any.id()),
            inserted, random.nextBoolean(), "on [k]: when matched update all");
      }
      case ROW_DELTA -> {
        MutableRoaringBitmap added = bitmap(any.physicalRows(), random).toMutableRoaringBitmap();
        yield new Operation.RowDelta(
            List.of(new Operation.FragmentDeletion(any.id(), any.deletionFile(),
                new DeletionFile("_deletions/" + any.id() + "-2-z.bin", added.getCardinality(), 40),
                added.toImmutableRoaringBitmap())),
            fragments.isEmpty() ? List.of() : List.of(fragments.get(0).withId(0)), someFields, Set.of(any.id()),
            random.nextBoolean(), Optional.empty(), "spark MERGE where x < 3 (serializable)");
      }
      case WRITE_COLUMNS -> {
        // A staged write of the fragment's first file's fields, witnessed against the fragment itself.
        DataFile file = any.files().get(0);
        List<io.quiver.internal.txn.FieldBacking> witness =
            file.liveFieldIds().stream().map(id -> io.quiver.internal.txn.FieldBacking.of(any, id)).toList();
        Set<Integer> fresh = random.nextBoolean() ? Set.of() : Set.of(schema.fields().get(0).id());
        yield new Operation.WriteColumns(List.of(new Operation.ColumnWrite(any.id(), any.physicalRows(),
            any.files().stream().map(DataFile::path).toList(), schema, fresh, file, witness)));
      }
    };
  }

  private static Fragment fragment(long id, Schema schema, Random random) {
    List<Integer> atomic = schema.atomicFields().stream().map(Field::id).toList();
    long rows = 1 + random.nextInt(10_000);
    List<DataFile> files = new ArrayList<>();
    // Split the atomic fields over one or two files, columns in shuffled order.
    int split = atomic.size() > 1 && random.nextBoolean() ? 1 + random.nextInt(atomic.size() - 1) : atomic.size();
    files.add(file(atomic.subList(0, split), random));
    if (split < atomic.size()) {
      files.add(file(atomic.subList(split, atomic.size()), random));
    }
    Optional<DeletionFile> deletion =
        random.nextBoolean()
            ? Optional.of(new DeletionFile("_deletions/" + id + "-1-" + random.nextInt(100) + ".bin",
                random.nextInt((int) rows + 1), 10 + random.nextInt(100)))
            : Optional.empty();
    List<Overlay> overlays = new ArrayList<>();
    for (int i = random.nextInt(3); i > 0; i--) {
      List<Integer> fields = atomic.subList(0, 1 + random.nextInt(atomic.size()));
      Coverage coverage =
          random.nextBoolean()
              ? new Coverage.Shared(bitmap(rows, random))
              : new Coverage.PerField(fields.stream().map(f -> bitmap(rows, random)).toList());
      overlays.add(new Overlay(file(fields, random), coverage, random.nextInt(50)));
    }
    return new Fragment(id, files, deletion, rows, overlays);
  }

  private static DataFile file(List<Integer> ids, Random random) {
    List<Integer> columns = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      columns.add(i);
    }
    java.util.Collections.shuffle(columns, random);
    return new DataFile(
        "data/" + new UUID(random.nextLong(), random.nextLong()) + ".arrow",
        ids,
        columns,
        1,
        random.nextInt(3),
        random.nextInt(1 << 20),
        random.nextBoolean() ? OptionalInt.empty() : OptionalInt.of(random.nextInt(4)));
  }

  private static ImmutableRoaringBitmap bitmap(long rows, Random random) {
    MutableRoaringBitmap b = new MutableRoaringBitmap();
    for (int i = random.nextInt(20); i > 0; i--) {
      b.add(random.nextInt((int) rows));
    }
    if (random.nextInt(4) == 0) {
      b.add(0L, Math.min(rows, 1 + random.nextInt(5000)));
    }
    return b.toImmutableRoaringBitmap();
  }
}
