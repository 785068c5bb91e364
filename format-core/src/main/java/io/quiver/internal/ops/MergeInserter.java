package io.quiver.internal.ops;

import io.quiver.dataset.RowAddress;
import io.quiver.exceptions.DuplicateSourceKeyException;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.MatchedRowException;
import io.quiver.exceptions.SchemaMismatchException;
import io.quiver.exceptions.StoreException;
import io.quiver.internal.file.DataFileWriter;
import io.quiver.internal.file.WrittenFile;
import io.quiver.internal.index.KeyCandidates;
import io.quiver.internal.predicate.CellValues;
import io.quiver.internal.predicate.PredicateEvaluator;
import io.quiver.internal.read.FragmentBounds;
import io.quiver.internal.read.FragmentRange;
import io.quiver.internal.read.MeteringObjectStore;
import io.quiver.internal.read.ScanCounters;
import io.quiver.internal.read.ScanReader;
import io.quiver.internal.read.ScanSpec;
import io.quiver.internal.table.TableIo;
import io.quiver.internal.txn.ManifestBuilder;
import io.quiver.internal.txn.MergeKeys;
import io.quiver.internal.txn.Operation;
import io.quiver.internal.write.CompressionConfig;
import io.quiver.internal.write.FragmentWriter;
import io.quiver.manifest.Coverage;
import io.quiver.manifest.DataFile;
import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.Fragment;
import io.quiver.manifest.Manifest;
import io.quiver.manifest.Overlay;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.roaringbitmap.RoaringBitmap;

/**
 * Computes a merge-insert (docs/merge-insert.md) at one version: joins the source with the table on the key
 * columns, writes the matched rows' new cells as overlays, the not-matched source rows as new fragments and the
 * rows not matched by the source as deletion files, and returns the one {@link Operation.MergeInsert} that
 * publishes them. Nothing is committed here; the files are written through the given {@link TableIo} (a
 * mutation's, which deletes them when the commit certainly failed).
 */
public final class MergeInserter {
  /** What happens to a target row whose key a source row holds. */
  public enum Matched { UPDATE_ALL, DO_NOTHING, FAIL }

  /** What happens to a source row whose key no live target row holds (a null key never matches). */
  public enum NotMatched { INSERT_ALL, DO_NOTHING }

  /** What happens to a live target row whose key no source row holds. */
  public enum BySource { KEEP, DELETE }

  /**
   * The clauses of one merge.
   *
   * @param matchedCondition for {@link Matched#UPDATE_ALL}: only matched rows where it is true are updated
   *     (columns named {@code target.x} and {@code source.x})
   * @param bySourceCondition for {@link BySource#DELETE}: only rows where it is true are deleted ({@code target.x})
   */
  public record Clauses(Matched matched, Optional<Predicate> matchedCondition, NotMatched notMatched,
      BySource bySource, Optional<Predicate> bySourceCondition) {
    public String describe(List<String> keys) {
      String m = switch (matched) {
        case UPDATE_ALL -> "update all" + matchedCondition.map(p -> " if " + p).orElse("");
        case DO_NOTHING -> "do nothing";
        case FAIL -> "fail";
      };
      String n = notMatched == NotMatched.INSERT_ALL ? "insert all" : "do nothing";
      String s = bySource == BySource.KEEP ? "keep" : "delete" + bySourceCondition.map(p -> " if " + p).orElse("");
      return "on " + keys + ": when matched " + m + "; when not matched " + n + "; when not matched by source " + s;
    }
  }

  /** The merge to commit: {@code op} is null when it changes nothing. */
  public record Prepared(Operation.MergeInsert op, Set<Integer> readFieldIds, long inserted, long updated,
      long deleted) {}

  /** Makes the writer of new fragments, configured as the table is (compression, batch and fragment sizes). */
  @FunctionalInterface
  public interface Writers {
    FragmentWriter create(TableIo io, Schema table, Map<String, String> config);
  }

  private static final String TARGET = "target.";
  private static final String SOURCE = "source.";

  private final TableIo io;
  private final Manifest base;
  private final Schema table;
  private final BufferAllocator allocator;
  private final int rowsPerBatch;
  private final Writers writers;
  private boolean useIndices = true;
  private boolean alwaysUseIndices;
  private ScanCounters counters = ScanCounters.NONE;

  public MergeInserter(TableIo io, Manifest base, BufferAllocator allocator, int rowsPerBatch, Writers writers) {
    this.io = io;
    this.base = base;
    this.table = base.schema();
    this.allocator = allocator;
    this.rowsPerBatch = rowsPerBatch;
    this.writers = writers;
  }

  /**
   * Whether the table's scalar indices on key columns may narrow the rows read when rows not matched by the
   * source are kept (default true). The result is the same either way; false reads every fragment the key
   * statistics do not prune, for comparison.
   */
  public MergeInserter useIndices(boolean value) {
    this.useIndices = value;
    return this;
  }

  /**
   * Asks every covering index segment, even where reading its pages costs more bytes than the key column (see
   * {@link KeyCandidates#worthReading}); for tests and measurements.
   */
  public MergeInserter alwaysUseIndices(boolean value) {
    this.alwaysUseIndices = value;
    return this;
  }

  /** Where the read of the table's keys records what it did (fragments answered by an index, bytes fetched). */
  public MergeInserter counters(ScanCounters value) {
    this.counters = value == null ? ScanCounters.NONE : value;
    return this;
  }

  // ------------------------------------------------------------------ keys and the source

  /**
   * The key columns' fields in {@code table}: each an atomic column of a key type, reached through structs only.
   *
   * @throws InvalidArgumentException for an unknown, repeated, nested-in-list, struct or floating-point column
   */
  public static List<Field> keyFields(Schema table, List<String> keyColumns) {
    if (keyColumns == null || keyColumns.isEmpty()) {
      throw new InvalidArgumentException("a merge-insert needs at least one key column");
    }
    List<Field> out = new ArrayList<>();
    for (String column : keyColumns) {
      Field f = table.findField(column).orElseThrow(() -> new InvalidArgumentException(
          "no key column '" + column + "' in the table; columns are " + table.allFields().stream()
              .filter(Field::isAtomic).map(x -> table.pathOf(x.id())).toList()));
      if (f.isStruct() || !table.atomicFields().contains(f)) {
        throw new InvalidArgumentException(
            "key column '" + column + "' is a struct or lies inside a list or map; a key is a top-level column or a"
                + " struct member of a scalar type");
      }
      if (!CellValues.isKeyType(f.type())) {
        throw new InvalidArgumentException(
            "key column '" + column + "' has type " + f.type() + ", which cannot be a key; keys are integers,"
                + " dates, times, timestamps, durations, booleans, decimals, strings or binaries");
      }
      if (out.contains(f)) {
        throw new InvalidArgumentException("key column '" + column + "' is named twice");
      }
      out.add(f);
    }
    return out;
  }

  /**
   * The source of a merge, read once and held in memory (its Arrow buffers, plus one hash-map entry per row
   * with a non-null key), so that every attempt of the merge reads the same rows. Closing frees the buffers.
   */
  public static final class Source implements AutoCloseable {
    private final org.apache.arrow.vector.types.pojo.Schema schema;
    private final List<VectorSchemaRoot> batches;
    private final int[] starts;
    private final Map<ByteBuffer, Integer> byKey;
    private final byte[][] keys;
    private final int rows;
    /**
     * For a key of one integer column: the source's non-null keys and their rows in a primitive hash table, so
     * that a table row is looked up without encoding its key (the merge's cost per table row); null otherwise.
     */
    private final LongKeyIndex intKeys;

    private Source(org.apache.arrow.vector.types.pojo.Schema schema, List<VectorSchemaRoot> batches, int[] starts,
        Map<ByteBuffer, Integer> byKey, byte[][] keys, int rows, long[] intKeys, int[] intRows) {
      this.schema = schema;
      this.batches = batches;
      this.starts = starts;
      this.byKey = byKey;
      this.keys = keys;
      this.rows = rows;
      this.intKeys = intKeys == null ? null : new LongKeyIndex(intKeys, intRows);
    }

    /**
     * The source rows holding the keys of rows {@code [0, n)} of a target batch (its key chains), -1 where none
     * does, into {@code out}: one integer column is looked up in the primitive table, with its null checks only
     * where the column or a struct above it has nulls.
     */
    void lookupAll(List<FieldVector[]> chains, int n, int[] out) {
      if (intKeys != null && chains.size() == 1
          && chains.get(0)[chains.get(0).length - 1] instanceof org.apache.arrow.vector.BaseIntVector v) {
        FieldVector[] chain = chains.get(0);
        boolean nulls = false;
        for (FieldVector c : chain) {
          nulls |= c.getNullCount() > 0;
        }
        if (v instanceof org.apache.arrow.vector.BigIntVector big && !nulls) {
          for (int r = 0; r < n; r++) {
            out[r] = intKeys.get(big.get(r));
          }
          return;
        }
        for (int r = 0; r < n; r++) {
          out[r] = nulls && isNull(chain, r) ? -1 : intKeys.get(v.getValueAsLong(r));
        }
        return;
      }
      for (int r = 0; r < n; r++) {
        out[r] = lookup(chains, r);
      }
    }

    /** The source row holding the key of {@code row} of a target batch (its key chains), or -1. */
    int lookup(List<FieldVector[]> chains, int row) {
      if (intKeys != null && chains.size() == 1
          && chains.get(0)[chains.get(0).length - 1] instanceof org.apache.arrow.vector.BaseIntVector v) {
        return isNull(chains.get(0), row) ? -1 : intKeys.get(v.getValueAsLong(row));
      }
      byte[] key = key(chains, row);
      Integer src = key == null ? null : byKey.get(ByteBuffer.wrap(key));
      return src == null ? -1 : src;
    }

    /**
     * Copies every batch of {@code reader} into {@code allocator} and indexes the rows by key.
     *
     * @throws SchemaMismatchException if the source's columns do not fit {@code table}
     * @throws DuplicateSourceKeyException if two rows hold one non-null key
     */
    public static Source read(ArrowReader reader, Schema table, List<Field> keyFields, BufferAllocator allocator,
        long maxBytes) {
      if (reader == null) {
        throw new InvalidArgumentException("the merge-insert source must not be null");
      }
      List<VectorSchemaRoot> batches = new ArrayList<>();
      long held = 0;
      try {
        VectorSchemaRoot in = reader.getVectorSchemaRoot();
        checkSchema(in.getSchema(), table, keyFields);
        while (reader.loadNextBatch()) {
          VectorSchemaRoot copy = VectorSchemaRoot.create(in.getSchema(), allocator);
          batches.add(copy);
          int n = in.getRowCount();
          for (int c = 0; c < in.getFieldVectors().size(); c++) {
            FieldVector from = in.getVector(c);
            FieldVector to = copy.getVector(c);
            to.allocateNew();
            for (int r = 0; r < n; r++) {
              to.copyFromSafe(r, r, from);
            }
            to.setValueCount(n);
          }
          copy.setRowCount(n);
          for (FieldVector v : copy.getFieldVectors()) {
            held += v.getBufferSize();
          }
          if (held > maxBytes) {
            throw new InvalidArgumentException(
                "the merge-insert source holds more than " + maxBytes + " bytes of Arrow buffers (the limit a merge"
                    + " holds in memory); split it into several merges, or raise MergeInsert.maxSourceBytes");
          }
        }
        int[] starts = new int[batches.size() + 1];
        for (int b = 0; b < batches.size(); b++) {
          long next = (long) starts[b] + batches.get(b).getRowCount();
          if (next > Integer.MAX_VALUE - 1) {
            throw new InvalidArgumentException(
                "the merge-insert source has more than " + (Integer.MAX_VALUE - 1) + " rows; split it into several merges");
          }
          starts[b + 1] = (int) next;
        }
        int rows = starts[batches.size()];
        byte[][] keys = new byte[rows][];
        Map<ByteBuffer, Integer> byKey = new HashMap<>();
        for (int b = 0; b < batches.size(); b++) {
          VectorSchemaRoot batch = batches.get(b);
          List<FieldVector[]> chains = chains(batch, table, keyFields);
          for (int r = 0; r < batch.getRowCount(); r++) {
            byte[] key = key(chains, r);
            int row = starts[b] + r;
            keys[row] = key;
            if (key != null) {
              Integer other = byKey.putIfAbsent(ByteBuffer.wrap(key), row);
              if (other != null) {
                String described = MergeKeys.describe(key);
                throw new DuplicateSourceKeyException(
                    "the merge-insert source holds key " + keyPaths(table, keyFields) + " = " + described
                        + " twice (rows " + other + " and " + row + "); a source may hold each key once. Nothing"
                        + " was written; remove or aggregate the duplicates and merge again", described);
              }
            }
          }
        }
        long[] intKeys = null;
        int[] intRows = null;
        if (keyFields.size() == 1 && !batches.isEmpty() && batches.stream().allMatch(
            b -> last(chains(b, table, keyFields).get(0)) instanceof org.apache.arrow.vector.BaseIntVector)) {
          intKeys = new long[byKey.size()];
          intRows = new int[byKey.size()];
          int i = 0;
          for (int b = 0; b < batches.size(); b++) {
            FieldVector[] chain = chains(batches.get(b), table, keyFields).get(0);
            org.apache.arrow.vector.BaseIntVector v = (org.apache.arrow.vector.BaseIntVector) last(chain);
            for (int r = 0; r < batches.get(b).getRowCount(); r++) {
              if (!isNull(chain, r)) {
                intKeys[i] = v.getValueAsLong(r);
                intRows[i++] = starts[b] + r;
              }
            }
          }
        }
        return new Source(in.getSchema(), batches, starts, byKey, keys, rows, intKeys, intRows);
      } catch (IOException e) {
        batches.forEach(VectorSchemaRoot::close);
        throw new StoreException("could not read the merge-insert source: " + e.getMessage(), e);
      } catch (RuntimeException e) {
        batches.forEach(VectorSchemaRoot::close);
        throw e;
      }
    }

    /** Rows in the source. */
    public int rows() {
      return rows;
    }

    private final Map<Long, FieldVector[]> chains = new HashMap<>();

    /** {@link MergeInserter#chain} of batch {@code b}, computed once per batch and field. */
    FieldVector[] chain(int b, Schema table, Field f) {
      return chains.computeIfAbsent(((long) b << 32) | f.id(), k -> MergeInserter.chain(batches.get(b), table, f));
    }

    int batchOf(int row) {
      int b = java.util.Arrays.binarySearch(starts, row);
      if (b < 0) {
        return -b - 2;
      }
      while (b + 1 < starts.length && starts[b + 1] == row) {
        b++; // empty batches start where the next one does
      }
      return Math.min(b, batches.size() - 1);
    }

    @Override
    public void close() {
      batches.forEach(VectorSchemaRoot::close);
    }
  }

  /**
   * The source's columns fit the table: each names a top-level column, with the same type (children by name,
   * in order, with the same types); every key column is present; a table column the source lacks is nullable.
   */
  static void checkSchema(org.apache.arrow.vector.types.pojo.Schema source, Schema table, List<Field> keyFields) {
    Map<String, org.apache.arrow.vector.types.pojo.Field> given = new LinkedHashMap<>();
    for (org.apache.arrow.vector.types.pojo.Field f : source.getFields()) {
      if (given.put(f.getName(), f) != null) {
        throw new SchemaMismatchException("the merge-insert source has two columns named '" + f.getName() + "'");
      }
    }
    Map<String, Field> columns = new LinkedHashMap<>();
    table.fields().forEach(f -> columns.put(f.name(), f));
    for (String name : given.keySet()) {
      if (!columns.containsKey(name)) {
        throw new SchemaMismatchException(
            "the merge-insert source has column '" + name + "', which the table lacks; the table's columns are "
                + columns.keySet() + ". Drop it from the source, or add the column to the table first");
      }
    }
    for (Field f : table.fields()) {
      org.apache.arrow.vector.types.pojo.Field s = given.get(f.name());
      if (s == null) {
        if (!f.nullable()) {
          throw new SchemaMismatchException(
              "the merge-insert source lacks column '" + f.name() + "', which is non-nullable in the table"
                  + " (expected " + describe(f.toArrow()) + "); only nullable columns may be left out");
        }
        continue;
      }
      String problem = typeProblem(f.name(), f.toArrow(), s);
      if (problem != null) {
        throw new SchemaMismatchException("the merge-insert source does not match the table: " + problem
            + ". Cast the source column to the table's type");
      }
    }
    for (Field k : keyFields) {
      if (!given.containsKey(topLevel(table, k).name())) {
        throw new SchemaMismatchException(
            "the merge-insert source lacks key column '" + table.pathOf(k.id()) + "' (expected " + k.type() + ")");
      }
    }
  }

  private static String typeProblem(String path, org.apache.arrow.vector.types.pojo.Field want,
      org.apache.arrow.vector.types.pojo.Field got) {
    if (!want.getType().equals(got.getType()) || want.getChildren().size() != got.getChildren().size()) {
      return "column '" + path + "': expected " + describe(want) + ", found " + describe(got);
    }
    for (int i = 0; i < want.getChildren().size(); i++) {
      org.apache.arrow.vector.types.pojo.Field wc = want.getChildren().get(i);
      org.apache.arrow.vector.types.pojo.Field gc = got.getChildren().get(i);
      boolean named = !(want.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Struct)
          || wc.getName().equals(gc.getName());
      if (!named) {
        return "column '" + path + "': expected " + describe(want) + ", found " + describe(got);
      }
      String p = typeProblem(path + "." + wc.getName(), wc, gc);
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  private static String describe(org.apache.arrow.vector.types.pojo.Field f) {
    if (f.getChildren().isEmpty()) {
      return f.getType().toString();
    }
    List<String> children = new ArrayList<>();
    f.getChildren().forEach(c -> children.add(c.getName() + ": " + describe(c)));
    return f.getType() + "<" + String.join(", ", children) + ">";
  }

  private static Field topLevel(Schema table, Field f) {
    Field x = f;
    while (x.parentId() >= 0) {
      x = table.field(x.parentId());
    }
    return x;
  }

  private static List<String> keyPaths(Schema table, List<Field> keyFields) {
    return keyFields.stream().map(f -> table.pathOf(f.id())).toList();
  }

  /** Names from the top-level column down to {@code f}. */
  private static List<String> names(Schema table, Field f) {
    List<String> out = new ArrayList<>();
    for (Field x = f; x != null; x = x.parentId() < 0 ? null : table.field(x.parentId())) {
      out.add(0, x.name());
    }
    return out;
  }

  /** The vectors from the top-level column down to {@code f} in {@code root}; null when the root lacks it. */
  private static FieldVector[] chain(VectorSchemaRoot root, Schema table, Field f) {
    List<String> names = names(table, f);
    FieldVector[] out = new FieldVector[names.size()];
    FieldVector v = root.getSchema().getFields().stream().anyMatch(x -> x.getName().equals(names.get(0)))
        ? root.getVector(names.get(0)) : null;
    for (int i = 0; v != null; i++) {
      out[i] = v;
      if (i + 1 == names.size()) {
        return out;
      }
      v = v instanceof StructVector s ? (FieldVector) s.getChild(names.get(i + 1)) : null;
    }
    return null;
  }

  private static List<FieldVector[]> chains(VectorSchemaRoot root, Schema table, List<Field> fields) {
    List<FieldVector[]> out = new ArrayList<>();
    fields.forEach(f -> out.add(chain(root, table, f)));
    return out;
  }

  private static FieldVector last(FieldVector[] chain) {
    return chain[chain.length - 1];
  }

  private static boolean isNull(FieldVector[] chain, int row) {
    for (FieldVector v : chain) {
      if (v.isNull(row)) {
        return true;
      }
    }
    return false;
  }

  /** The encoded key of {@code row}; null when a key column is null there. */
  private static byte[] key(List<FieldVector[]> chains, int row) {
    List<StatValue> tuple = new ArrayList<>(chains.size());
    for (FieldVector[] c : chains) {
      if (isNull(c, row)) {
        return null;
      }
      tuple.add(CellValues.of(c[c.length - 1], row));
    }
    return MergeKeys.encode(tuple);
  }

  // ------------------------------------------------------------------ conditions

  /** A condition's columns, each under an alias, and the condition over the aliases. */
  private record Condition(Predicate renamed, List<Field> targetFields, List<String> targetAliases,
      List<Field> sourceFields, List<String> sourceAliases) {
    org.apache.arrow.vector.types.pojo.Schema arrow() {
      List<org.apache.arrow.vector.types.pojo.Field> fields = new ArrayList<>();
      for (int i = 0; i < targetFields.size(); i++) {
        fields.add(renamed(targetFields.get(i).toArrow(), targetAliases.get(i)));
      }
      for (int i = 0; i < sourceFields.size(); i++) {
        fields.add(renamed(sourceFields.get(i).toArrow(), sourceAliases.get(i)));
      }
      return new org.apache.arrow.vector.types.pojo.Schema(fields);
    }

    private static org.apache.arrow.vector.types.pojo.Field renamed(org.apache.arrow.vector.types.pojo.Field f,
        String name) {
      return new org.apache.arrow.vector.types.pojo.Field(name,
          new FieldType(true, f.getType(), f.getDictionary(), f.getMetadata()), f.getChildren());
    }
  }

  private Condition condition(Predicate p, boolean sourceAllowed, String clause) {
    Map<String, String> aliases = new LinkedHashMap<>();
    List<Field> targetFields = new ArrayList<>();
    List<String> targetAliases = new ArrayList<>();
    List<Field> sourceFields = new ArrayList<>();
    List<String> sourceAliases = new ArrayList<>();
    for (String column : p.columns()) {
      boolean target = column.startsWith(TARGET);
      if (!target && !(sourceAllowed && column.startsWith(SOURCE))) {
        throw new InvalidArgumentException(
            "the " + clause + " condition names column '" + column + "'; name columns "
                + (sourceAllowed ? "'target.<column>' (the table's row) or 'source.<column>' (the source's row)"
                    : "'target.<column>' (a table row no source row matched)"));
      }
      String path = column.substring(target ? TARGET.length() : SOURCE.length());
      Field f = table.findField(path).orElseThrow(() -> new InvalidArgumentException(
          "the " + clause + " condition names column '" + column + "', but the table has no column '" + path + "'"));
      if (f.isStruct() || !table.atomicFields().contains(f)) {
        throw new InvalidArgumentException(
            "the " + clause + " condition names column '" + column + "', a struct or a member of a list or map;"
                + " conditions compare scalar columns and struct members");
      }
      String alias = "c" + aliases.size();
      aliases.put(column, alias);
      (target ? targetFields : sourceFields).add(f);
      (target ? targetAliases : sourceAliases).add(alias);
    }
    Predicate renamed = rename(p, c -> aliases.get(c));
    Condition cond = new Condition(renamed, targetFields, targetAliases, sourceFields, sourceAliases);
    PredicateEvaluator.bind(renamed, cond.arrow()); // a type mismatch fails before anything is read
    return cond;
  }

  /** {@code p} with every column renamed. */
  static Predicate rename(Predicate p, Function<String, String> name) {
    if (p instanceof Predicate.Comparison c) {
      return new Predicate.Comparison(name.apply(c.column()), c.op(), c.value());
    } else if (p instanceof Predicate.ColumnComparison c) {
      return new Predicate.ColumnComparison(name.apply(c.left()), c.op(), name.apply(c.right()));
    } else if (p instanceof Predicate.In in) {
      return new Predicate.In(name.apply(in.column()), in.values());
    } else if (p instanceof Predicate.IsNull n) {
      return new Predicate.IsNull(name.apply(n.column()));
    } else if (p instanceof Predicate.Not n) {
      return new Predicate.Not(rename(n.child(), name));
    } else if (p instanceof Predicate.And a) {
      return new Predicate.And(a.children().stream().map(c -> rename(c, name)).toList());
    } else if (p instanceof Predicate.Or o) {
      return new Predicate.Or(o.children().stream().map(c -> rename(c, name)).toList());
    }
    return p;
  }

  /**
   * The rows among {@code pairs} (target row in {@code batch}, source row) where the condition is true.
   */
  private BitSet evaluate(Condition cond, PredicateEvaluator evaluator, VectorSchemaRoot batch, Source source,
      int[] targetRows, int[] sourceRows) {
    try (VectorSchemaRoot joined = VectorSchemaRoot.create(cond.arrow(), allocator)) {
      int n = targetRows.length;
      for (int i = 0; i < cond.targetFields().size(); i++) {
        FieldVector[] from = chain(batch, table, cond.targetFields().get(i));
        FieldVector to = joined.getVector(cond.targetAliases().get(i));
        to.allocateNew();
        for (int r = 0; r < n; r++) {
          if (!isNull(from, targetRows[r])) {
            to.copyFromSafe(targetRows[r], r, from[from.length - 1]);
          }
        }
        to.setValueCount(n);
      }
      for (int i = 0; i < cond.sourceFields().size(); i++) {
        Field f = cond.sourceFields().get(i);
        FieldVector to = joined.getVector(cond.sourceAliases().get(i));
        to.allocateNew();
        for (int r = 0; r < n; r++) {
          int b = source.batchOf(sourceRows[r]);
          FieldVector[] from = source.chain(b, table, f);
          int row = sourceRows[r] - source.starts[b];
          if (from != null && !isNull(from, row)) {
            to.copyFromSafe(row, r, from[from.length - 1]);
          }
        }
        to.setValueCount(n);
      }
      joined.setRowCount(n);
      return evaluator.evaluate(joined);
    }
  }

  // ------------------------------------------------------------------ running

  /** One matched target row to update: its address, its source row, its structs' validity (overlay order). */
  private record Match(long address, int sourceRow, boolean[] structValid) {}

  /**
   * Joins, writes the files and returns the operation.
   *
   * @throws MatchedRowException under {@link Matched#FAIL} when a key matches
   * @throws SchemaMismatchException if the source no longer fits the table, or holds a null for a non-nullable
   *     column
   */
  public Prepared run(Source source, List<String> keyColumns, Clauses clauses) {
    List<Field> keys = keyFields(table, keyColumns);
    checkSchema(source.schema, table, keys);
    Set<Integer> keyIds = new TreeSet<>();
    keys.forEach(k -> keyIds.add(k.id()));
    Optional<Condition> update = clauses.matched() == Matched.UPDATE_ALL
        ? clauses.matchedCondition().map(p -> condition(p, true, "when-matched")) : Optional.empty();
    Optional<Condition> delete = clauses.bySource() == BySource.DELETE
        ? clauses.bySourceCondition().map(p -> condition(p, false, "when-not-matched-by-source")) : Optional.empty();

    // Cells a matched row gets: every source column's atomic fields but the keys.
    Set<String> present = new java.util.HashSet<>();
    source.schema.getFields().forEach(f -> present.add(f.getName()));
    Set<Integer> updated = new TreeSet<>();
    for (Field f : table.atomicFields()) {
      if (present.contains(topLevel(table, f).name()) && !keyIds.contains(f.id())) {
        updated.add(f.id());
      }
    }
    Schema overlaySchema = updated.isEmpty() ? null : table.project(updated);
    List<Field> overlayStructs = overlaySchema == null ? List.of()
        : overlaySchema.allFields().stream().filter(Field::isStruct).toList();

    Set<Integer> readIds = new TreeSet<>(keyIds);
    update.ifPresent(c -> c.targetFields().forEach(f -> readIds.add(f.id())));
    update.ifPresent(c -> c.sourceFields().forEach(f -> readIds.add(f.id())));
    delete.ifPresent(c -> c.targetFields().forEach(f -> readIds.add(f.id())));
    Set<Integer> scanIds = new TreeSet<>(readIds);
    if (clauses.matched() == Matched.UPDATE_ALL && overlaySchema != null) {
      // Nested cells keep their structs' current validity (docs/format.md §5): read it with them.
      overlaySchema.atomicFields().stream().filter(f -> f.parentId() >= 0).forEach(f -> scanIds.add(f.id()));
    }
    Schema scanSchema = table.project(scanIds);

    // Fragments to scan: every one when rows not matched by the source are deleted; otherwise only those
    // whose key statistics may hold a source key.
    boolean scanAll = clauses.bySource() == BySource.DELETE;
    List<byte[]> sourceKeys = new ArrayList<>();
    for (byte[] k : source.keys) {
      if (k != null) {
        sourceKeys.add(k);
      }
    }
    MergeKeys probe = scanAll || sourceKeys.isEmpty() ? null : MergeKeys.of(sourceKeys);
    List<Fragment> scanned = new ArrayList<>();
    for (Fragment f : base.fragments()) {
      if (f.liveRows() == 0) {
        continue;
      }
      if (scanAll || (probe != null && mayHold(f, keys, probe))) {
        scanned.add(f);
      }
    }
    TableIo readIo = counters.records() ? io.withStore(new MeteringObjectStore(io.store(), counters)) : io;
    counters.fragmentsConsidered(base.fragments().size());
    counters.fragmentsPruned(base.fragments().size() - scanned.size());
    // Of those, a scalar index on a key column reads only the rows that may hold a source key (never when rows
    // not matched by the source are deleted: every row is read then). Fragments changed since a segment covered
    // them are not answered and are read whole, as are those whose segment would cost more bytes to ask than
    // their key column to read; the match below is exact on every row read either way.
    KeyCandidates byIndex = KeyCandidates.NONE;
    if (useIndices && !scanAll && !scanned.isEmpty() && !base.indices().isEmpty()) {
      List<List<StatValue>> decoded = new ArrayList<>(sourceKeys.size());
      sourceKeys.forEach(k -> decoded.add(MergeKeys.decode(k)));
      byIndex = KeyCandidates.of(readIo, base, keys, decoded, scanned, alwaysUseIndices);
    }
    List<FragmentRange> ranges = new ArrayList<>();
    for (Fragment f : scanned) {
      Optional<RoaringBitmap> hits = byIndex.candidates(f.id());
      if (hits.isEmpty()) {
        counters.fragmentsScannedWithoutIndex(byIndex.indexed() ? 1 : 0);
        ranges.add(FragmentRange.whole(f));
      } else {
        counters.fragmentsAnsweredByIndex(1);
        if (hits.get().isEmpty()) {
          counters.fragmentsPruned(1); // no row of it holds a source key
        } else {
          ranges.add(FragmentRange.whole(f).select(hits.get()));
        }
      }
    }

    BitSet matchedSource = new BitSet(source.rows);
    Set<Long> readFragments = new TreeSet<>();
    Map<Long, List<Match>> matches = new TreeMap<>();
    Map<Long, RoaringBitmap> deletions = new TreeMap<>();
    long updatedRows = 0;
    PredicateEvaluator updateEval = update.map(c -> PredicateEvaluator.bind(c.renamed(), c.arrow())).orElse(null);
    PredicateEvaluator deleteEval = null;
    if (!ranges.isEmpty() && (clauses.matched() != Matched.DO_NOTHING || clauses.bySource() == BySource.DELETE
        || clauses.notMatched() == NotMatched.INSERT_ALL)) {
      ScanSpec spec = ScanSpec.of(table, scanSchema, true, ScanSpec.DEFAULT_BATCH_SIZE);
      try (ArrowReader reader = new ScanReader(readIo, spec, ranges, allocator, null, counters)) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot batch = reader.getVectorSchemaRoot();
          UInt8Vector addresses = (UInt8Vector) batch.getVector(RowAddress.COLUMN);
          List<FieldVector[]> keyChains = chains(batch, table, keys);
          int n = batch.getRowCount();
          int[] pendingTarget = new int[n];
          int[] pendingSource = new int[n];
          int pending = 0;
          BitSet unmatched = new BitSet(n);
          int[] found = new int[n];
          source.lookupAll(keyChains, n, found);
          for (int r = 0; r < n; r++) {
            int src = found[r];
            if (src < 0) {
              unmatched.set(r);
              continue;
            }
            long address = addresses.get(r);
            readFragments.add(RowAddress.fragmentId(address));
            matchedSource.set(src);
            if (clauses.matched() == Matched.FAIL) {
              String described = MergeKeys.describe(key(keyChains, r));
              throw new MatchedRowException(
                  "the merge-insert source row " + src + " has key " + keyPaths(table, keys) + " = " + described
                      + ", which the table already holds (row address " + address + " at version " + base.version()
                      + "), and the merge says to fail when a key matches. Nothing was committed", described);
            }
            if (clauses.matched() == Matched.UPDATE_ALL) {
              pendingTarget[pending] = r;
              pendingSource[pending] = src;
              pending++;
            }
          }
          if (pending > 0) {
            int[] t = java.util.Arrays.copyOf(pendingTarget, pending);
            int[] s = java.util.Arrays.copyOf(pendingSource, pending);
            BitSet pass = updateEval == null ? null : evaluate(update.get(), updateEval, batch, source, t, s);
            List<FieldVector[]> structChains = chains(batch, table, overlayStructs);
            for (int i = 0; i < pending; i++) {
              if (pass != null && !pass.get(i)) {
                continue;
              }
              if (overlaySchema == null) {
                continue; // the source has no non-key column: nothing to set
              }
              updatedRows++;
              boolean[] valid = new boolean[overlayStructs.size()];
              for (int k = 0; k < valid.length; k++) {
                valid[k] = !isNull(structChains.get(k), t[i]);
              }
              long address = addresses.get(t[i]);
              matches.computeIfAbsent(RowAddress.fragmentId(address), x -> new ArrayList<>())
                  .add(new Match(address, s[i], valid));
            }
          }
          if (clauses.bySource() == BySource.DELETE && !unmatched.isEmpty()) {
            if (delete.isPresent()) {
              if (deleteEval == null) {
                deleteEval = PredicateEvaluator.bind(rename(clauses.bySourceCondition().get(),
                    col -> col.substring(TARGET.length())), batch.getSchema());
              }
              unmatched.and(deleteEval.evaluate(batch));
            }
            for (int r = unmatched.nextSetBit(0); r >= 0; r = unmatched.nextSetBit(r + 1)) {
              long address = addresses.get(r);
              deletions.computeIfAbsent(RowAddress.fragmentId(address), x -> new RoaringBitmap())
                  .add((int) RowAddress.offset(address));
            }
          }
        }
      } catch (IOException e) {
        throw new StoreException("could not scan " + io.location() + " for the merge-insert keys: " + e.getMessage(), e);
      }
    }
    if (scanAll) {
      scanned.forEach(f -> readFragments.add(f.id()));
    }

    // Inserted rows: source rows no live target row matched (null keys included: they never match).
    List<Integer> insertRows = new ArrayList<>();
    List<byte[]> insertedKeys = new ArrayList<>();
    if (clauses.notMatched() == NotMatched.INSERT_ALL) {
      for (int r = matchedSource.nextClearBit(0); r < source.rows; r = matchedSource.nextClearBit(r + 1)) {
        insertRows.add(r);
        if (source.keys[r] != null) {
          insertedKeys.add(source.keys[r]);
        }
      }
    }

    List<Operation.FragmentOverlays> overlays = writeOverlays(source, overlaySchema, overlayStructs, matches);
    List<Fragment> inserted = insertRows.isEmpty() ? List.of() : writeInserts(source, insertRows);
    Deleter deleter = new Deleter(io, base, allocator);
    String description = clauses.describe(keyPaths(table, keys));
    List<Operation.FragmentDeletion> deleted = deleter.write(deletions, readIds, description)
        .map(Operation.Delete::deletions).orElse(List.of());
    long deletedRows = 0;
    for (RoaringBitmap b : deletions.values()) {
      deletedRows += b.getLongCardinality();
    }
    if (overlays.isEmpty() && inserted.isEmpty() && deleted.isEmpty()) {
      return new Prepared(null, readIds, 0, updatedRows, 0);
    }
    List<Integer> keyList = keys.stream().map(Field::id).toList();
    Operation.MergeInsert op = new Operation.MergeInsert(keyList, deleted, overlays, inserted, readIds, readFragments,
        MergeKeys.of(insertedKeys), clauses.bySource() == BySource.DELETE, description);
    return new Prepared(op, readIds, insertRows.size(), updatedRows, deletedRows);
  }

  /** Whether {@code f}'s key bounds (base file and overlays) may hold one of the keys. */
  private boolean mayHold(Fragment f, List<Field> keys, MergeKeys probe) {
    List<Optional<StatValue>> lows = new ArrayList<>();
    List<Optional<StatValue>> highs = new ArrayList<>();
    for (Field k : keys) {
      FieldBounds b = FragmentBounds.of(f, table, k.id());
      if (!b.mayHaveValues()) {
        return false; // all null there: a null key never matches
      }
      lows.add(b.lower());
      highs.add(b.upper());
    }
    return probe.mayBeWithin(lows, highs);
  }

  private List<Operation.FragmentOverlays> writeOverlays(Source source, Schema overlaySchema,
      List<Field> overlayStructs, Map<Long, List<Match>> matches) {
    List<Operation.FragmentOverlays> out = new ArrayList<>();
    if (overlaySchema == null) {
      return out;
    }
    List<Integer> overlayFieldIds = overlaySchema.atomicFields().stream().map(Field::id).toList();
    for (Map.Entry<Long, List<Match>> e : matches.entrySet()) {
      List<Match> rows = new ArrayList<>(e.getValue());
      rows.sort(java.util.Comparator.comparingLong(Match::address));
      DataFileWriter writer = new DataFileWriter(io.store(), FragmentWriter.newDataFilePath(), overlaySchema.toArrow(),
          allocator, rowsPerBatch, CompressionConfig.of(base.config()).forFile(overlaySchema));
      RoaringBitmap coverage = new RoaringBitmap();
      try {
        for (int start = 0; start < rows.size(); start += rowsPerBatch) {
          List<Match> chunk = rows.subList(start, Math.min(rows.size(), start + rowsPerBatch));
          try (VectorSchemaRoot batch = overlayBatch(source, overlaySchema, overlayStructs, chunk)) {
            writer.write(batch);
          }
          chunk.forEach(m -> coverage.add((int) RowAddress.offset(m.address())));
        }
        WrittenFile file = writer.finish();
        DataFile dataFile = file.toDataFile(overlayFieldIds);
        out.add(new Operation.FragmentOverlays(e.getKey(),
            List.of(new Overlay(dataFile, new Coverage.Shared(coverage.toMutableRoaringBitmap()), 0))));
      } catch (RuntimeException ex) {
        writer.abort();
        throw ex;
      }
    }
    return out;
  }

  private VectorSchemaRoot overlayBatch(Source source, Schema overlaySchema, List<Field> overlayStructs,
      List<Match> rows) {
    VectorSchemaRoot batch = VectorSchemaRoot.create(overlaySchema.toArrow(), allocator);
    try {
      Map<Integer, FieldVector> targets = Updater.byId(overlaySchema, batch);
      for (Field f : overlaySchema.atomicFields()) {
        FieldVector to = targets.get(f.id());
        to.allocateNew();
        boolean required = !ManifestBuilder.nullableFromRoot(table, table.field(f.id()));
        for (int i = 0; i < rows.size(); i++) {
          int src = rows.get(i).sourceRow();
          int b = source.batchOf(src);
          int row = src - source.starts[b];
          FieldVector[] from = source.chain(b, table, table.field(f.id()));
          if (from == null || isNull(from, row)) {
            if (required) {
              throw nullIn(f, src);
            }
            continue;
          }
          to.copyFromSafe(row, i, from[from.length - 1]);
        }
        to.setValueCount(rows.size());
      }
      for (int k = 0; k < overlayStructs.size(); k++) {
        StructVector struct = (StructVector) targets.get(overlayStructs.get(k).id());
        for (int i = 0; i < rows.size(); i++) {
          if (rows.get(i).structValid()[k]) {
            struct.setIndexDefined(i);
          } else {
            struct.setNull(i);
          }
        }
      }
      batch.setRowCount(rows.size());
      return batch;
    } catch (RuntimeException e) {
      batch.close();
      throw e;
    }
  }

  private SchemaMismatchException nullIn(Field f, int sourceRow) {
    return new SchemaMismatchException(
        "the merge-insert source holds a null in non-nullable column '" + table.pathOf(f.id()) + "' (source row "
            + sourceRow + "); nothing was committed");
  }

  private List<Fragment> writeInserts(Source source, List<Integer> rows) {
    org.apache.arrow.vector.types.pojo.Schema arrow = table.toArrow();
    List<VectorSchemaRoot> batches = new ArrayList<>();
    try {
      for (int start = 0; start < rows.size(); start += rowsPerBatch) {
        List<Integer> chunk = rows.subList(start, Math.min(rows.size(), start + rowsPerBatch));
        VectorSchemaRoot batch = VectorSchemaRoot.create(arrow, allocator);
        batches.add(batch);
        for (Field f : table.fields()) {
          FieldVector to = batch.getVector(f.name());
          to.allocateNew();
          for (int i = 0; i < chunk.size(); i++) {
            int src = chunk.get(i);
            int b = source.batchOf(src);
            int row = src - source.starts[b];
            VectorSchemaRoot in = source.batches.get(b);
            FieldVector from = in.getSchema().getFields().stream().anyMatch(x -> x.getName().equals(f.name()))
                ? in.getVector(f.name()) : null;
            if (from == null || from.isNull(row)) {
              if (!f.nullable()) {
                throw nullIn(f, src);
              }
              continue;
            }
            to.copyFromSafe(row, i, from);
          }
          to.setValueCount(chunk.size());
        }
        batch.setRowCount(chunk.size());
      }
      return writers.create(io, table, base.config()).withoutRowsDigest().write(batches.iterator());
    } finally {
      batches.forEach(VectorSchemaRoot::close);
    }
  }
}
