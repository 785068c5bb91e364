package io.quiver.predicate;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.internal.predicate.Literals;
import io.quiver.internal.predicate.PredicateEvaluator;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A row filter: comparisons of a column with a literal or with another column ({@link #compareColumns}),
 * {@code IN} lists, {@code IS NULL}, combined with
 * {@code NOT}, {@code AND} and {@code OR}, evaluated with SQL's three-valued logic (a comparison with a
 * null value is <em>unknown</em>, and a row matches only when the predicate is <em>true</em>).
 *
 * <p>Columns are named by path: a top-level column ({@code "id"}) or a struct member ({@code "s.x"}); a
 * name containing {@code '.'} or {@code '`'} is written between backticks, as {@link Schema#findField(String)}
 * reads it. A struct member is null when it or any enclosing struct is null.
 *
 * <p>Literals are Java values: {@link Boolean}; {@link Byte}, {@link Short}, {@link Integer}, {@link Long},
 * {@link java.math.BigInteger}; {@link Float}, {@link Double}; {@link java.math.BigDecimal}; {@link String};
 * {@code byte[]}; {@link java.time.LocalDate}; {@link java.time.Instant} and {@link java.time.LocalDateTime}
 * ({@link java.time.OffsetDateTime} and {@link java.time.ZonedDateTime} are taken as their instant). They are
 * checked against the column's type when the predicate is bound to a schema ({@link
 * PredicateEvaluator#bind}); a mismatch, such as comparing a string column with {@code 5}, is an {@link
 * InvalidArgumentException}. A null literal is rejected: use {@link #isNull(String)}.
 *
 * <pre>{@code
 * Predicate p = Predicate.and(Predicate.gt("s.x", 5), Predicate.not(Predicate.isNull("name")));
 * p.toString();   // "s.x > 5 AND name IS NOT NULL"
 * }</pre>
 */
public sealed interface Predicate
    permits Predicate.Comparison, Predicate.ColumnComparison, Predicate.In, Predicate.IsNull, Predicate.Not,
        Predicate.And, Predicate.Or, Predicate.True {

  /** The predicate that every row satisfies. */
  Predicate TRUE = new True();

  /** The predicate that no row satisfies ({@code NOT TRUE}). */
  Predicate FALSE = new Not(TRUE);

  /** Comparison operators. */
  enum Op {
    EQ("="),
    NE("!="),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">=");

    private final String symbol;

    Op(String symbol) {
      this.symbol = symbol;
    }

    /** The operator as SQL writes it. */
    public String symbol() {
      return symbol;
    }

    /** True when a value comparing to the literal as {@code sign} (negative, zero, positive) matches. */
    public boolean test(int sign) {
      switch (this) {
        case EQ:
          return sign == 0;
        case NE:
          return sign != 0;
        case LT:
          return sign < 0;
        case LE:
          return sign <= 0;
        case GT:
          return sign > 0;
        case GE:
          return sign >= 0;
        default:
          throw new IllegalStateException(name());
      }
    }
  }

  // ------------------------------------------------------------------ the nodes

  /** {@code column op literal}. */
  record Comparison(String column, Op op, Object value) implements Predicate {
    public Comparison {
      column = Literals.checkColumn(column);
      Objects.requireNonNull(op, "op");
      value = Literals.normalize(column, value);
    }

    /** The literal (a copy, for {@code byte[]}). */
    @Override
    public Object value() {
      return Literals.copy(value);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Comparison c && column.equals(c.column) && op == c.op && Literals.equal(value, c.value);
    }

    @Override
    public int hashCode() {
      return Objects.hash(column, op, Literals.hash(value));
    }

    @Override
    public String toString() {
      return column + " " + op.symbol() + " " + Literals.format(value);
    }
  }

  /** {@code column IN (literals...)}; an empty list matches no row. */
  record In(String column, List<Object> values) implements Predicate {
    public In {
      column = Literals.checkColumn(column);
      Objects.requireNonNull(values, "values");
      List<Object> copy = new ArrayList<>();
      for (Object v : values) {
        copy.add(Literals.normalize(column, v));
      }
      values = java.util.Collections.unmodifiableList(copy);
    }

    /** The literals (copies, for {@code byte[]}). */
    @Override
    public List<Object> values() {
      return values.stream().map(Literals::copy).toList();
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof In other) || !column.equals(other.column) || values.size() != other.values.size()) {
        return false;
      }
      for (int i = 0; i < values.size(); i++) {
        if (!Literals.equal(values.get(i), other.values.get(i))) {
          return false;
        }
      }
      return true;
    }

    @Override
    public int hashCode() {
      int h = column.hashCode();
      for (Object v : values) {
        h = 31 * h + Literals.hash(v);
      }
      return h;
    }

    @Override
    public String toString() {
      StringBuilder out = new StringBuilder(column).append(" IN (");
      for (int i = 0; i < values.size(); i++) {
        out.append(i == 0 ? "" : ", ").append(Literals.format(values.get(i)));
      }
      return out.append(')').toString();
    }
  }

  /** {@code column IS NULL}: true or false, never unknown. Works on columns of any type. */
  record IsNull(String column) implements Predicate {
    public IsNull {
      column = Literals.checkColumn(column);
    }

    @Override
    public String toString() {
      return column + " IS NULL";
    }
  }

  /** {@code NOT child}; {@code NOT unknown} is unknown. */
  record Not(Predicate child) implements Predicate {
    public Not {
      Objects.requireNonNull(child, "child");
    }

    @Override
    public String toString() {
      if (child instanceof IsNull n) {
        return n.column() + " IS NOT NULL";
      }
      if (child instanceof True) {
        return "FALSE";
      }
      return "NOT (" + child + ")";
    }
  }

  /** Every child is true (false if one is false, else unknown if one is unknown). */
  record And(List<Predicate> children) implements Predicate {
    public And {
      children = List.copyOf(children);
      if (children.size() < 2) {
        throw new InvalidArgumentException("AND needs at least two operands, got " + children.size()
            + "; use Predicate.and(...), which accepts any number");
      }
    }

    @Override
    public String toString() {
      return join(children, " AND ");
    }
  }

  /** Some child is true (unknown if none is true and one is unknown, else false). */
  record Or(List<Predicate> children) implements Predicate {
    public Or {
      children = List.copyOf(children);
      if (children.size() < 2) {
        throw new InvalidArgumentException("OR needs at least two operands, got " + children.size()
            + "; use Predicate.or(...), which accepts any number");
      }
    }

    @Override
    public String toString() {
      return join(children, " OR ");
    }
  }

  /**
   * {@code left op right}: two columns of one row compared (unknown when either is null). Both must be of one
   * type, except that integers of any width and signedness compare with each other, and so do floating-point
   * numbers of any precision (NaN above every number, as in comparisons with literals). Statistics never
   * prune by it, and a scan task cannot carry it. Merge-insert conditions use it with {@code target.} and
   * {@code source.} columns ({@code compareColumns("source.ts", Op.GT, "target.ts")}).
   */
  record ColumnComparison(String left, Op op, String right) implements Predicate {
    public ColumnComparison {
      left = Literals.checkColumn(left);
      Objects.requireNonNull(op, "op");
      right = Literals.checkColumn(right);
    }

    @Override
    public String toString() {
      return left + " " + op.symbol() + " " + right;
    }
  }

  /** The constant {@code TRUE}; use {@link Predicate#TRUE}. */
  record True() implements Predicate {
    @Override
    public String toString() {
      return "TRUE";
    }
  }

  private static String join(List<Predicate> children, String separator) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < children.size(); i++) {
      Predicate c = children.get(i);
      boolean wrap = c instanceof And || c instanceof Or;
      out.append(i == 0 ? "" : separator).append(wrap ? "(" : "").append(c).append(wrap ? ")" : "");
    }
    return out.toString();
  }

  // ------------------------------------------------------------------ factories

  static Predicate eq(String column, Object value) {
    return new Comparison(column, Op.EQ, value);
  }

  static Predicate ne(String column, Object value) {
    return new Comparison(column, Op.NE, value);
  }

  static Predicate lt(String column, Object value) {
    return new Comparison(column, Op.LT, value);
  }

  static Predicate le(String column, Object value) {
    return new Comparison(column, Op.LE, value);
  }

  static Predicate gt(String column, Object value) {
    return new Comparison(column, Op.GT, value);
  }

  static Predicate ge(String column, Object value) {
    return new Comparison(column, Op.GE, value);
  }

  static Predicate compare(String column, Op op, Object value) {
    return new Comparison(column, op, value);
  }

  /** {@code left op right}, two columns compared; see {@link ColumnComparison}. */
  static Predicate compareColumns(String left, Op op, String right) {
    return new ColumnComparison(left, op, right);
  }

  static Predicate in(String column, Object... values) {
    return new In(column, Arrays.asList(values));
  }

  static Predicate in(String column, Collection<?> values) {
    return new In(column, new ArrayList<>(values));
  }

  static Predicate isNull(String column) {
    return new IsNull(column);
  }

  static Predicate isNotNull(String column) {
    return new Not(new IsNull(column));
  }

  static Predicate not(Predicate child) {
    return new Not(child);
  }

  /** All of them; {@link #TRUE} when there are none, the predicate itself when there is one. */
  static Predicate and(Predicate... children) {
    return and(Arrays.asList(children));
  }

  static Predicate and(List<Predicate> children) {
    if (children.isEmpty()) {
      return TRUE;
    }
    return children.size() == 1 ? Objects.requireNonNull(children.get(0)) : new And(children);
  }

  /** Any of them; {@link #FALSE} when there are none, the predicate itself when there is one. */
  static Predicate or(Predicate... children) {
    return or(Arrays.asList(children));
  }

  static Predicate or(List<Predicate> children) {
    if (children.isEmpty()) {
      return FALSE;
    }
    return children.size() == 1 ? Objects.requireNonNull(children.get(0)) : new Or(children);
  }

  static Predicate alwaysTrue() {
    return TRUE;
  }

  // ------------------------------------------------------------------ analysis

  /** The column paths this predicate reads, in the order they first appear. */
  default Set<String> columns() {
    Set<String> out = new LinkedHashSet<>();
    collectColumns(this, out);
    return out;
  }

  private static void collectColumns(Predicate p, Set<String> out) {
    if (p instanceof Comparison c) {
      out.add(c.column());
    } else if (p instanceof ColumnComparison c) {
      out.add(c.left());
      out.add(c.right());
    } else if (p instanceof In in) {
      out.add(in.column());
    } else if (p instanceof IsNull n) {
      out.add(n.column());
    } else if (p instanceof Not n) {
      collectColumns(n.child(), out);
    } else if (p instanceof And a) {
      a.children().forEach(c -> collectColumns(c, out));
    } else if (p instanceof Or o) {
      o.children().forEach(c -> collectColumns(c, out));
    }
  }

  /**
   * Ids of the fields this predicate reads in {@code schema}: each named field, and every descendant of a
   * named struct.
   *
   * @throws InvalidArgumentException if a column is not in the schema, or lies inside a list or map
   */
  default Set<Integer> fieldIds(Schema schema) {
    Set<Integer> ids = new TreeSet<>();
    for (String column : columns()) {
      Field field = resolve(schema, column);
      field.preorder().forEach(f -> ids.add(f.id()));
    }
    return ids;
  }

  /**
   * The field a column path names.
   *
   * @throws InvalidArgumentException if it names none, or one inside a list or map
   */
  private static Field resolve(Schema schema, String column) {
    Optional<Field> found = schema.findField(column);
    if (found.isEmpty()) {
      throw new InvalidArgumentException(
          "no column '" + column + "' in the table; columns are " + addressableColumns(schema));
    }
    Field f = found.get();
    for (int parent = f.parentId(); parent >= 0; parent = schema.field(parent).parentId()) {
      if (!schema.field(parent).isStruct()) {
        throw new InvalidArgumentException(
            "column '" + column + "' lies inside the " + schema.field(parent).type().getTypeID()
                + " column '" + schema.pathOf(parent) + "'; a predicate can only name top-level columns and"
                + " struct members. Columns are " + addressableColumns(schema));
      }
    }
    return f;
  }

  /** Paths of every top-level column and struct member, in schema order. */
  private static List<String> addressableColumns(Schema schema) {
    List<String> out = new ArrayList<>();
    addressable(schema, schema.fields(), out);
    return out;
  }

  private static void addressable(Schema schema, List<Field> level, List<String> out) {
    for (Field f : level) {
      out.add(schema.pathOf(f.id()));
      if (f.isStruct()) {
        addressable(schema, f.children(), out);
      }
    }
  }

  // ------------------------------------------------------------------ evaluation

  /** The rows of {@code batch} for which this predicate is true (binds to the batch's schema). */
  default BitSet evaluate(VectorSchemaRoot batch) {
    return PredicateEvaluator.bind(this, batch.getSchema()).evaluate(batch);
  }
}
