package io.quiver.internal.txn;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.RetryableConflictException;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.manifest.RowLineage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.roaringbitmap.RoaringBitmap;

/**
 * Stable row ids (format 1.4, docs/format.md section 14) in the {@link ManifestBuilder}: which tables have them,
 * and each changed fragment's lineage in the version being built. New rows get fresh ids from the manifest's
 * counter in fragment-id and offset order; rows a transaction carries (a compaction's copies) keep the ids it
 * names; an overlay committed by the version stamps the rows it covers as updated by it, and so does a staged
 * column write or data replacement for every row of the fragments it rewrites. Pure, like the builder: the same
 * base and transaction always give the same ids, so a rebased retry assigns them again without duplicates.
 */
public final class RowIds {
  /**
   * Table configuration: {@code true} gives the table stable row ids from the version that sets it on (rows
   * already there get ids then; their earlier history is unknown, so that version counts as their insertion).
   * Once on it stays on: ids are what change consumers key on.
   */
  public static final String CONFIG_KEY = "row-ids";

  private RowIds() {}

  /** Checks the value of {@link #CONFIG_KEY} in a configuration update, if it sets it. */
  public static void check(Map<String, String> upserts) {
    String value = upserts.get(CONFIG_KEY);
    if (value != null && !value.equals("true") && !value.equals("false")) {
      throw new InvalidArgumentException(
          "table configuration '" + CONFIG_KEY + "' must be 'true' or 'false', found '" + value + "'");
    }
  }

  /** Whether the version built on {@code base} with {@code config} has row ids. */
  static boolean on(Manifest base, Map<String, String> config) {
    boolean had = base != null && base.hasRowIds();
    check(config);
    String value = config.get(CONFIG_KEY);
    if (had && !"true".equals(value)) {
      throw new InvalidArgumentException("the table has stable row ids, which cannot be turned off: table"
          + " configuration '" + CONFIG_KEY + "' must stay 'true', but this commit makes it "
          + (value == null ? "absent" : "'" + value + "'") + "; keep the key");
    }
    return had || "true".equals(value);
  }

  /** {@code features} without {@link Manifest#ROW_IDS_FEATURE}, which {@link Manifest#withNextRowId} adds back. */
  static Set<String> withoutFeature(Set<String> features) {
    Set<String> out = new TreeSet<>(features);
    out.remove(Manifest.ROW_IDS_FEATURE);
    return out;
  }

  /** The fragments without lineage (a table without row ids stores none). */
  static List<Fragment> withoutLineage(List<Fragment> fragments) {
    List<Fragment> out = new ArrayList<>(fragments.size());
    for (Fragment f : fragments) {
      out.add(f.lineage().isPresent() ? f.withLineage(Optional.empty()) : f);
    }
    return out;
  }

  /**
   * {@code f}'s lineage in {@code version}: its own (a transaction's, resolved), else that of {@code before} (the
   * same fragment in the base, if any), else fresh; then stamped with the version's updates of it. {@code next}
   * holds the next free id and moves past those used.
   */
  static Fragment resolve(Fragment f, Fragment before, Transaction txn, long version, long[] next) {
    Optional<RowLineage> prior = before == null ? Optional.empty() : before.lineage();
    RowLineage l = f.lineage().orElse(null);
    if (l == null) {
      if (prior.isPresent() && before.physicalRows() == f.physicalRows()) {
        l = prior.get();
      } else if (txn.operation() instanceof Operation.Rewrite && before == null) {
        throw new RetryableConflictException("rewrite " + txn.uuid() + " writes fragment rows without their row ids,"
            + " but the table has stable row ids since after version " + txn.readVersion() + "; a rewrite must carry"
            + " the ids of the rows it copies: plan it again on the latest version");
      } else {
        l = RowLineage.fresh(f.physicalRows());
      }
    }
    if (l.hasFresh()) {
      long fresh = l.freshIds();
      l = l.resolve(next[0], version);
      next[0] += fresh;
    }
    if (prior.isPresent()) {
      RoaringBitmap covered = new RoaringBitmap();
      for (Overlay o : f.overlays()) {
        if (o.committedVersion() == version && !before.overlays().contains(o)) {
          for (int i = 0; i < o.dataFile().fieldIds().size(); i++) {
            covered.or(o.coverage().offsetsFor(i).toMutableRoaringBitmap().toRoaringBitmap());
          }
        }
      }
      if (!covered.isEmpty()) {
        l = l.updatedBy(o -> covered.contains((int) o), version);
      }
      Operation op = txn.operation();
      if ((op instanceof Operation.WriteColumns || op instanceof Operation.DataReplacement)
          && !f.files().equals(before.files())) {
        l = l.updatedBy(version);
      }
    }
    return f.lineage().isPresent() && f.lineage().get().equals(l) ? f : f.withLineage(Optional.of(l));
  }
}
