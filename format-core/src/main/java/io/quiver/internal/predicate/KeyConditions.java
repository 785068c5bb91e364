package io.quiver.internal.predicate;

import io.quiver.manifest.StatValue;
import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The parts of a filter a scalar index can answer: for each top-level conjunct that constrains one atomic field
 * of a key type ({@code =}, {@code <}, {@code <=}, {@code >}, {@code >=}, {@code IN}, {@code IS NULL}, and
 * {@code OR}s of those on one field), the set of values a row must hold for the conjunct to be true, as
 * intervals of keys compared in the order the {@link PredicateEvaluator} compares values. A row outside the set
 * makes the conjunct false or unknown, so it cannot match the filter: an index may skip it. A row inside the set
 * makes the conjunct true (the intervals are the conjunct's set exactly, compared as the evaluator compares), so an
 * index whose answer for a fragment is its own offsets alone decides the conjunct there (docs/format.md §13.1,
 * "Decided conjuncts"); every other conjunct is still evaluated on every row read.
 */
public final class KeyConditions {
  private KeyConditions() {}

  /** A literal: the sign of a key compared with it, in the evaluator's order. */
  public interface Bound {
    int compareKey(StatValue key);
  }

  /** Keys between two literals; a null bound is unbounded on that side. */
  public record Interval(Bound lower, boolean lowerInclusive, Bound upper, boolean upperInclusive) {
    /** Whether {@code key} lies in the interval. */
    public boolean contains(StatValue key) {
      return !below(key) && !above(key);
    }

    /** Whether {@code key} is below the interval. */
    public boolean below(StatValue key) {
      if (lower == null) {
        return false;
      }
      int c = lower.compareKey(key);
      return lowerInclusive ? c < 0 : c <= 0;
    }

    /** Whether {@code key} is above the interval. */
    public boolean above(StatValue key) {
      if (upper == null) {
        return false;
      }
      int c = upper.compareKey(key);
      return upperInclusive ? c > 0 : c >= 0;
    }
  }

  /**
   * Rows of field {@code fieldId} whose value lies in one of {@code intervals}, plus the null rows if {@code
   * nulls}: exactly the rows for which conjunct number {@code conjunct} of {@link #conjuncts} is true.
   */
  public record Condition(int fieldId, List<Interval> intervals, boolean nulls, int conjunct) {
    public Condition {
      intervals = List.copyOf(intervals);
    }

    /** A condition not tied to a conjunct of a filter (a key lookup's). */
    public Condition(int fieldId, List<Interval> intervals, boolean nulls) {
      this(fieldId, intervals, nulls, -1);
    }

    Condition at(int position) {
      return new Condition(fieldId, intervals, nulls, position);
    }
  }

  /** {@code filter}'s top-level conjuncts: its {@code AND}s flattened, in order (the filter itself if no AND). */
  public static List<Predicate> conjuncts(Predicate filter) {
    List<Predicate> out = new ArrayList<>();
    flatten(filter, out);
    return out;
  }

  private static void flatten(Predicate p, List<Predicate> out) {
    if (p instanceof Predicate.And and) {
      for (Predicate child : and.children()) {
        flatten(child, out);
      }
    } else {
      out.add(p);
    }
  }

  /**
   * The conditions of {@code filter}'s top-level conjuncts ({@link #conjuncts}) that an index of a key-type field
   * can answer, each naming the position of its conjunct.
   */
  public static List<Condition> of(Predicate filter, Schema table) {
    List<Condition> out = new ArrayList<>();
    List<Predicate> conjuncts = conjuncts(filter);
    for (int i = 0; i < conjuncts.size(); i++) {
      int position = i;
      condition(conjuncts.get(i), table).ifPresent(c -> out.add(c.at(position)));
    }
    return out;
  }

  /**
   * The filter left once the conjuncts at {@code decided} positions are known true: the others, in order, as an
   * {@code AND} (one alone as itself), or {@link Predicate#TRUE} when every conjunct is decided.
   */
  public static Predicate residual(Predicate filter, java.util.BitSet decided) {
    List<Predicate> left = new ArrayList<>();
    List<Predicate> conjuncts = conjuncts(filter);
    for (int i = 0; i < conjuncts.size(); i++) {
      if (!decided.get(i)) {
        left.add(conjuncts.get(i));
      }
    }
    return Predicate.and(left);
  }

  private static Optional<Condition> condition(Predicate p, Schema table) {
    if (p instanceof Predicate.Comparison c) {
      if (c.op() == Predicate.Op.NE) {
        return Optional.empty();
      }
      Optional<Field> field = keyField(table, c.column());
      if (field.isEmpty()) {
        return Optional.empty();
      }
      Bound b = bound(c.column(), field.get(), c.value());
      Interval i = switch (c.op()) {
        case EQ -> new Interval(b, true, b, true);
        case LT -> new Interval(null, false, b, false);
        case LE -> new Interval(null, false, b, true);
        case GT -> new Interval(b, false, null, false);
        case GE -> new Interval(b, true, null, false);
        default -> throw new IllegalStateException(c.op().toString());
      };
      return Optional.of(new Condition(field.get().id(), List.of(i), false, -1));
    }
    if (p instanceof Predicate.In in) {
      Optional<Field> field = keyField(table, in.column());
      if (field.isEmpty()) {
        return Optional.empty();
      }
      List<Interval> intervals = new ArrayList<>();
      for (Object v : in.values()) {
        Bound b = bound(in.column(), field.get(), v);
        intervals.add(new Interval(b, true, b, true));
      }
      return Optional.of(new Condition(field.get().id(), intervals, false, -1));
    }
    if (p instanceof Predicate.IsNull n) {
      return keyField(table, n.column()).map(f -> new Condition(f.id(), List.of(), true, -1));
    }
    if (p instanceof Predicate.Or or) {
      List<Interval> intervals = new ArrayList<>();
      boolean nulls = false;
      Integer fieldId = null;
      for (Predicate child : or.children()) {
        Optional<Condition> c = condition(child, table);
        if (c.isEmpty() || (fieldId != null && fieldId != c.get().fieldId())) {
          return Optional.empty();
        }
        fieldId = c.get().fieldId();
        intervals.addAll(c.get().intervals());
        nulls |= c.get().nulls();
      }
      return fieldId == null ? Optional.empty() : Optional.of(new Condition(fieldId, intervals, nulls, -1));
    }
    return Optional.empty();
  }

  private static Optional<Field> keyField(Schema table, String column) {
    return table.findField(column)
        .filter(f -> f.isAtomic() && !f.isStruct() && CellValues.isKeyType(f.type()));
  }

  private static Bound bound(String column, Field field, Object literal) {
    ValueComparator cmp = ValueComparator.of(column, field.toArrow(), literal);
    // compareBound: the sign of the key against the literal.
    return cmp::compareBound;
  }
}
