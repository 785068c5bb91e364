package io.quiver.flink.source;

import io.quiver.predicate.Predicate;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Predicate} as a serializable tree, so the source (shipped by Java serialization in the job graph)
 * carries its filter. The literals are the predicate's own (Java's number, string, byte array and time types,
 * all serializable).
 */
final class Filters {
  private Filters() {}

  /** One node of a predicate: its kind and whatever that kind holds. */
  record Node(String kind, String column, Predicate.Op op, Serializable value, ArrayList<Serializable> values,
      ArrayList<Node> children) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  static Node encode(Predicate p) {
    if (p instanceof Predicate.Comparison c) {
      return new Node("cmp", c.column(), c.op(), literal(c.value()), null, null);
    } else if (p instanceof Predicate.In in) {
      ArrayList<Serializable> values = new ArrayList<>();
      for (Object v : in.values()) {
        values.add(literal(v));
      }
      return new Node("in", in.column(), null, null, values, null);
    } else if (p instanceof Predicate.IsNull n) {
      return new Node("null", n.column(), null, null, null, null);
    } else if (p instanceof Predicate.Not n) {
      return new Node("not", null, null, null, null, children(List.of(n.child())));
    } else if (p instanceof Predicate.And a) {
      return new Node("and", null, null, null, null, children(a.children()));
    } else if (p instanceof Predicate.Or o) {
      return new Node("or", null, null, null, null, children(o.children()));
    } else if (p instanceof Predicate.ColumnComparison c) {
      return new Node("cols", c.left(), c.op(), c.right(), null, null);
    } else if (p instanceof Predicate.True) {
      return new Node("true", null, null, null, null, null);
    }
    // Never widen a filter silently: a kind this encoding does not know would read every row.
    throw new IllegalStateException("the Flink source cannot ship a " + p.getClass().getSimpleName()
        + " predicate; this is a bug in Quiver, please report it");
  }

  static Predicate decode(Node n) {
    return switch (n.kind()) {
      case "cmp" -> new Predicate.Comparison(n.column(), n.op(), n.value());
      case "in" -> new Predicate.In(n.column(), new ArrayList<>(n.values()));
      case "null" -> new Predicate.IsNull(n.column());
      case "not" -> new Predicate.Not(decode(n.children().get(0)));
      case "and" -> new Predicate.And(n.children().stream().map(Filters::decode).toList());
      case "or" -> new Predicate.Or(n.children().stream().map(Filters::decode).toList());
      case "cols" -> new Predicate.ColumnComparison(n.column(), n.op(), (String) n.value());
      case "true" -> Predicate.TRUE;
      default -> throw new IllegalStateException("unknown filter node '" + n.kind() + "' in a serialized Quiver"
          + " Flink source; this is a bug in Quiver, please report it");
    };
  }

  private static ArrayList<Node> children(List<Predicate> children) {
    ArrayList<Node> out = new ArrayList<>();
    for (Predicate c : children) {
      out.add(encode(c));
    }
    return out;
  }

  private static Serializable literal(Object value) {
    if (value instanceof Serializable s) {
      return s;
    }
    throw new io.quiver.exceptions.InvalidArgumentException("the filter's literal " + value + " ("
        + value.getClass().getName() + ") is not serializable, so a Flink job cannot ship it; use one of the"
        + " literal types Predicate documents");
  }
}
