package io.quiver.txn;

import io.quiver.exceptions.IncompatibleTransactionException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Manifest + transaction → next manifest. Pure: the version number, the clock reading and the writer
 * string come in as parameters, so every transformation is testable without storage. Called once per
 * commit attempt, on the latest manifest at that attempt.
 */
public final class ManifestBuilder {
  private final String writerVersion;

  public ManifestBuilder(String writerVersion) {
    this.writerVersion = writerVersion;
  }

  /**
   * Builds the manifest that committing {@code txn} on top of {@code current} produces.
   *
   * @param current the latest manifest, empty when the table has no version yet
   * @param txn a transaction already checked by {@link ConflictResolver} against everything committed
   *     after its read version
   * @param timestamp the commit time to record
   */
  public Manifest build(Optional<Manifest> current, Transaction txn, Instant timestamp) {
    long version = current.map(m -> m.version() + 1).orElse(1L);
    if (txn.operation() instanceof Operation.Append append) {
      return append(current, txn, append, version, timestamp);
    }
    if (txn.operation() instanceof Operation.Overwrite overwrite) {
      return overwrite(current, txn, overwrite, version, timestamp);
    }
    throw new IllegalStateException("no manifest transformation for operation " + txn.operation().name());
  }

  private Manifest append(Optional<Manifest> current, Transaction txn, Operation.Append append, long version,
      Instant timestamp) {
    Manifest base =
        current.orElseThrow(
            () -> new InvalidArgumentException("cannot append to a table that has no version; create it first"));
    checkFieldsExist(base.schema(), append.fragments(), txn);
    List<Fragment> fragments = new ArrayList<>(base.fragments());
    long nextId = base.nextFragmentId();
    for (Fragment f : append.fragments()) {
      fragments.add(f.withId(nextId++));
    }
    OptionalLong maxFragmentId = nextId == 0 ? base.maxFragmentId() : OptionalLong.of(nextId - 1);
    return new Manifest(
        version, base.schema(), fragments, maxFragmentId, base.maxFieldId(), timestamp, writerVersion,
        base.config(), txn.uuid(), txn.path(), base.readerFeatures(), base.writerFeatures());
  }

  private Manifest overwrite(Optional<Manifest> current, Transaction txn, Operation.Overwrite overwrite, long version,
      Instant timestamp) {
    checkFieldsExist(overwrite.schema(), overwrite.fragments(), txn);
    long nextId = current.map(Manifest::nextFragmentId).orElse(0L);
    List<Fragment> fragments = new ArrayList<>();
    for (Fragment f : overwrite.fragments()) {
      fragments.add(f.withId(nextId++));
    }
    OptionalLong maxFragmentId =
        nextId == 0 ? OptionalLong.empty() : OptionalLong.of(nextId - 1);
    int maxFieldId =
        Math.max(Math.max(0, overwrite.schema().maxFieldId()), current.map(Manifest::maxFieldId).orElse(0));
    Map<String, String> config = new HashMap<>(current.map(Manifest::config).orElse(Map.of()));
    config.putAll(overwrite.configUpserts());
    return new Manifest(
        version, overwrite.schema(), fragments, maxFragmentId, maxFieldId, timestamp, writerVersion, config,
        txn.uuid(), txn.path(), Set.of(), Set.of());
  }

  private static void checkFieldsExist(Schema schema, List<Fragment> fragments, Transaction txn) {
    Set<Integer> atomic = new HashSet<>();
    for (Field f : schema.atomicFields()) {
      atomic.add(f.id());
    }
    for (Fragment fragment : fragments) {
      for (DataFile file : fragment.files()) {
        for (int id : file.fieldIds()) {
          if (id >= 0 && !atomic.contains(id)) {
            throw new IncompatibleTransactionException(
                "transaction " + txn.uuid() + " writes field id " + id + " in " + file.path()
                    + ", which is not an atomic field of the table schema at the version being built;"
                    + " the schema changed since version " + txn.readVersion() + ". Recompute the write.");
          }
        }
      }
    }
  }
}
