package io.quiver.predicate;

import static io.quiver.predicate.Predicate.and;
import static io.quiver.predicate.Predicate.eq;
import static io.quiver.predicate.Predicate.ge;
import static io.quiver.predicate.Predicate.gt;
import static io.quiver.predicate.Predicate.in;
import static io.quiver.predicate.Predicate.isNotNull;
import static io.quiver.predicate.Predicate.isNull;
import static io.quiver.predicate.Predicate.le;
import static io.quiver.predicate.Predicate.lt;
import static io.quiver.predicate.Predicate.ne;
import static io.quiver.predicate.Predicate.not;
import static io.quiver.predicate.Predicate.or;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.schema.FieldIdAllocator;
import io.quiver.schema.Schema;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/** The predicate model: factories, readable form, columns and field ids. */
class PredicateTest {

  /** id int64, name utf8, s struct<x int32, y utf8>, tags list<int32>: ids 1..7 in preorder. */
  static final Schema SCHEMA = Schema.fromArrow(new org.apache.arrow.vector.types.pojo.Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
      new Field("s", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
          new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null),
          new Field("y", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))),
      new Field("tags", FieldType.nullable(ArrowType.List.INSTANCE),
          List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, true)), null))))),
      new FieldIdAllocator(0));

  @Test
  void everyOperatorReadsLikeSql() {
    assertThat(eq("s.x", 5).toString()).isEqualTo("s.x = 5");
    assertThat(ne("s.x", 5).toString()).isEqualTo("s.x != 5");
    assertThat(lt("s.x", 5).toString()).isEqualTo("s.x < 5");
    assertThat(le("s.x", 5).toString()).isEqualTo("s.x <= 5");
    assertThat(gt("s.x", 5).toString()).isEqualTo("s.x > 5");
    assertThat(ge("s.x", 5).toString()).isEqualTo("s.x >= 5");
    assertThat(in("id", 1, 2, 3).toString()).isEqualTo("id IN (1, 2, 3)");
    assertThat(isNull("name").toString()).isEqualTo("name IS NULL");
    assertThat(isNotNull("name").toString()).isEqualTo("name IS NOT NULL");
    assertThat(not(eq("id", 1)).toString()).isEqualTo("NOT (id = 1)");
    assertThat(Predicate.TRUE.toString()).isEqualTo("TRUE");
    assertThat(Predicate.FALSE.toString()).isEqualTo("FALSE");
  }

  @Test
  void compositesParenthesiseOnlyWhereNeeded() {
    Predicate p = and(gt("s.x", 5), or(eq("name", "a"), isNull("name")), not(and(eq("id", 1), eq("id", 2))));
    assertThat(p.toString()).isEqualTo("s.x > 5 AND (name = 'a' OR name IS NULL) AND NOT (id = 1 AND id = 2)");
  }

  @Test
  void literalsPrintAsSqlLiterals() {
    assertThat(eq("name", "it's").toString()).isEqualTo("name = 'it''s'");
    assertThat(eq("b", new byte[]{0, (byte) 0xff, 0x10}).toString()).isEqualTo("b = X'00FF10'");
    assertThat(eq("d", LocalDate.of(2024, 2, 29)).toString()).isEqualTo("d = DATE '2024-02-29'");
    assertThat(lt("t", Instant.parse("2024-01-02T03:04:05Z")).toString()).isEqualTo("t < TIMESTAMP '2024-01-02T03:04:05Z'");
    assertThat(lt("t", LocalDateTime.of(2024, 1, 2, 3, 4, 5)).toString()).isEqualTo("t < TIMESTAMP '2024-01-02T03:04:05'");
    assertThat(eq("f", true).toString()).isEqualTo("f = TRUE");
    assertThat(ge("m", new BigDecimal("12.50")).toString()).isEqualTo("m >= 12.50");
    assertThat(eq("v", Double.NaN).toString()).isEqualTo("v = 'NaN'");
    // An offset date-time names an instant.
    assertThat(eq("t", OffsetDateTime.of(2024, 1, 2, 3, 4, 5, 0, ZoneOffset.ofHours(2)))).isEqualTo(eq("t", Instant.parse("2024-01-02T01:04:05Z")));
  }

  @Test
  void factoriesWithFewOperandsSimplify() {
    assertThat(and()).isSameAs(Predicate.TRUE);
    assertThat(or()).isEqualTo(Predicate.FALSE);
    Predicate p = eq("id", 1);
    assertThat(and(p)).isSameAs(p);
    assertThat(or(p)).isSameAs(p);
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new Predicate.And(List.of(p)));
  }

  @Test
  void nullAndUnsupportedLiteralsAreRejectedUpFront() {
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> eq("name", null)).actual();
    assertThat(e.getMessage()).contains("isNull(\"name\")");
    e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> eq("name", new Object())).actual();
    assertThat(e.getMessage()).contains("java.lang.Object").contains("String");
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> in("id", 1, null));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> eq("", 1));
  }

  @Test
  void binaryLiteralsAreValuesNotIdentities() {
    byte[] bytes = {1, 2, 3};
    Predicate a = eq("b", bytes);
    bytes[0] = 9; // the predicate took a copy
    assertThat(a).isEqualTo(eq("b", new byte[]{1, 2, 3}));
    assertThat(a.hashCode()).isEqualTo(eq("b", new byte[]{1, 2, 3}).hashCode());
    assertThat(a).isNotEqualTo(eq("b", new byte[]{1, 2, 4}));
    assertThat(in("b", new byte[]{1}, new byte[]{2})).isEqualTo(in("b", new byte[]{1}, new byte[]{2}));
  }

  @Test
  void columnsAreListedOnceInOrderOfAppearance() {
    Predicate p = or(and(gt("s.x", 1), eq("name", "a")), isNull("s.x"), not(in("id", 1)), Predicate.TRUE);
    assertThat(List.copyOf(p.columns())).isEqualTo(List.of("s.x", "name", "id"));
    assertThat(Predicate.TRUE.columns()).isEqualTo(Set.of());
  }

  @Test
  void fieldIdsResolveDottedPathsAndWholeStructs() {
    assertThat(eq("id", 1).fieldIds(SCHEMA)).isEqualTo(Set.of(1));
    assertThat(and(eq("s.x", 1), isNull("name")).fieldIds(SCHEMA)).isEqualTo(Set.of(4, 2));
    assertThat(isNull("s").fieldIds(SCHEMA)).isEqualTo(Set.of(3, 4, 5));
    assertThat(isNull("tags").fieldIds(SCHEMA)).isEqualTo(Set.of(6, 7));
    assertThat(Predicate.TRUE.fieldIds(SCHEMA)).isEqualTo(Set.of());
  }

  @Test
  void unknownColumnsAreNamedWithTheColumnsThereAre() {
    InvalidArgumentException e =
        assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> eq("s.z", 1).fieldIds(SCHEMA)).actual();
    assertThat(e.getMessage()).contains("'s.z'").contains("[id, name, s, s.x, s.y, tags]");
    e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> eq("tags.item", 1).fieldIds(SCHEMA)).actual();
    assertThat(e.getMessage()).contains("inside").contains("'tags'");
  }
}
