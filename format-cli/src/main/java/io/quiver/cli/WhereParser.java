package io.quiver.cli;

import io.quiver.predicate.Predicate;
import io.quiver.schema.Field;
import io.quiver.schema.Schema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Parses the {@code --where} syntax into a {@link Predicate} by recursive descent:
 *
 * <pre>
 * or      := and ('OR' and)*
 * and     := not ('AND' not)*
 * not     := 'NOT' not | primary
 * primary := '(' or ')' | column ( op literal | 'IS' ['NOT'] 'NULL' | ['NOT'] 'IN' '(' literal (',' literal)* ')' )
 * op      := '=' | '!=' | '&lt;&gt;' | '&lt;' | '&lt;=' | '&gt;' | '&gt;='
 * literal := integer | decimal | 'text' ('' escapes a quote) | TRUE | FALSE
 * column  := name ('.' name)* where a name is [A-Za-z_][A-Za-z0-9_]* or `backticked`
 * </pre>
 *
 * Keywords are case-insensitive. With a schema, literals are converted to the column's type (a quoted
 * date for a date column, an ISO instant for a timestamp); unknown columns and mismatches are errors.
 */
final class WhereParser {
  private final String text;
  private final Schema schema;
  private final List<Token> tokens;
  private int pos;

  private WhereParser(String text, Schema schema) {
    this.text = text;
    this.schema = schema;
    this.tokens = tokenize(text);
  }

  /** Parses {@code text}; {@code schema} may be null (literals then keep their natural Java types). */
  static Predicate parse(String text, Schema schema) {
    if (text == null || text.isBlank()) {
      throw new UserException("--where is empty; write a condition such as \"id > 5 AND name = 'x'\"");
    }
    WhereParser p = new WhereParser(text, schema);
    Predicate result = p.or();
    if (p.peek().kind != Kind.END) {
      throw p.error("expected AND, OR or the end of the condition");
    }
    return result;
  }

  /** Parses one literal (the value of {@code --set col=value}) for a field of {@code schema}. */
  static Object parseValue(String text, String column, Schema schema) {
    WhereParser p = new WhereParser(text, schema);
    Token t = p.peek();
    if (t.kind == Kind.WORD && t.text.equalsIgnoreCase("NULL") && p.tokens.size() == 2) {
      return null;
    }
    Object raw = p.literal();
    if (p.peek().kind != Kind.END) {
      throw p.error("expected a single value (quote text: 'like this')");
    }
    return Literals.convert(raw, column, schema);
  }

  // ------------------------------------------------------------------ grammar

  private Predicate or() {
    List<Predicate> parts = new ArrayList<>();
    parts.add(and());
    while (keyword("OR")) {
      parts.add(and());
    }
    return parts.size() == 1 ? parts.get(0) : Predicate.or(parts);
  }

  private Predicate and() {
    List<Predicate> parts = new ArrayList<>();
    parts.add(not());
    while (keyword("AND")) {
      parts.add(not());
    }
    return parts.size() == 1 ? parts.get(0) : Predicate.and(parts);
  }

  private Predicate not() {
    if (keyword("NOT")) {
      return Predicate.not(not());
    }
    return primary();
  }

  private Predicate primary() {
    if (symbol("(")) {
      Predicate inner = or();
      if (!symbol(")")) {
        throw error("expected ')' to close the '(' ");
      }
      return inner;
    }
    String column = column();
    if (keyword("IS")) {
      boolean negated = keyword("NOT");
      if (!keyword("NULL")) {
        throw error("expected NULL after IS" + (negated ? " NOT" : ""));
      }
      return negated ? Predicate.isNotNull(column) : Predicate.isNull(column);
    }
    boolean notIn = keyword("NOT");
    if (keyword("IN")) {
      if (!symbol("(")) {
        throw error("expected '(' after IN");
      }
      List<Object> values = new ArrayList<>();
      if (!symbol(")")) {
        do {
          values.add(Literals.convert(literal(), column, schema));
        } while (symbol(","));
        if (!symbol(")")) {
          throw error("expected ',' or ')' in the IN list");
        }
      }
      Predicate in = Predicate.in(column, values);
      return notIn ? Predicate.not(in) : in;
    }
    if (notIn) {
      throw error("expected IN after NOT");
    }
    Token t = peek();
    if (t.kind != Kind.OP) {
      throw error("expected a comparison (=, !=, <, <=, >, >=), IS [NOT] NULL or IN after column '" + column + "'");
    }
    pos++;
    Predicate.Op op = switch (t.text) {
      case "=" -> Predicate.Op.EQ;
      case "!=", "<>" -> Predicate.Op.NE;
      case "<" -> Predicate.Op.LT;
      case "<=" -> Predicate.Op.LE;
      case ">" -> Predicate.Op.GT;
      default -> Predicate.Op.GE;
    };
    Token lit = peek();
    if (lit.kind == Kind.WORD && lit.text.equalsIgnoreCase("NULL")) {
      throw error("comparing with NULL is never true; write '" + column + " IS NULL' or 'IS NOT NULL'");
    }
    return Predicate.compare(column, op, Literals.convert(literal(), column, schema));
  }

  private String column() {
    Token t = peek();
    if (t.kind != Kind.WORD && t.kind != Kind.QUOTED_NAME) {
      throw error("expected a column name");
    }
    if (t.kind == Kind.WORD && isKeyword(t.text)) {
      throw error("expected a column name, found keyword " + t.text.toUpperCase(Locale.ROOT)
          + " (write a column named like a keyword between backticks)");
    }
    StringBuilder path = new StringBuilder();
    while (true) {
      Token part = tokens.get(pos++);
      path.append(part.kind == Kind.QUOTED_NAME ? "`" + part.text.replace("`", "``") + "`" : part.text);
      if (!symbol(".")) {
        break;
      }
      path.append('.');
      Token next = peek();
      if (next.kind != Kind.WORD && next.kind != Kind.QUOTED_NAME) {
        throw error("expected a member name after '.'");
      }
    }
    String name = path.toString();
    if (schema != null && schema.findField(name).isEmpty()) {
      throw new UserException("unknown column '" + name + "' in --where; columns are "
          + schema.allFields().stream().map(f -> schema.pathOf(f.id())).toList());
    }
    return name;
  }

  private Object literal() {
    Token t = peek();
    pos++;
    switch (t.kind) {
      case STRING:
        return t.text;
      case NUMBER:
        if (t.text.contains(".") || t.text.contains("e") || t.text.contains("E")) {
          return new BigDecimal(t.text);
        }
        BigInteger big = new BigInteger(t.text);
        return big.bitLength() < 64 ? (Object) big.longValue() : big;
      case WORD:
        if (t.text.equalsIgnoreCase("TRUE")) {
          return Boolean.TRUE;
        }
        if (t.text.equalsIgnoreCase("FALSE")) {
          return Boolean.FALSE;
        }
        pos--;
        throw error("expected a value (a number, 'quoted text', TRUE or FALSE), found " + t.text
            + "; quote text values");
      default:
        pos--;
        throw error("expected a value (a number, 'quoted text', TRUE or FALSE)");
    }
  }

  // ------------------------------------------------------------------ tokens

  private boolean keyword(String word) {
    Token t = peek();
    if (t.kind == Kind.WORD && t.text.equalsIgnoreCase(word)) {
      pos++;
      return true;
    }
    return false;
  }

  private boolean symbol(String s) {
    Token t = peek();
    if (t.kind == Kind.SYMBOL && t.text.equals(s)) {
      pos++;
      return true;
    }
    return false;
  }

  private Token peek() {
    return tokens.get(pos);
  }

  private static boolean isKeyword(String word) {
    return List.of("AND", "OR", "NOT", "IS", "NULL", "IN", "TRUE", "FALSE").contains(word.toUpperCase(Locale.ROOT));
  }

  private UserException error(String what) {
    Token t = peek();
    String found = t.kind == Kind.END ? "the end" : "'" + t.text + "'";
    return new UserException("--where: " + what + " at position " + (t.start + 1) + " (found " + found + ") in: "
        + text);
  }

  private enum Kind { WORD, QUOTED_NAME, STRING, NUMBER, OP, SYMBOL, END }

  private record Token(Kind kind, String text, int start) {}

  private static List<Token> tokenize(String s) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '\'' || c == '`') {
        int start = i;
        StringBuilder b = new StringBuilder();
        i++;
        while (true) {
          if (i >= s.length()) {
            throw new UserException("--where: unterminated " + (c == '\'' ? "string" : "quoted name")
                + " starting at position " + (start + 1) + " in: " + s);
          }
          char d = s.charAt(i);
          if (d == c) {
            if (i + 1 < s.length() && s.charAt(i + 1) == c) {
              b.append(c);
              i += 2;
              continue;
            }
            i++;
            break;
          }
          b.append(d);
          i++;
        }
        out.add(new Token(c == '\'' ? Kind.STRING : Kind.QUOTED_NAME, b.toString(), start));
      } else if (Character.isDigit(c) || (c == '-' && i + 1 < s.length() && Character.isDigit(s.charAt(i + 1)))) {
        int start = i++;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.' || s.charAt(i) == 'e'
            || s.charAt(i) == 'E' || ((s.charAt(i) == '-' || s.charAt(i) == '+')
                && (s.charAt(i - 1) == 'e' || s.charAt(i - 1) == 'E')))) {
          i++;
        }
        String num = s.substring(start, i);
        try {
          new BigDecimal(num);
        } catch (NumberFormatException e) {
          throw new UserException("--where: '" + num + "' at position " + (start + 1) + " is not a number in: " + s);
        }
        out.add(new Token(Kind.NUMBER, num, start));
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) {
          i++;
        }
        out.add(new Token(Kind.WORD, s.substring(start, i), start));
      } else if (c == '<' || c == '>' || c == '=' || c == '!') {
        int start = i;
        String two = i + 1 < s.length() ? s.substring(i, i + 2) : "";
        if (two.equals("<=") || two.equals(">=") || two.equals("!=") || two.equals("<>")) {
          out.add(new Token(Kind.OP, two, start));
          i += 2;
        } else if (c == '!') {
          throw new UserException("--where: '!' at position " + (i + 1) + " must be followed by '=' in: " + s);
        } else {
          out.add(new Token(Kind.OP, String.valueOf(c), start));
          i++;
        }
      } else if (c == '(' || c == ')' || c == ',' || c == '.') {
        out.add(new Token(Kind.SYMBOL, String.valueOf(c), i));
        i++;
      } else {
        throw new UserException("--where: unexpected character '" + c + "' at position " + (i + 1) + " in: " + s);
      }
    }
    out.add(new Token(Kind.END, "", s.length()));
    return out;
  }

  static Optional<Field> field(Schema schema, String column) {
    return schema == null ? Optional.empty() : schema.findField(column);
  }
}
