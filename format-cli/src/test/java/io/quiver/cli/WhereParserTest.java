package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.quiver.predicate.Predicate;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import java.time.LocalDate;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

class WhereParserTest {
  static final Schema SCHEMA = Schema.fromArrow(new org.apache.arrow.vector.types.pojo.Schema(List.of(
      Field.notNullable("id", new ArrowType.Int(64, true)),
      Field.nullable("name", ArrowType.Utf8.INSTANCE),
      Field.nullable("day", Types.parse("date")),
      Field.nullable("score", Types.parse("float64")),
      new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE),
          List.of(Field.nullable("y", new ArrowType.Int(32, true)))))), new FieldIdAllocator(0));

  static Predicate parse(String text) {
    return WhereParser.parse(text, null);
  }

  @Test
  void andBindsTighterThanOr() {
    assertEquals(Predicate.or(Predicate.compare("a", Predicate.Op.EQ, 1L),
            Predicate.and(Predicate.compare("b", Predicate.Op.EQ, 2L), Predicate.compare("c", Predicate.Op.EQ, 3L))),
        parse("a = 1 OR b = 2 AND c = 3"));
  }

  @Test
  void parenthesesOverridePrecedenceAndNotBindsTightest() {
    assertEquals(Predicate.and(Predicate.or(Predicate.compare("a", Predicate.Op.EQ, 1L),
            Predicate.compare("b", Predicate.Op.EQ, 2L)), Predicate.not(Predicate.compare("c", Predicate.Op.GT, 3L))),
        parse("(a = 1 or b = 2) and not c > 3"));
  }

  @Test
  void theBriefsExampleParses() {
    Predicate p = WhereParser.parse("id > 5 AND (name = 'x' OR s.y IS NULL) AND id IN (1,2)", SCHEMA);
    assertEquals(Predicate.and(Predicate.compare("id", Predicate.Op.GT, 5L),
        Predicate.or(Predicate.compare("name", Predicate.Op.EQ, "x"), Predicate.isNull("s.y")),
        Predicate.in("id", List.of(1L, 2L))), p);
  }

  @Test
  void everyOperatorAndNegatedForms() {
    assertEquals(Predicate.Op.NE, ((Predicate.Comparison) parse("a <> 1")).op());
    assertEquals(Predicate.Op.NE, ((Predicate.Comparison) parse("a != 1")).op());
    assertEquals(Predicate.Op.LE, ((Predicate.Comparison) parse("a <= 1")).op());
    assertEquals(Predicate.Op.GE, ((Predicate.Comparison) parse("a >= -1.5")).op());
    assertEquals(Predicate.Op.LT, ((Predicate.Comparison) parse("a<1")).op());
    assertEquals(Predicate.isNotNull("a"), parse("a IS NOT NULL"));
    assertEquals(Predicate.not(Predicate.in("a", List.of("x", "y"))), parse("a NOT IN ('x', 'y')"));
    assertEquals(Predicate.compare("flag", Predicate.Op.EQ, true), parse("flag = TRUE"));
  }

  @Test
  void quotingOfStringsAndNames() {
    assertEquals(Predicate.compare("name", Predicate.Op.EQ, "it's"), parse("name = 'it''s'"));
    assertEquals(Predicate.compare("name", Predicate.Op.EQ, "a AND b"), parse("name = 'a AND b'"));
    assertEquals(Predicate.compare("`a.b`", Predicate.Op.EQ, 1L), parse("`a.b` = 1"));
    assertEquals(Predicate.compare("`and`", Predicate.Op.EQ, 1L), parse("`and` = 1"));
  }

  @Test
  void literalsTakeTheColumnsType() {
    assertEquals(Predicate.compare("day", Predicate.Op.GE, LocalDate.of(2024, 1, 31)),
        WhereParser.parse("day >= '2024-01-31'", SCHEMA));
    assertEquals(Predicate.compare("score", Predicate.Op.GT, 2.0), WhereParser.parse("score > 2", SCHEMA));
  }

  @Test
  void errorsSayWhereAndWhat() {
    assertThat(assertThrows(UserException.class, () -> parse("name = 'x")).getMessage())
        .contains("unterminated string").contains("position 8");
    assertThat(assertThrows(UserException.class, () -> parse("(a = 1")).getMessage())
        .contains("expected ')'").contains("the end");
    assertThat(assertThrows(UserException.class, () -> parse("a = 1 b = 2")).getMessage())
        .contains("expected AND, OR").contains("'b'").contains("position 7");
    assertThat(assertThrows(UserException.class, () -> parse("a = NULL")).getMessage()).contains("IS NULL");
    assertThat(assertThrows(UserException.class, () -> parse("a = x")).getMessage()).contains("quote text");
    assertThat(assertThrows(UserException.class, () -> parse("a ~ 1")).getMessage()).contains("unexpected character '~'");
    assertThat(assertThrows(UserException.class, () -> parse("AND = 1")).getMessage()).contains("backticks");
    assertThat(assertThrows(UserException.class, () -> parse(" ")).getMessage()).contains("empty");
  }

  @Test
  void unknownColumnsAndTypeMismatchesAreUserErrors() {
    assertThat(assertThrows(UserException.class, () -> WhereParser.parse("nope = 1", SCHEMA)).getMessage())
        .contains("unknown column 'nope'").contains("s.y");
    assertThat(assertThrows(UserException.class, () -> WhereParser.parse("id = 'x'", SCHEMA)).getMessage())
        .contains("type mismatch").contains("'id' is int64");
    assertThat(assertThrows(UserException.class, () -> WhereParser.parse("day = 'soon'", SCHEMA)).getMessage())
        .contains("YYYY-MM-DD");
  }
}
