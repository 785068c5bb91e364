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
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
    assertEquals("s.x = 5", eq("s.x", 5).toString());
    assertEquals("s.x != 5", ne("s.x", 5).toString());
    assertEquals("s.x < 5", lt("s.x", 5).toString());
    assertEquals("s.x <= 5", le("s.x", 5).toString());
    assertEquals("s.x > 5", gt("s.x", 5).toString());
    assertEquals("s.x >= 5", ge("s.x", 5).toString());
    assertEquals("id IN (1, 2, 3)", in("id", 1, 2, 3).toString());
    assertEquals("name IS NULL", isNull("name").toString());
    assertEquals("name IS NOT NULL", isNotNull("name").toString());
    assertEquals("NOT (id = 1)", not(eq("id", 1)).toString());
    assertEquals("TRUE", Predicate.TRUE.toString());
    assertEquals("FALSE", Predicate.FALSE.toString());
  }

  @Test
  void compositesParenthesiseOnlyWhereNeeded() {
    Predicate p = and(gt("s.x", 5), or(eq("name", "a"), isNull("name")), not(and(eq("id", 1), eq("id", 2))));
    assertEquals("s.x > 5 AND (name = 'a' OR name IS NULL) AND NOT (id = 1 AND id = 2)", p.toString());
  }

  @Test
  void literalsPrintAsSqlLiterals() {
    assertEquals("name = 'it''s'", eq("name", "it's").toString());
    assertEquals("b = X'00FF10'", eq("b", new byte[] {0, (byte) 0xff, 0x10}).toString());
    assertEquals("d = DATE '2024-02-29'", eq("d", LocalDate.of(2024, 2, 29)).toString());
    assertEquals("t < TIMESTAMP '2024-01-02T03:04:05Z'", lt("t", Instant.parse("2024-01-02T03:04:05Z")).toString());
    assertEquals("t < TIMESTAMP '2024-01-02T03:04:05'", lt("t", LocalDateTime.of(2024, 1, 2, 3, 4, 5)).toString());
    assertEquals("f = TRUE", eq("f", true).toString());
    assertEquals("m >= 12.50", ge("m", new BigDecimal("12.50")).toString());
    assertEquals("v = 'NaN'", eq("v", Double.NaN).toString());
    // An offset date-time names an instant.
    assertEquals(eq("t", Instant.parse("2024-01-02T01:04:05Z")),
        eq("t", OffsetDateTime.of(2024, 1, 2, 3, 4, 5, 0, ZoneOffset.ofHours(2))));
  }

  @Test
  void factoriesWithFewOperandsSimplify() {
    assertSame(Predicate.TRUE, and());
    assertEquals(Predicate.FALSE, or());
    Predicate p = eq("id", 1);
    assertSame(p, and(p));
    assertSame(p, or(p));
    assertThrows(InvalidArgumentException.class, () -> new Predicate.And(List.of(p)));
  }

  @Test
  void nullAndUnsupportedLiteralsAreRejectedUpFront() {
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> eq("name", null));
    assertThat(e.getMessage()).contains("isNull(\"name\")");
    e = assertThrows(InvalidArgumentException.class, () -> eq("name", new Object()));
    assertThat(e.getMessage()).contains("java.lang.Object").contains("String");
    assertThrows(InvalidArgumentException.class, () -> in("id", 1, null));
    assertThrows(InvalidArgumentException.class, () -> eq("", 1));
  }

  @Test
  void binaryLiteralsAreValuesNotIdentities() {
    byte[] bytes = {1, 2, 3};
    Predicate a = eq("b", bytes);
    bytes[0] = 9; // the predicate took a copy
    assertEquals(eq("b", new byte[] {1, 2, 3}), a);
    assertEquals(eq("b", new byte[] {1, 2, 3}).hashCode(), a.hashCode());
    assertNotEquals(eq("b", new byte[] {1, 2, 4}), a);
    assertEquals(in("b", new byte[] {1}, new byte[] {2}), in("b", new byte[] {1}, new byte[] {2}));
  }

  @Test
  void columnsAreListedOnceInOrderOfAppearance() {
    Predicate p = or(and(gt("s.x", 1), eq("name", "a")), isNull("s.x"), not(in("id", 1)), Predicate.TRUE);
    assertEquals(List.of("s.x", "name", "id"), List.copyOf(p.columns()));
    assertEquals(Set.of(), Predicate.TRUE.columns());
  }

  @Test
  void fieldIdsResolveDottedPathsAndWholeStructs() {
    assertEquals(Set.of(1), eq("id", 1).fieldIds(SCHEMA));
    assertEquals(Set.of(4, 2), and(eq("s.x", 1), isNull("name")).fieldIds(SCHEMA));
    assertEquals(Set.of(3, 4, 5), isNull("s").fieldIds(SCHEMA));
    assertEquals(Set.of(6, 7), isNull("tags").fieldIds(SCHEMA));
    assertEquals(Set.of(), Predicate.TRUE.fieldIds(SCHEMA));
  }

  @Test
  void unknownColumnsAreNamedWithTheColumnsThereAre() {
    InvalidArgumentException e =
        assertThrows(InvalidArgumentException.class, () -> eq("s.z", 1).fieldIds(SCHEMA));
    assertThat(e.getMessage()).contains("'s.z'").contains("[id, name, s, s.x, s.y, tags]");
    e = assertThrows(InvalidArgumentException.class, () -> eq("tags.item", 1).fieldIds(SCHEMA));
    assertThat(e.getMessage()).contains("inside").contains("'tags'");
  }
}
