package io.quiver.flink.table;

import io.quiver.predicate.Predicate;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Flink SQL filter expressions as Quiver {@link Predicate}s, where they have one: comparisons of a column
 * (or a struct member, {@code s.x}) with a literal, {@code IN} lists, {@code IS [NOT] NULL}, {@code IS
 * [NOT] TRUE/FALSE} of a boolean column, and {@code NOT}, {@code AND}, {@code OR} of those. Anything else
 * (functions, casts, comparisons of two columns, {@code LIKE}) has none: the planner keeps evaluating it.
 * Literals become the Java value of the column's type, as Quiver's predicates take them.
 */
final class SqlFilters {
  private SqlFilters() {}

  /** The predicate of {@code e} over rows of {@code row}, or empty when Quiver cannot evaluate it. */
  static Optional<Predicate> convert(ResolvedExpression e, RowType row) {
    if (!(e instanceof CallExpression call)) {
      if (e instanceof FieldReferenceExpression f && isBoolean(f, row)) {
        return Optional.of(Predicate.eq(f.getName(), true));
      }
      return Optional.empty();
    }
    FunctionDefinition fn = call.getFunctionDefinition();
    List<ResolvedExpression> args = call.getResolvedChildren();
    if (fn == BuiltInFunctionDefinitions.AND || fn == BuiltInFunctionDefinitions.OR) {
      List<Predicate> children = new ArrayList<>();
      for (ResolvedExpression a : args) {
        Optional<Predicate> c = convert(a, row);
        if (c.isEmpty()) {
          return Optional.empty();
        }
        children.add(c.get());
      }
      return Optional.of(fn == BuiltInFunctionDefinitions.AND ? Predicate.and(children) : Predicate.or(children));
    }
    if (fn == BuiltInFunctionDefinitions.NOT) {
      return convert(args.get(0), row).map(Predicate::not);
    }
    if (fn == BuiltInFunctionDefinitions.IS_NULL || fn == BuiltInFunctionDefinitions.IS_NOT_NULL) {
      Optional<Column> c = column(args.get(0), row);
      return c.map(col -> fn == BuiltInFunctionDefinitions.IS_NULL ? Predicate.isNull(col.path)
          : Predicate.isNotNull(col.path));
    }
    if (fn == BuiltInFunctionDefinitions.IS_TRUE || fn == BuiltInFunctionDefinitions.IS_FALSE
        || fn == BuiltInFunctionDefinitions.IS_NOT_TRUE || fn == BuiltInFunctionDefinitions.IS_NOT_FALSE) {
      Optional<Column> c = column(args.get(0), row);
      if (c.isEmpty() || !(c.get().type.getTypeRoot() == org.apache.flink.table.types.logical.LogicalTypeRoot.BOOLEAN)) {
        return Optional.empty();
      }
      String path = c.get().path;
      // IS TRUE is false for null; IS NOT TRUE is true for null.
      return Optional.of(fn == BuiltInFunctionDefinitions.IS_TRUE ? Predicate.eq(path, true)
          : fn == BuiltInFunctionDefinitions.IS_FALSE ? Predicate.eq(path, false)
          : fn == BuiltInFunctionDefinitions.IS_NOT_TRUE ? Predicate.not(Predicate.eq(path, true)) // null -> true
          : Predicate.not(Predicate.eq(path, false)));
    }
    if (fn == BuiltInFunctionDefinitions.IN) {
      Optional<Column> c = column(args.get(0), row);
      if (c.isEmpty()) {
        return Optional.empty();
      }
      List<Object> values = new ArrayList<>();
      for (ResolvedExpression a : args.subList(1, args.size())) {
        Optional<Object> v = literal(a, c.get().type);
        if (v.isEmpty()) {
          return Optional.empty();
        }
        values.add(v.get());
      }
      return Optional.of(Predicate.in(c.get().path, values));
    }
    Optional<Predicate.Op> op = op(fn);
    if (op.isPresent() && args.size() == 2) {
      Optional<Column> left = column(args.get(0), row);
      if (left.isPresent()) {
        return literal(args.get(1), left.get().type).map(v -> Predicate.compare(left.get().path, op.get(), v));
      }
      Optional<Column> right = column(args.get(1), row);
      if (right.isPresent()) { // 5 < x is x > 5
        return literal(args.get(0), right.get().type)
            .map(v -> Predicate.compare(right.get().path, flip(op.get()), v));
      }
    }
    return Optional.empty();
  }

  private static boolean isBoolean(FieldReferenceExpression f, RowType row) {
    int i = row.getFieldIndex(f.getName());
    return i >= 0 && row.getTypeAt(i).getTypeRoot() == org.apache.flink.table.types.logical.LogicalTypeRoot.BOOLEAN;
  }

  private static Optional<Predicate.Op> op(FunctionDefinition fn) {
    if (fn == BuiltInFunctionDefinitions.EQUALS) {
      return Optional.of(Predicate.Op.EQ);
    } else if (fn == BuiltInFunctionDefinitions.NOT_EQUALS) {
      return Optional.of(Predicate.Op.NE);
    } else if (fn == BuiltInFunctionDefinitions.LESS_THAN) {
      return Optional.of(Predicate.Op.LT);
    } else if (fn == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
      return Optional.of(Predicate.Op.LE);
    } else if (fn == BuiltInFunctionDefinitions.GREATER_THAN) {
      return Optional.of(Predicate.Op.GT);
    } else if (fn == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
      return Optional.of(Predicate.Op.GE);
    }
    return Optional.empty();
  }

  private static Predicate.Op flip(Predicate.Op op) {
    return switch (op) {
      case LT -> Predicate.Op.GT;
      case LE -> Predicate.Op.GE;
      case GT -> Predicate.Op.LT;
      case GE -> Predicate.Op.LE;
      default -> op;
    };
  }

  /** A column path and its type in the table's rows. */
  private record Column(String path, LogicalType type) {}

  /** A top-level column, or a struct member reached through field accesses ({@code s.x}). */
  private static Optional<Column> column(ResolvedExpression e, RowType row) {
    if (e instanceof FieldReferenceExpression f) {
      int i = row.getFieldIndex(f.getName());
      return i < 0 ? Optional.empty()
          : Optional.of(new Column(io.quiver.flink.source.ColumnPaths.join(List.of(f.getName())), row.getTypeAt(i)));
    }
    if (e instanceof CallExpression call && call.getFunctionDefinition() == BuiltInFunctionDefinitions.GET
        && call.getResolvedChildren().size() == 2
        && call.getResolvedChildren().get(1) instanceof ValueLiteralExpression name) {
      Optional<Column> parent = column(call.getResolvedChildren().get(0), row);
      Optional<String> member = name.getValueAs(String.class);
      if (parent.isEmpty() || member.isEmpty() || !(parent.get().type instanceof RowType struct)) {
        return Optional.empty();
      }
      int i = struct.getFieldIndex(member.get());
      if (i < 0) {
        return Optional.empty();
      }
      List<String> names = new ArrayList<>(io.quiver.flink.source.ColumnPaths.split(parent.get().path));
      names.add(member.get());
      return Optional.of(new Column(io.quiver.flink.source.ColumnPaths.join(names), struct.getTypeAt(i)));
    }
    return Optional.empty();
  }

  /** The literal {@code e} as the Java value Quiver compares a column of {@code type} with. */
  static Optional<Object> literal(ResolvedExpression e, LogicalType type) {
    if (!(e instanceof ValueLiteralExpression lit) || lit.isNull()) {
      return Optional.empty(); // x = NULL is never true: leave it to the planner
    }
    try {
      return switch (type.getTypeRoot()) {
        case BOOLEAN -> lit.getValueAs(Boolean.class).map(v -> v);
        case TINYINT -> number(lit).map(n -> (Object) n.byteValueExact());
        case SMALLINT -> number(lit).map(n -> (Object) n.shortValueExact());
        case INTEGER -> number(lit).map(n -> (Object) n.intValueExact());
        case BIGINT -> number(lit).map(n -> (Object) n.longValueExact());
        case DECIMAL -> number(lit).map(n -> n);
        case FLOAT -> number(lit).map(n -> (Object) n.floatValue());
        case DOUBLE -> number(lit).map(n -> (Object) n.doubleValue());
        case CHAR, VARCHAR -> lit.getValueAs(String.class).map(v -> v);
        case BINARY, VARBINARY -> lit.getValueAs(byte[].class).map(v -> v);
        case DATE -> lit.getValueAs(LocalDate.class).map(v -> v);
        case TIMESTAMP_WITHOUT_TIME_ZONE -> lit.getValueAs(LocalDateTime.class).map(v -> v);
        case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> lit.getValueAs(Instant.class).map(v -> v);
        default -> Optional.empty();
      };
    } catch (ArithmeticException outOfRange) {
      return Optional.empty(); // e.g. a TINYINT column compared with 1000: the planner decides
    }
  }

  private static Optional<BigDecimal> number(ValueLiteralExpression lit) {
    LogicalType t = lit.getOutputDataType().getLogicalType();
    return switch (t.getTypeRoot()) {
      case TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL -> lit.getValueAs(BigDecimal.class)
          .or(() -> lit.getValueAs(Long.class).map(BigDecimal::valueOf));
      case FLOAT, DOUBLE -> lit.getValueAs(Double.class).map(BigDecimal::valueOf);
      default -> Optional.empty();
    };
  }
}
