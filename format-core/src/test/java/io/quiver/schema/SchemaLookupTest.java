package io.quiver.schema;

import static io.quiver.schema.SchemaValidationTest.af;
import static io.quiver.schema.SchemaValidationTest.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidArgumentException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

class SchemaLookupTest {
  private static final ArrowType INT32 = new ArrowType.Int(32, true);
  private static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;

  /**
   * Ids in preorder: id 0, s 1, s.a 2, s.inner 3, s.inner.b 4, tags 5, tags.item 6, m 7, m.entries 8,
   * m.entries.key 9, m.entries.value 10, `a.b` 11.
   */
  private static final Schema SCHEMA =
      Schema.fromArrow(
          as(
              af("id", new ArrowType.Int(64, true), false),
              af("s", ArrowType.Struct.INSTANCE, af("a", INT32), af("inner", ArrowType.Struct.INSTANCE, af("b", UTF8))),
              af("tags", new ArrowType.List(), af("item", UTF8)),
              af(
                  "m",
                  new ArrowType.Map(true),
                  af("entries", ArrowType.Struct.INSTANCE, false, af("key", UTF8, false), af("value", INT32))),
              af("a.b", INT32)),
          new FieldIdAllocator(-1));

  private static List<Integer> ids(Schema s) {
    return s.allFields().stream().map(Field::id).collect(Collectors.toList());
  }

  @Test
  void lookupByDottedPathIntoStructListAndMap() {
    assertEquals(4, SCHEMA.findField("s.inner.b").orElseThrow().id());
    assertEquals(6, SCHEMA.findField("tags.item").orElseThrow().id());
    assertEquals(9, SCHEMA.findField("m.entries.key").orElseThrow().id());
    assertEquals(10, SCHEMA.findField("m.entries.value").orElseThrow().id());
    assertEquals("m.entries.value", SCHEMA.pathOf(10));
    assertEquals(8, SCHEMA.parentOf(9).orElseThrow().id());
    assertFalse(SCHEMA.parentOf(0).isPresent());

    for (String missing : new String[] {"s.inner.c", "tags.element", "m.key", "", "s.", ".s", "s..a", "nope"}) {
      assertFalse(SCHEMA.findField(missing).isPresent(), missing);
    }
  }

  @Test
  void namesWithDotsAreQuotedInPaths() {
    assertEquals("`a.b`", SCHEMA.pathOf(11));
    assertEquals(11, SCHEMA.findField("`a.b`").orElseThrow().id());
    assertFalse(SCHEMA.findField("a.b").isPresent());
    assertEquals(11, SCHEMA.findTopLevel("a.b").orElseThrow().id());

    Schema tricky =
        Schema.fromArrow(as(af("x`y", ArrowType.Struct.INSTANCE, af("p.q", INT32))), new FieldIdAllocator(-1));
    assertEquals("`x``y`.`p.q`", tricky.pathOf(1));
    assertEquals(1, tricky.findField("`x``y`.`p.q`").orElseThrow().id());
    assertFalse(tricky.findField("`x``y").isPresent());
  }

  @Test
  void unknownIdsAreInvalidArguments() {
    assertFalse(SCHEMA.findField(99).isPresent());
    InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> SCHEMA.field(99));
    assertTrue(e.getMessage().contains("99"), e.getMessage());
    assertThrows(InvalidArgumentException.class, () -> SCHEMA.pathOf(-1));
    assertThrows(InvalidArgumentException.class, () -> SCHEMA.parentOf(12));
    assertThrows(InvalidArgumentException.class, () -> SCHEMA.project(List.of(0, 12)));
  }

  @Test
  void atomicFieldsStopAtListsAndMaps() {
    assertEquals(
        List.of(0, 2, 4, 5, 7, 11), SCHEMA.atomicFields().stream().map(Field::id).collect(Collectors.toList()));
    assertTrue(SCHEMA.field(5).isAtomic());
    assertFalse(SCHEMA.field(3).isAtomic());
  }

  @Test
  void projection() {
    // A struct keeps all descendants.
    assertEquals(List.of(1, 2, 3, 4), ids(SCHEMA.project(List.of(1))));
    // An atomic field keeps its ancestor structs with only the requested descendants.
    Schema deep = SCHEMA.project(List.of(4));
    assertEquals(List.of(1, 3, 4), ids(deep));
    assertEquals("s.inner.b", deep.pathOf(4));
    // A child of a list or map selects the whole list or map.
    assertEquals(List.of(5, 6), ids(SCHEMA.project(List.of(6))));
    assertEquals(List.of(7, 8, 9, 10), ids(SCHEMA.project(List.of(9))));
    // Order follows the schema; duplicates are harmless.
    assertEquals(List.of(0, 1, 2, 7, 8, 9, 10, 11), ids(SCHEMA.project(List.of(11, 10, 2, 0, 2))));
    assertEquals(Schema.empty(), SCHEMA.project(List.of()));
  }

  @Test
  void maxFieldIdOfEmptySchemaIsMinusOne() {
    assertEquals(-1, Schema.empty().maxFieldId());
    assertEquals(List.of(), Schema.empty().allFields());
    assertEquals(0, new FieldIdAllocator(Schema.empty().maxFieldId()).next());
    assertEquals(11, SCHEMA.maxFieldId());
  }

  @Test
  void renamesKeepIdsAndStructureIgnoresMetadata() {
    Field renamed = SCHEMA.field(0).withName("pk").withNullable(true);
    assertEquals(0, renamed.id());
    assertEquals("pk", renamed.name());
    assertTrue(renamed.nullable());

    List<Field> fields = new java.util.ArrayList<>(SCHEMA.fields());
    fields.set(0, renamed);
    Schema other = new Schema(fields, SCHEMA.metadata());
    assertFalse(SCHEMA.sameStructure(other));
    assertEquals("pk", other.pathOf(0));

    fields.set(0, SCHEMA.field(0).withMetadata(Map.of("comment", "primary key")));
    Schema annotated = new Schema(fields, Map.of("owner", "me"));
    assertTrue(SCHEMA.sameStructure(annotated));
    assertNotEquals(SCHEMA, annotated);
  }

  @Test
  void valuesAreImmutable() {
    assertThrows(UnsupportedOperationException.class, () -> SCHEMA.fields().clear());
    assertThrows(UnsupportedOperationException.class, () -> SCHEMA.field(1).children().clear());
    assertThrows(UnsupportedOperationException.class, () -> SCHEMA.allFields().clear());
    java.util.Map<String, String> meta = new java.util.HashMap<>(Map.of("k", "v"));
    Field f = new Field(0, -1, "a", INT32, true, meta, null);
    meta.put("k2", "v2");
    assertEquals(Map.of("k", "v"), f.metadata());
  }
}
