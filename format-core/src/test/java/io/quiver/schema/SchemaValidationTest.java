package io.quiver.schema;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidSchemaException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.UnionMode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SchemaValidationTest {
  private static final ArrowType INT32 = new ArrowType.Int(32, true);
  private static final ArrowType UTF8 = ArrowType.Utf8.INSTANCE;

  static org.apache.arrow.vector.types.pojo.Field af(
      String name, ArrowType type, boolean nullable, org.apache.arrow.vector.types.pojo.Field... children) {
    return new org.apache.arrow.vector.types.pojo.Field(name, new FieldType(nullable, type, null), List.of(children));
  }

  static org.apache.arrow.vector.types.pojo.Field af(
      String name, ArrowType type, org.apache.arrow.vector.types.pojo.Field... children) {
    return af(name, type, true, children);
  }

  static org.apache.arrow.vector.types.pojo.Schema as(org.apache.arrow.vector.types.pojo.Field... fields) {
    return new org.apache.arrow.vector.types.pojo.Schema(List.of(fields));
  }

  private static InvalidSchemaException rejects(org.apache.arrow.vector.types.pojo.Schema arrow) {
    FieldIdAllocator allocator = new FieldIdAllocator(9);
    InvalidSchemaException e =
        assertThrows(InvalidSchemaException.class, () -> Schema.fromArrow(arrow, allocator));
    assertEquals(9, allocator.maxAllocated(), "a rejected schema must not consume ids");
    return e;
  }

  static Stream<String> reservedNames() {
    return ReservedNames.NAMES.stream();
  }

  @ParameterizedTest
  @MethodSource("reservedNames")
  void reservedTopLevelNameIsRejectedByName(String name) {
    InvalidSchemaException e = rejects(as(af("ok", INT32), af(name, INT32)));
    assertTrue(e.getMessage().contains("'" + name + "' is reserved"), e.getMessage());
    assertTrue(e.getMessage().contains("rename the column"), e.getMessage());
    assertTrue(e.getMessage().contains(String.join(", ", ReservedNames.NAMES)), e.getMessage());

    InvalidSchemaException direct =
        assertThrows(InvalidSchemaException.class, () -> new Schema(List.of(Field.of(0, -1, name, INT32, true))));
    assertTrue(direct.getMessage().contains(name), direct.getMessage());
    assertTrue(ReservedNames.isReserved(name));
  }

  @ParameterizedTest
  @MethodSource("reservedNames")
  void reservedNameIsAllowedBelowTopLevel(String name) {
    assertDoesNotThrow(() -> Schema.fromArrow(as(af("s", ArrowType.Struct.INSTANCE, af(name, INT32))), new FieldIdAllocator(-1)));
  }

  @Test
  void reservedMatchingIsExact() {
    assertTrue(!ReservedNames.isReserved("_ROWID") && !ReservedNames.isReserved("rowid"));
    assertTrue(!ReservedNames.isReserved(null));
    assertEquals(5, ReservedNames.NAMES.size());
  }

  static Stream<Arguments> unsupportedTypes() {
    return Stream.of(
        Arguments.of(ArrowType.Null.INSTANCE, "Null"),
        Arguments.of(new ArrowType.Union(UnionMode.Sparse, new int[] {0}), "Union"),
        Arguments.of(new ArrowType.Union(UnionMode.Dense, new int[] {0}), "Union"),
        Arguments.of(ArrowType.Utf8View.INSTANCE, "Utf8View"),
        Arguments.of(ArrowType.BinaryView.INSTANCE, "BinaryView"),
        Arguments.of(new ArrowType.ListView(), "ListView"),
        Arguments.of(new ArrowType.LargeListView(), "LargeListView"),
        Arguments.of(new ArrowType.RunEndEncoded(), "RunEndEncoded"),
        Arguments.of(new ArrowType.Int(24, true), "Int"),
        Arguments.of(new ArrowType.Decimal(10, 2, 64), "Decimal"),
        Arguments.of(new ArrowType.Decimal(39, 2, 128), "Decimal"),
        Arguments.of(new ArrowType.Time(TimeUnit.NANOSECOND, 32), "Time"));
  }

  @ParameterizedTest
  @MethodSource("unsupportedTypes")
  void unsupportedTypeIsRejectedNamingPathAndType(ArrowType type, String typeName) {
    InvalidSchemaException top = rejects(as(af("x", type)));
    assertTrue(top.getMessage().contains("'x'") && top.getMessage().contains(typeName), top.getMessage());

    InvalidSchemaException nested =
        rejects(as(af("outer", ArrowType.Struct.INSTANCE, af("ok", INT32), af("inner", type))));
    assertTrue(nested.getMessage().contains("'outer.inner'"), nested.getMessage());
    assertTrue(nested.getMessage().contains(typeName), nested.getMessage());

    InvalidSchemaException inList = rejects(as(af("tags", new ArrowType.List(), af("item", type))));
    assertTrue(inList.getMessage().contains("'tags.item'"), inList.getMessage());
  }

  @Test
  void dictionaryEncodedFieldIsRejectedNamingPath() {
    org.apache.arrow.vector.types.pojo.Field dict =
        new org.apache.arrow.vector.types.pojo.Field(
            "color", new FieldType(true, UTF8, new DictionaryEncoding(1, false, new ArrowType.Int(32, true))), null);
    InvalidSchemaException e = rejects(as(af("s", ArrowType.Struct.INSTANCE, dict)));
    assertTrue(e.getMessage().contains("'s.color'") && e.getMessage().contains("dictionary"), e.getMessage());
  }

  @Test
  void childCountRules() {
    assertTrue(rejects(as(af("l", new ArrowType.List()))).getMessage().contains("exactly 1 child"));
    assertTrue(rejects(as(af("l", new ArrowType.LargeList(), af("a", INT32), af("b", INT32)))).getMessage().contains("'l'"));
    assertTrue(rejects(as(af("l", new ArrowType.FixedSizeList(2)))).getMessage().contains("exactly 1 child"));
    assertTrue(rejects(as(af("s", ArrowType.Struct.INSTANCE))).getMessage().contains("no children"));
    assertTrue(rejects(as(af("p", INT32, af("c", INT32)))).getMessage().contains("must have no children"));
    InvalidSchemaException nestedEmpty =
        rejects(as(af("a", ArrowType.Struct.INSTANCE, af("b", ArrowType.Struct.INSTANCE))));
    assertTrue(nestedEmpty.getMessage().contains("'a.b'"), nestedEmpty.getMessage());
  }

  @Test
  void mapShapeRules() {
    ArrowType map = new ArrowType.Map(false);
    org.apache.arrow.vector.types.pojo.Field key = af("key", UTF8, false);
    org.apache.arrow.vector.types.pojo.Field value = af("value", INT32);
    assertDoesNotThrow(
        () -> Schema.fromArrow(as(af("m", map, af("entries", ArrowType.Struct.INSTANCE, false, key, value))), new FieldIdAllocator(-1)));

    assertTrue(rejects(as(af("m", map))).getMessage().contains("exactly 1 child"));
    assertTrue(rejects(as(af("m", map, af("entries", INT32, false)))).getMessage().contains("struct child"));
    assertTrue(
        rejects(as(af("m", map, af("entries", ArrowType.Struct.INSTANCE, true, key, value))))
            .getMessage()
            .contains("'m.entries' must not be nullable"));
    assertTrue(
        rejects(as(af("m", map, af("entries", ArrowType.Struct.INSTANCE, false, key))))
            .getMessage()
            .contains("exactly 2 children"));
    assertTrue(
        rejects(as(af("m", map, af("entries", ArrowType.Struct.INSTANCE, false, af("key", UTF8, true), value))))
            .getMessage()
            .contains("'m.entries.key' must not be nullable"));
  }

  @Test
  void namesMustBeNonEmptyAndUniqueAmongSiblings() {
    assertTrue(rejects(as(af("a", INT32), af("a", UTF8))).getMessage().contains("duplicate column name 'a'"));
    assertTrue(
        rejects(as(af("s", ArrowType.Struct.INSTANCE, af("x", INT32), af("x", UTF8))))
            .getMessage()
            .contains("two children named 'x'"));
    assertTrue(rejects(as(af("", INT32))).getMessage().contains("empty name"));
    assertTrue(rejects(as(af("s", ArrowType.Struct.INSTANCE, af("", INT32)))).getMessage().contains("child of 's'"));
    // Same name at different places is fine.
    assertDoesNotThrow(
        () -> Schema.fromArrow(as(af("x", INT32), af("s", ArrowType.Struct.INSTANCE, af("x", INT32))), new FieldIdAllocator(-1)));
  }

  @Test
  void idsMustBeNonNegativeUniqueAndMatchTheTree() {
    assertThrows(InvalidSchemaException.class, () -> Field.of(-1, -1, "a", INT32, true));
    assertThrows(InvalidSchemaException.class, () -> Field.of(1, -2, "a", INT32, true));
    assertThrows(InvalidSchemaException.class, () -> Field.of(1, 1, "a", INT32, true));

    InvalidSchemaException dup =
        assertThrows(
            InvalidSchemaException.class,
            () ->
                new Schema(
                    List.of(
                        Field.of(0, -1, "a", INT32, true),
                        new Field(1, -1, "s", ArrowType.Struct.INSTANCE, true, Map.of(), List.of(Field.of(0, 1, "b", INT32, true))))));
    assertTrue(dup.getMessage().contains("id 0") && dup.getMessage().contains("'s.b'"), dup.getMessage());

    InvalidSchemaException wrongParent =
        assertThrows(
            InvalidSchemaException.class,
            () -> new Field(1, -1, "s", ArrowType.Struct.INSTANCE, true, Map.of(), List.of(Field.of(2, 7, "b", INT32, true))));
    assertTrue(wrongParent.getMessage().contains("parentId 7"), wrongParent.getMessage());

    InvalidSchemaException topWithParent =
        assertThrows(InvalidSchemaException.class, () -> new Schema(List.of(Field.of(3, 0, "a", INT32, true))));
    assertTrue(topWithParent.getMessage().contains("parentId -1"), topWithParent.getMessage());
  }

  @Test
  void fromArrowWithIdsNamesThePathOfAMissingOrBadId() {
    Schema schema =
        Schema.fromArrow(
            as(af("s", ArrowType.Struct.INSTANCE, af("a", INT32), af("tags", new ArrowType.List(), af("item", UTF8)))),
            new FieldIdAllocator(-1));
    org.apache.arrow.vector.types.pojo.Schema stored = schema.toArrowWithIds();
    assertEquals(schema, Schema.fromArrowWithIds(stored));

    assertTrue(
        assertThrows(InvalidSchemaException.class, () -> Schema.fromArrowWithIds(schema.toArrow()))
            .getMessage()
            .contains("'s' has no 'quiver:field_id'"));

    for (String bad : new String[] {"x", "-3", "", " 4", "04", "99999999999"}) {
      org.apache.arrow.vector.types.pojo.Field item = stored.getFields().get(0).getChildren().get(1).getChildren().get(0);
      org.apache.arrow.vector.types.pojo.Field badItem =
          new org.apache.arrow.vector.types.pojo.Field(
              item.getName(), new FieldType(true, UTF8, null, Map.of(Schema.FIELD_ID_KEY, bad)), null);
      org.apache.arrow.vector.types.pojo.Field tags = stored.getFields().get(0).getChildren().get(1);
      org.apache.arrow.vector.types.pojo.Field badTags =
          new org.apache.arrow.vector.types.pojo.Field(tags.getName(), tags.getFieldType(), List.of(badItem));
      org.apache.arrow.vector.types.pojo.Field s = stored.getFields().get(0);
      org.apache.arrow.vector.types.pojo.Schema badSchema =
          as(new org.apache.arrow.vector.types.pojo.Field(s.getName(), s.getFieldType(), List.of(s.getChildren().get(0), badTags)));
      InvalidSchemaException e = assertThrows(InvalidSchemaException.class, () -> Schema.fromArrowWithIds(badSchema));
      assertTrue(e.getMessage().contains("'s.tags.item'"), e.getMessage());
    }
  }

  @Test
  void fieldIdMetadataKeyIsReservedInUserMetadata() {
    assertThrows(
        InvalidSchemaException.class,
        () -> new Field(0, -1, "a", INT32, true, Map.of(Schema.FIELD_ID_KEY, "0"), List.of()));
    // A fresh conversion drops stale ids and keeps the rest of the metadata.
    org.apache.arrow.vector.types.pojo.Field withStaleId =
        new org.apache.arrow.vector.types.pojo.Field(
            "a", new FieldType(true, INT32, null, Map.of(Schema.FIELD_ID_KEY, "42", "unit", "m")), null);
    Schema schema = Schema.fromArrow(as(withStaleId), new FieldIdAllocator(-1));
    assertEquals(Map.of("unit", "m"), schema.field(0).metadata());
  }

  @Test
  void supportedPrimitiveTypesAreAccepted() {
    List<ArrowType> types =
        List.of(
            ArrowType.Bool.INSTANCE,
            new ArrowType.Int(8, false),
            new ArrowType.FloatingPoint(FloatingPointPrecision.HALF),
            new ArrowType.Decimal(76, 10, 256),
            new ArrowType.Decimal(5, -2, 128),
            new ArrowType.Timestamp(TimeUnit.NANOSECOND, "Europe/Paris"),
            new ArrowType.FixedSizeBinary(16));
    for (ArrowType t : types) {
      assertDoesNotThrow(() -> Field.of(0, -1, "c", t, false), t.toString());
    }
  }
}
