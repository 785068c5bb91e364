package io.quiver.internal.predicate;

import io.quiver.manifest.FieldBounds;
import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Decides from {@link FieldBounds} whether any row of a set (a fragment, a record batch) can make a filter
 * true, so a scan can skip the set (docs/scan-planning.md, "Pruning"). Conservative, never wrong: it answers
 * "cannot match" only when no row the bounds allow makes the predicate true under the same three-valued logic
 * and the same value order ({@link ValueComparator}) the {@link PredicateEvaluator} applies to the rows.
 *
 * <p>Each node is evaluated to two facts about the set: some row <em>may be true</em>, some row <em>may be
 * false</em> (a row that is unknown is neither). {@code NOT} swaps them, {@code AND} is true only if every
 * child may be true and false if any may be, {@code OR} the dual; a comparison may be true (false) only for a
 * non-null value the bounds admit that compares so; {@code IS NULL} follows the null facts. A field whose
 * bounds are unknown may be anything. Immutable and thread-safe.
 */
public final class StatsPruner {
  private final Node root;
  private final List<Integer> fieldIds;

  private StatsPruner(Node root, List<Integer> fieldIds) {
    this.root = root;
    this.fieldIds = List.copyOf(fieldIds);
  }

  /**
   * The pruner of {@code predicate} over {@code table}'s fields. The predicate must already be valid for the
   * table (a scan's filter is checked when it is set); columns that are not atomic fields (a whole struct under
   * {@code IS NULL}) are treated as unknown.
   */
  public static StatsPruner of(Predicate predicate, Schema table) {
    List<Integer> ids = new ArrayList<>();
    return new StatsPruner(compile(predicate, table, ids), ids);
  }

  /** The atomic field ids whose bounds the decision reads. */
  public List<Integer> fieldIds() {
    return fieldIds;
  }

  /**
   * False only when no row of a set with these bounds can make the predicate true.
   *
   * @param bounds the bounds of a field id over the set (never null; {@link FieldBounds#unknown} when unknown)
   */
  public boolean mayMatch(IntFunction<FieldBounds> bounds) {
    return root.eval(bounds).mayBeTrue();
  }

  private record Facts(boolean mayBeTrue, boolean mayBeFalse) {
    static final Facts ANY = new Facts(true, true);

    Facts not() {
      return new Facts(mayBeFalse, mayBeTrue);
    }
  }

  private interface Node {
    Facts eval(IntFunction<FieldBounds> bounds);
  }

  private static Node compile(Predicate p, Schema table, List<Integer> ids) {
    if (p instanceof Predicate.True) {
      return b -> new Facts(true, false);
    }
    if (p instanceof Predicate.Not n) {
      Node child = compile(n.child(), table, ids);
      return b -> child.eval(b).not();
    }
    if (p instanceof Predicate.And a) {
      List<Node> children = compileAll(a.children(), table, ids);
      return b -> {
        boolean t = true;
        boolean f = false;
        for (Node c : children) {
          Facts x = c.eval(b);
          t &= x.mayBeTrue();
          f |= x.mayBeFalse();
        }
        return new Facts(t, f);
      };
    }
    if (p instanceof Predicate.Or o) {
      List<Node> children = compileAll(o.children(), table, ids);
      return b -> {
        boolean t = false;
        boolean f = true;
        for (Node c : children) {
          Facts x = c.eval(b);
          t |= x.mayBeTrue();
          f &= x.mayBeFalse();
        }
        return new Facts(t, f);
      };
    }
    if (p instanceof Predicate.ColumnComparison) {
      return b -> Facts.ANY; // statistics bound each column alone, not their difference
    }
    if (p instanceof Predicate.IsNull n) {
      Optional<Field> field = atomic(table, n.column());
      if (field.isEmpty()) {
        return b -> Facts.ANY;
      }
      int id = field.get().id();
      ids.add(id);
      return b -> {
        FieldBounds fb = b.apply(id);
        return new Facts(fb.mayHaveNulls(), fb.mayHaveValues());
      };
    }
    if (p instanceof Predicate.Comparison c) {
      Optional<Field> field = atomic(table, c.column());
      if (field.isEmpty()) {
        return b -> Facts.ANY;
      }
      int id = field.get().id();
      ids.add(id);
      ValueComparator cmp = ValueComparator.of(c.column(), field.get().toArrow(), c.value());
      boolean floating = field.get().type() instanceof ArrowType.FloatingPoint;
      Predicate.Op op = c.op();
      return b -> {
        FieldBounds fb = b.apply(id);
        if (!fb.mayHaveValues()) {
          return new Facts(false, false);
        }
        Range r = Range.of(fb, cmp, floating);
        return new Facts(r.mayBe(op), r.mayBe(negate(op)));
      };
    }
    if (p instanceof Predicate.In in) {
      Optional<Field> field = atomic(table, in.column());
      if (in.values().isEmpty()) {
        // The evaluator makes every row (nulls included) false.
        return b -> new Facts(false, true);
      }
      if (field.isEmpty()) {
        return b -> Facts.ANY;
      }
      int id = field.get().id();
      ids.add(id);
      List<ValueComparator> cmps = new ArrayList<>();
      for (Object v : in.values()) {
        cmps.add(ValueComparator.of(in.column(), field.get().toArrow(), v));
      }
      boolean floating = field.get().type() instanceof ArrowType.FloatingPoint;
      return b -> {
        FieldBounds fb = b.apply(id);
        if (!fb.mayHaveValues()) {
          return new Facts(false, false);
        }
        boolean t = false;
        boolean f = true;
        for (ValueComparator cmp : cmps) {
          Range r = Range.of(fb, cmp, floating);
          t |= r.mayBe(Predicate.Op.EQ);
          f &= r.mayBe(Predicate.Op.NE);
        }
        return new Facts(t, f);
      };
    }
    throw new IllegalStateException("unknown predicate " + p);
  }

  private static List<Node> compileAll(List<Predicate> ps, Schema table, List<Integer> ids) {
    List<Node> out = new ArrayList<>();
    for (Predicate p : ps) {
      out.add(compile(p, table, ids));
    }
    return out;
  }

  /** The atomic field a path names (through structs only), or empty. */
  private static Optional<Field> atomic(Schema table, String column) {
    return table.findField(column).filter(f -> !f.isStruct() && f.isAtomic());
  }

  private static Predicate.Op negate(Predicate.Op op) {
    return switch (op) {
      case EQ -> Predicate.Op.NE;
      case NE -> Predicate.Op.EQ;
      case LT -> Predicate.Op.GE;
      case LE -> Predicate.Op.GT;
      case GT -> Predicate.Op.LE;
      case GE -> Predicate.Op.LT;
    };
  }

  /**
   * How the least and greatest possible non-null value compare with the literal: {@code lo} and {@code hi} are
   * signs, {@code Integer.MIN_VALUE} / {@code MAX_VALUE} standing for "below / above everything" (unknown).
   * A floating-point set that may hold NaN has NaN as its greatest value (NaN sorts above every number).
   */
  private record Range(int lo, int hi) {
    static final Range UNKNOWN = new Range(Integer.MIN_VALUE, Integer.MAX_VALUE);

    static Range of(FieldBounds fb, ValueComparator cmp, boolean floating) {
      int lo = Integer.MIN_VALUE;
      int hi = Integer.MAX_VALUE;
      try {
        if (fb.lower().isPresent()) {
          lo = Integer.signum(cmp.compareBound(fb.lower().get()));
        }
        if (floating && fb.mayHaveNan()) {
          hi = cmp.compareNaN();
        } else if (fb.upper().isPresent()) {
          hi = Integer.signum(cmp.compareBound(fb.upper().get()));
        }
      } catch (IllegalArgumentException e) {
        // A bound of another kind than the column stores (hostile or damaged statistics): unknown.
        return UNKNOWN;
      }
      return new Range(lo, hi);
    }

    /** Whether some value in the range may compare with the literal as {@code op} asks. */
    boolean mayBe(Predicate.Op op) {
      return switch (op) {
        case EQ -> lo <= 0 && hi >= 0;
        // Every value equals the literal only when both bounds do (then the set holds that value alone).
        case NE -> !(lo == 0 && hi == 0);
        case LT -> lo < 0;
        case LE -> lo <= 0;
        case GT -> hi > 0;
        case GE -> hi >= 0;
      };
    }
  }
}
