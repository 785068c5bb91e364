package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.predicate.Predicate;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import java.time.LocalDate;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.assertj.core.api.Assertions;
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
    assertThat(parse("a = 1 OR b = 2 AND c = 3")).isEqualTo(Predicate.or(Predicate.compare("a", Predicate.Op.EQ, 1L),
        Predicate.and(Predicate.compare("b", Predicate.Op.EQ, 2L), Predicate.compare("c", Predicate.Op.EQ, 3L))));
  }

  @Test
  void parenthesesOverridePrecedenceAndNotBindsTightest() {
    assertThat(parse("(a = 1 or b = 2) and not c > 3")).isEqualTo(Predicate.and(Predicate.or(Predicate.compare("a", Predicate.Op.EQ, 1L),
        Predicate.compare("b", Predicate.Op.EQ, 2L)), Predicate.not(Predicate.compare("c", Predicate.Op.GT, 3L))));
  }

  @Test
  void theBriefsExampleParses() {
    Predicate p = WhereParser.parse("id > 5 AND (name = 'x' OR s.y IS NULL) AND id IN (1,2)", SCHEMA);
    assertThat(p).isEqualTo(Predicate.and(Predicate.compare("id", Predicate.Op.GT, 5L),
        Predicate.or(Predicate.compare("name", Predicate.Op.EQ, "x"), Predicate.isNull("s.y")),
        Predicate.in("id", List.of(1L, 2L))));
  }

  @Test
  void everyOperatorAndNegatedForms() {
    assertThat(((Predicate.Comparison) parse("a <> 1")).op()).isEqualTo(Predicate.Op.NE);
    assertThat(((Predicate.Comparison) parse("a != 1")).op()).isEqualTo(Predicate.Op.NE);
    assertThat(((Predicate.Comparison) parse("a <= 1")).op()).isEqualTo(Predicate.Op.LE);
    assertThat(((Predicate.Comparison) parse("a >= -1.5")).op()).isEqualTo(Predicate.Op.GE);
    assertThat(((Predicate.Comparison) parse("a<1")).op()).isEqualTo(Predicate.Op.LT);
    assertThat(parse("a IS NOT NULL")).isEqualTo(Predicate.isNotNull("a"));
    assertThat(parse("a NOT IN ('x', 'y')")).isEqualTo(Predicate.not(Predicate.in("a", List.of("x", "y"))));
    assertThat(parse("flag = TRUE")).isEqualTo(Predicate.compare("flag", Predicate.Op.EQ, true));
  }

  @Test
  void quotingOfStringsAndNames() {
    assertThat(parse("name = 'it''s'")).isEqualTo(Predicate.compare("name", Predicate.Op.EQ, "it's"));
    assertThat(parse("name = 'a AND b'")).isEqualTo(Predicate.compare("name", Predicate.Op.EQ, "a AND b"));
    assertThat(parse("`a.b` = 1")).isEqualTo(Predicate.compare("`a.b`", Predicate.Op.EQ, 1L));
    assertThat(parse("`and` = 1")).isEqualTo(Predicate.compare("`and`", Predicate.Op.EQ, 1L));
  }

  @Test
  void literalsTakeTheColumnsType() {
    assertThat(WhereParser.parse("day >= '2024-01-31'", SCHEMA)).isEqualTo(Predicate.compare("day", Predicate.Op.GE, LocalDate.of(2024, 1, 31)));
    assertThat(WhereParser.parse("score > 2", SCHEMA)).isEqualTo(Predicate.compare("score", Predicate.Op.GT, 2.0));
  }

  @Test
  void errorsSayWhereAndWhat() {
    assertThatThrownBy(() -> parse("name = 'x")).isInstanceOf(UserException.class).message()
        .contains("unterminated string").contains("position 8");
    assertThatThrownBy(() -> parse("(a = 1")).isInstanceOf(UserException.class).message()
        .contains("expected ')'").contains("the end");
    assertThatThrownBy(() -> parse("a = 1 b = 2")).isInstanceOf(UserException.class).message()
        .contains("expected AND, OR").contains("'b'").contains("position 7");
    assertThatThrownBy(() -> parse("a = NULL")).isInstanceOf(UserException.class).message().contains("IS NULL");
    assertThatThrownBy(() -> parse("a = x")).isInstanceOf(UserException.class).message().contains("quote text");
    assertThatThrownBy(() -> parse("a ~ 1")).isInstanceOf(UserException.class).message().contains("unexpected character '~'");
    assertThatThrownBy(() -> parse("AND = 1")).isInstanceOf(UserException.class).message().contains("backticks");
    assertThatThrownBy(() -> parse(" ")).isInstanceOf(UserException.class).message().contains("empty");
  }

  @Test
  void unknownColumnsAndTypeMismatchesAreUserErrors() {
    assertThatThrownBy(() -> WhereParser.parse("nope = 1", SCHEMA)).isInstanceOf(UserException.class).message()
        .contains("unknown column 'nope'").contains("s.y");
    assertThatThrownBy(() -> WhereParser.parse("id = 'x'", SCHEMA)).isInstanceOf(UserException.class).message()
        .contains("type mismatch").contains("'id' is int64");
    assertThatThrownBy(() -> WhereParser.parse("day = 'soon'", SCHEMA)).isInstanceOf(UserException.class).message()
        .contains("YYYY-MM-DD");
  }
}
