package io.quiver.internal.predicate;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.predicate.Predicate;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A {@link Predicate} bound to an Arrow schema: columns resolved, literals converted to the columns' types.
 * Evaluates batches of that schema (or any schema with the same named columns and types) with SQL's
 * three-valued logic. Immutable and thread-safe; binding once and evaluating many batches avoids repeating
 * the checks.
 */
public final class PredicateEvaluator {
  private final Predicate predicate;
  private final Node root;
  private final List<BoundColumn> columns;

  private PredicateEvaluator(Predicate predicate, Node root, List<BoundColumn> columns) {
    this.predicate = predicate;
    this.root = root;
    this.columns = columns;
  }

  /**
   * Binds {@code predicate} to {@code schema}.
   *
   * @throws InvalidArgumentException if a column is missing, lies inside a list or map, or is compared with a
   *     literal of another type (or is a list, map or struct used as a comparison operand)
   */
  public static PredicateEvaluator bind(Predicate predicate, Schema schema) {
    Map<String, BoundColumn> bound = new HashMap<>();
    Node root = compile(predicate, schema, bound);
    return new PredicateEvaluator(predicate, root, List.copyOf(bound.values()));
  }

  /** The predicate this evaluator applies. */
  public Predicate predicate() {
    return predicate;
  }

  /**
   * The rows of {@code batch} for which the predicate is true (unknown and false rows are not set).
   *
   * @throws InvalidArgumentException if the batch lacks a bound column or holds it with another type
   */
  public BitSet evaluate(VectorSchemaRoot batch) {
    return evaluateThreeValued(batch).trueRows();
  }

  /** Rows where the predicate is true and rows where it is false; the others are unknown. */
  public record Result(BitSet trueRows, BitSet falseRows, int rowCount) {
    /** True when row {@code i} is neither true nor false. */
    public boolean isUnknown(int i) {
      return !trueRows.get(i) && !falseRows.get(i);
    }
  }

  /** Evaluates with the three truth values visible. */
  public Result evaluateThreeValued(VectorSchemaRoot batch) {
    Map<BoundColumn, Resolved> resolved = new HashMap<>();
    for (BoundColumn c : columns) {
      resolved.put(c, c.resolve(batch));
    }
    Batch b = new Batch(batch.getRowCount(), resolved);
    BitSet t = new BitSet(b.rows);
    BitSet f = new BitSet(b.rows);
    root.eval(b, t, f);
    return new Result(t, f, b.rows);
  }

  @Override
  public String toString() {
    return "PredicateEvaluator[" + predicate + "]";
  }

  // ------------------------------------------------------------------ binding

  private static Node compile(Predicate p, Schema schema, Map<String, BoundColumn> bound) {
    if (p instanceof Predicate.True) {
      return (b, t, f) -> t.set(0, b.rows);
    }
    if (p instanceof Predicate.Not n) {
      Node child = compile(n.child(), schema, bound);
      return (b, t, f) -> child.eval(b, f, t);
    }
    if (p instanceof Predicate.And a) {
      List<Node> children = compileAll(a.children(), schema, bound);
      return (b, t, f) -> {
        t.set(0, b.rows);
        for (Node c : children) {
          BitSet ct = new BitSet(b.rows);
          BitSet cf = new BitSet(b.rows);
          c.eval(b, ct, cf);
          t.and(ct);
          f.or(cf);
        }
      };
    }
    if (p instanceof Predicate.Or o) {
      List<Node> children = compileAll(o.children(), schema, bound);
      return (b, t, f) -> {
        f.set(0, b.rows);
        for (Node c : children) {
          BitSet ct = new BitSet(b.rows);
          BitSet cf = new BitSet(b.rows);
          c.eval(b, ct, cf);
          t.or(ct);
          f.and(cf);
        }
      };
    }
    if (p instanceof Predicate.IsNull n) {
      BoundColumn column = column(n.column(), schema, bound);
      return (b, t, f) -> {
        Resolved r = b.columns.get(column);
        for (int i = 0; i < b.rows; i++) {
          (r.isNull(i) ? t : f).set(i);
        }
      };
    }
    if (p instanceof Predicate.Comparison c) {
      BoundColumn column = column(c.column(), schema, bound);
      ValueComparator cmp = ValueComparator.of(c.column(), column.field(), c.value());
      Predicate.Op op = c.op();
      return (b, t, f) -> {
        Resolved r = b.columns.get(column);
        for (int i = 0; i < b.rows; i++) {
          if (!r.isNull(i)) {
            (op.test(cmp.compare(r.vector(), i)) ? t : f).set(i);
          }
        }
      };
    }
    if (p instanceof Predicate.ColumnComparison c) {
      BoundColumn left = column(c.left(), schema, bound);
      BoundColumn right = column(c.right(), schema, bound);
      CellComparator cmp = CellComparator.of(c.left(), left.field(), c.right(), right.field());
      Predicate.Op op = c.op();
      return (b, t, f) -> {
        Resolved l = b.columns.get(left);
        Resolved r = b.columns.get(right);
        for (int i = 0; i < b.rows; i++) {
          if (!l.isNull(i) && !r.isNull(i)) {
            (op.test(cmp.compare(l.vector(), r.vector(), i)) ? t : f).set(i);
          }
        }
      };
    }
    if (p instanceof Predicate.In in) {
      BoundColumn column = column(in.column(), schema, bound);
      List<ValueComparator> cmps = new ArrayList<>();
      for (Object v : in.values()) {
        cmps.add(ValueComparator.of(in.column(), column.field(), v));
      }
      if (cmps.isEmpty()) {
        // Also checks the column's type: an empty list on a list column is as wrong as a full one.
        ValueComparator.checkComparable(in.column(), column.field());
      }
      java.util.Optional<InSet> hashed = InSet.of(column.field(), new ArrayList<>(in.values()));
      if (hashed.isPresent()) {
        InSet set = hashed.get();
        return (b, t, f) -> {
          Resolved r = b.columns.get(column);
          for (int i = 0; i < b.rows; i++) {
            if (!r.isNull(i)) {
              (set.contains(r.vector(), i) ? t : f).set(i);
            }
          }
        };
      }
      return (b, t, f) -> {
        Resolved r = b.columns.get(column);
        for (int i = 0; i < b.rows; i++) {
          if (cmps.isEmpty()) {
            f.set(i);
            continue;
          }
          if (r.isNull(i)) {
            continue;
          }
          boolean match = false;
          for (ValueComparator cmp : cmps) {
            if (cmp.compare(r.vector(), i) == 0) {
              match = true;
              break;
            }
          }
          (match ? t : f).set(i);
        }
      };
    }
    throw new IllegalStateException("unknown predicate " + p);
  }

  private static List<Node> compileAll(List<Predicate> ps, Schema schema, Map<String, BoundColumn> bound) {
    List<Node> out = new ArrayList<>();
    for (Predicate p : ps) {
      out.add(compile(p, schema, bound));
    }
    return out;
  }

  private static BoundColumn column(String path, Schema schema, Map<String, BoundColumn> bound) {
    BoundColumn existing = bound.get(path);
    if (existing != null) {
      return existing;
    }
    List<String> names = ColumnPaths.parse(path)
        .orElseThrow(() -> new InvalidArgumentException(
            "malformed column path '" + path + "'; write names separated by '.', with a name that holds '.' or"
                + " '`' between backticks (`a.b`.c)"));
    List<Field> level = schema.getFields();
    Field found = null;
    for (int i = 0; i < names.size(); i++) {
      found = null;
      for (Field f : level) {
        if (f.getName().equals(names.get(i))) {
          found = f;
          break;
        }
      }
      if (found == null) {
        throw new InvalidArgumentException(
            "no column '" + path + "' in the batch; columns are " + ColumnPaths.addressable(schema));
      }
      if (i < names.size() - 1 && !(found.getType() instanceof ArrowType.Struct)) {
        throw new InvalidArgumentException(
            "column '" + path + "' goes through '" + names.get(i) + "', a " + found.getType().getTypeID()
                + " column; a predicate can only name top-level columns and struct members. Columns are "
                + ColumnPaths.addressable(schema));
      }
      level = found.getChildren();
    }
    BoundColumn column = new BoundColumn(path, names, found);
    bound.put(path, column);
    return column;
  }

  // ------------------------------------------------------------------ evaluation

  private interface Node {
    /** Sets the rows where the node is true in {@code t} and where it is false in {@code f}. */
    void eval(Batch b, BitSet t, BitSet f);
  }

  private record Batch(int rows, Map<BoundColumn, Resolved> columns) {}

  /** A column path resolved against the bound schema. */
  private record BoundColumn(String path, List<String> names, Field field) {
    Resolved resolve(VectorSchemaRoot batch) {
      List<FieldVector> chain = new ArrayList<>();
      FieldVector v = null;
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        if (i == 0) {
          v = batch.getSchema().getFields().stream().anyMatch(f -> f.getName().equals(name)) ? batch.getVector(name)
              : null;
        } else {
          v = v instanceof StructVector s ? s.getChild(name) : null;
        }
        if (v == null) {
          throw new InvalidArgumentException(
              "the batch has no column '" + path + "' (the predicate was bound to a schema that has it); columns are "
                  + ColumnPaths.addressable(batch.getSchema()));
        }
        chain.add(v);
      }
      if (!v.getField().getType().equals(field.getType())) {
        throw new InvalidArgumentException(
            "column '" + path + "' is " + v.getField().getType() + " in the batch but " + field.getType()
                + " in the schema the predicate was bound to; bind it to the batch's schema");
      }
      return new Resolved(v, chain.toArray(new FieldVector[0]));
    }
  }

  /** The column's vector in one batch, with its enclosing structs (a null struct makes its members null). */
  private record Resolved(FieldVector vector, FieldVector[] chain) {
    boolean isNull(int row) {
      for (FieldVector v : chain) {
        if (v.isNull(row)) {
          return true;
        }
      }
      return false;
    }
  }
}
