package io.quiver.schema;

import static io.quiver.schema.SchemaValidationTest.af;
import static io.quiver.schema.SchemaValidationTest.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
    assertThat(SCHEMA.findField("s.inner.b").orElseThrow().id()).isEqualTo(4);
    assertThat(SCHEMA.findField("tags.item").orElseThrow().id()).isEqualTo(6);
    assertThat(SCHEMA.findField("m.entries.key").orElseThrow().id()).isEqualTo(9);
    assertThat(SCHEMA.findField("m.entries.value").orElseThrow().id()).isEqualTo(10);
    assertThat(SCHEMA.pathOf(10)).isEqualTo("m.entries.value");
    assertThat(SCHEMA.parentOf(9).orElseThrow().id()).isEqualTo(8);
    assertThat(SCHEMA.parentOf(0).isPresent()).isFalse();

    for (String missing : new String[] {"s.inner.c", "tags.element", "m.key", "", "s.", ".s", "s..a", "nope"}) {
      assertThat(SCHEMA.findField(missing).isPresent()).as(missing).isFalse();
    }
  }

  @Test
  void namesWithDotsAreQuotedInPaths() {
    assertThat(SCHEMA.pathOf(11)).isEqualTo("`a.b`");
    assertThat(SCHEMA.findField("`a.b`").orElseThrow().id()).isEqualTo(11);
    assertThat(SCHEMA.findField("a.b").isPresent()).isFalse();
    assertThat(SCHEMA.findTopLevel("a.b").orElseThrow().id()).isEqualTo(11);

    Schema tricky =
        Schema.fromArrow(as(af("x`y", ArrowType.Struct.INSTANCE, af("p.q", INT32))), new FieldIdAllocator(-1));
    assertThat(tricky.pathOf(1)).isEqualTo("`x``y`.`p.q`");
    assertThat(tricky.findField("`x``y`.`p.q`").orElseThrow().id()).isEqualTo(1);
    assertThat(tricky.findField("`x``y").isPresent()).isFalse();
  }

  @Test
  void unknownIdsAreInvalidArguments() {
    assertThat(SCHEMA.findField(99).isPresent()).isFalse();
    InvalidArgumentException e = assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> SCHEMA.field(99)).actual();
    assertThat(e.getMessage().contains("99")).as(e.getMessage()).isTrue();
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> SCHEMA.pathOf(-1));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> SCHEMA.parentOf(12));
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> SCHEMA.project(List.of(0, 12)));
  }

  @Test
  void atomicFieldsStopAtListsAndMaps() {
    assertThat(SCHEMA.atomicFields().stream().map(Field::id).collect(Collectors.toList())).isEqualTo(List.of(0, 2, 4, 5, 7, 11));
    assertThat(SCHEMA.field(5).isAtomic()).isTrue();
    assertThat(SCHEMA.field(3).isAtomic()).isFalse();
  }

  @Test
  void projection() {
    // A struct keeps all descendants.
    assertThat(ids(SCHEMA.project(List.of(1)))).isEqualTo(List.of(1, 2, 3, 4));
    // An atomic field keeps its ancestor structs with only the requested descendants.
    Schema deep = SCHEMA.project(List.of(4));
    assertThat(ids(deep)).isEqualTo(List.of(1, 3, 4));
    assertThat(deep.pathOf(4)).isEqualTo("s.inner.b");
    // A child of a list or map selects the whole list or map.
    assertThat(ids(SCHEMA.project(List.of(6)))).isEqualTo(List.of(5, 6));
    assertThat(ids(SCHEMA.project(List.of(9)))).isEqualTo(List.of(7, 8, 9, 10));
    // Order follows the schema; duplicates are harmless.
    assertThat(ids(SCHEMA.project(List.of(11, 10, 2, 0, 2)))).isEqualTo(List.of(0, 1, 2, 7, 8, 9, 10, 11));
    assertThat(SCHEMA.project(List.of())).isEqualTo(Schema.empty());
  }

  @Test
  void maxFieldIdOfEmptySchemaIsMinusOne() {
    assertThat(Schema.empty().maxFieldId()).isEqualTo(-1);
    assertThat(Schema.empty().allFields()).isEqualTo(List.of());
    assertThat(new FieldIdAllocator(Schema.empty().maxFieldId()).next()).isEqualTo(0);
    assertThat(SCHEMA.maxFieldId()).isEqualTo(11);
  }

  @Test
  void renamesKeepIdsAndStructureIgnoresMetadata() {
    Field renamed = SCHEMA.field(0).withName("pk").withNullable(true);
    assertThat(renamed.id()).isEqualTo(0);
    assertThat(renamed.name()).isEqualTo("pk");
    assertThat(renamed.nullable()).isTrue();

    List<Field> fields = new java.util.ArrayList<>(SCHEMA.fields());
    fields.set(0, renamed);
    Schema other = new Schema(fields, SCHEMA.metadata());
    assertThat(SCHEMA.sameStructure(other)).isFalse();
    assertThat(other.pathOf(0)).isEqualTo("pk");

    fields.set(0, SCHEMA.field(0).withMetadata(Map.of("comment", "primary key")));
    Schema annotated = new Schema(fields, Map.of("owner", "me"));
    assertThat(SCHEMA.sameStructure(annotated)).isTrue();
    assertThat(annotated).isNotEqualTo(SCHEMA);
  }

  @Test
  void valuesAreImmutable() {
    assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> SCHEMA.fields().clear());
    assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> SCHEMA.field(1).children().clear());
    assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> SCHEMA.allFields().clear());
    java.util.Map<String, String> meta = new java.util.HashMap<>(Map.of("k", "v"));
    Field f = new Field(0, -1, "a", INT32, true, meta, null);
    meta.put("k2", "v2");
    assertThat(f.metadata()).isEqualTo(Map.of("k", "v"));
  }
}
