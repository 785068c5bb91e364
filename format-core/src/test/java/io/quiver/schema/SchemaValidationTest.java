package io.quiver.schema;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
import org.assertj.core.api.Assertions;
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
        assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> Schema.fromArrow(arrow, allocator)).actual();
    assertThat(allocator.maxAllocated()).as("a rejected schema must not consume ids").isEqualTo(9);
    return e;
  }

  static Stream<String> reservedNames() {
    return ReservedNames.NAMES.stream();
  }

  @ParameterizedTest
  @MethodSource("reservedNames")
  void reservedTopLevelNameIsRejectedByName(String name) {
    InvalidSchemaException e = rejects(as(af("ok", INT32), af(name, INT32)));
    assertThat(e.getMessage().contains("'" + name + "' is reserved")).as(e.getMessage()).isTrue();
    assertThat(e.getMessage().contains("rename the column")).as(e.getMessage()).isTrue();
    assertThat(e.getMessage().contains(String.join(", ", ReservedNames.NAMES))).as(e.getMessage()).isTrue();

    InvalidSchemaException direct =
        assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> new Schema(List.of(Field.of(0, -1, name, INT32, true)))).actual();
    assertThat(direct.getMessage().contains(name)).as(direct.getMessage()).isTrue();
    assertThat(ReservedNames.isReserved(name)).isTrue();
  }

  @ParameterizedTest
  @MethodSource("reservedNames")
  void reservedNameIsAllowedBelowTopLevel(String name) {
    Assertions.assertThatCode(() -> Schema.fromArrow(as(af("s", ArrowType.Struct.INSTANCE, af(name, INT32))), new FieldIdAllocator(-1))).doesNotThrowAnyException();
  }

  @Test
  void reservedMatchingIsExact() {
    assertThat(!ReservedNames.isReserved("_ROWID") && !ReservedNames.isReserved("rowid")).isTrue();
    assertThat(ReservedNames.isReserved(null)).isFalse();
    assertThat(ReservedNames.NAMES.size()).isEqualTo(5);
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
    assertThat(top.getMessage().contains("'x'") && top.getMessage().contains(typeName)).as(top.getMessage()).isTrue();

    InvalidSchemaException nested =
        rejects(as(af("outer", ArrowType.Struct.INSTANCE, af("ok", INT32), af("inner", type))));
    assertThat(nested.getMessage().contains("'outer.inner'")).as(nested.getMessage()).isTrue();
    assertThat(nested.getMessage().contains(typeName)).as(nested.getMessage()).isTrue();

    InvalidSchemaException inList = rejects(as(af("tags", new ArrowType.List(), af("item", type))));
    assertThat(inList.getMessage().contains("'tags.item'")).as(inList.getMessage()).isTrue();
  }

  @Test
  void dictionaryEncodedFieldIsRejectedNamingPath() {
    org.apache.arrow.vector.types.pojo.Field dict =
        new org.apache.arrow.vector.types.pojo.Field(
            "color", new FieldType(true, UTF8, new DictionaryEncoding(1, false, new ArrowType.Int(32, true))), null);
    InvalidSchemaException e = rejects(as(af("s", ArrowType.Struct.INSTANCE, dict)));
    assertThat(e.getMessage().contains("'s.color'") && e.getMessage().contains("dictionary")).as(e.getMessage()).isTrue();
  }

  @Test
  void childCountRules() {
    assertThat(rejects(as(af("l", new ArrowType.List()))).getMessage().contains("exactly 1 child")).isTrue();
    assertThat(rejects(as(af("l", new ArrowType.LargeList(), af("a", INT32), af("b", INT32)))).getMessage().contains("'l'")).isTrue();
    assertThat(rejects(as(af("l", new ArrowType.FixedSizeList(2)))).getMessage().contains("exactly 1 child")).isTrue();
    assertThat(rejects(as(af("s", ArrowType.Struct.INSTANCE))).getMessage().contains("no children")).isTrue();
    assertThat(rejects(as(af("p", INT32, af("c", INT32)))).getMessage().contains("must have no children")).isTrue();
    InvalidSchemaException nestedEmpty =
        rejects(as(af("a", ArrowType.Struct.INSTANCE, af("b", ArrowType.Struct.INSTANCE))));
    assertThat(nestedEmpty.getMessage().contains("'a.b'")).as(nestedEmpty.getMessage()).isTrue();
  }

  @Test
  void mapShapeRules() {
    ArrowType map = new ArrowType.Map(false);
    org.apache.arrow.vector.types.pojo.Field key = af("key", UTF8, false);
    org.apache.arrow.vector.types.pojo.Field value = af("value", INT32);
    Assertions.assertThatCode(() -> Schema.fromArrow(as(af("m", map, af("entries", ArrowType.Struct.INSTANCE, false, key, value))), new FieldIdAllocator(-1))).doesNotThrowAnyException();

    assertThat(rejects(as(af("m", map))).getMessage().contains("exactly 1 child")).isTrue();
    assertThat(rejects(as(af("m", map, af("entries", INT32, false)))).getMessage().contains("struct child")).isTrue();
    assertThat(rejects(as(af("m", map, af("entries", ArrowType.Struct.INSTANCE, true, key, value))))
        .getMessage()
        .contains("'m.entries' must not be nullable")).isTrue();
    assertThat(rejects(as(af("m", map, af("entries", ArrowType.Struct.INSTANCE, false, key))))
        .getMessage()
        .contains("exactly 2 children")).isTrue();
    assertThat(rejects(as(af("m", map, af("entries", ArrowType.Struct.INSTANCE, false, af("key", UTF8, true), value))))
        .getMessage()
        .contains("'m.entries.key' must not be nullable")).isTrue();
  }

  @Test
  void namesMustBeNonEmptyAndUniqueAmongSiblings() {
    assertThat(rejects(as(af("a", INT32), af("a", UTF8))).getMessage().contains("duplicate column name 'a'")).isTrue();
    assertThat(rejects(as(af("s", ArrowType.Struct.INSTANCE, af("x", INT32), af("x", UTF8))))
        .getMessage()
        .contains("two children named 'x'")).isTrue();
    assertThat(rejects(as(af("", INT32))).getMessage().contains("empty name")).isTrue();
    assertThat(rejects(as(af("s", ArrowType.Struct.INSTANCE, af("", INT32)))).getMessage().contains("child of 's'")).isTrue();
    // Same name at different places is fine.
    Assertions.assertThatCode(() -> Schema.fromArrow(as(af("x", INT32), af("s", ArrowType.Struct.INSTANCE, af("x", INT32))), new FieldIdAllocator(-1))).doesNotThrowAnyException();
  }

  @Test
  void idsMustBeNonNegativeUniqueAndMatchTheTree() {
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> Field.of(-1, -1, "a", INT32, true));
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> Field.of(1, -2, "a", INT32, true));
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> Field.of(1, 1, "a", INT32, true));

    InvalidSchemaException dup =
        assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() ->
            new Schema(
                List.of(
                    Field.of(0, -1, "a", INT32, true),
                    new Field(1, -1, "s", ArrowType.Struct.INSTANCE, true, Map.of(), List.of(Field.of(0, 1, "b", INT32, true)))))).actual();
    assertThat(dup.getMessage().contains("id 0") && dup.getMessage().contains("'s.b'")).as(dup.getMessage()).isTrue();

    InvalidSchemaException wrongParent =
        assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> new Field(1, -1, "s", ArrowType.Struct.INSTANCE, true, Map.of(), List.of(Field.of(2, 7, "b", INT32, true)))).actual();
    assertThat(wrongParent.getMessage().contains("parentId 7")).as(wrongParent.getMessage()).isTrue();

    InvalidSchemaException topWithParent =
        assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> new Schema(List.of(Field.of(3, 0, "a", INT32, true)))).actual();
    assertThat(topWithParent.getMessage().contains("parentId -1")).as(topWithParent.getMessage()).isTrue();
  }

  @Test
  void fromArrowWithIdsNamesThePathOfAMissingOrBadId() {
    Schema schema =
        Schema.fromArrow(
            as(af("s", ArrowType.Struct.INSTANCE, af("a", INT32), af("tags", new ArrowType.List(), af("item", UTF8)))),
            new FieldIdAllocator(-1));
    org.apache.arrow.vector.types.pojo.Schema stored = schema.toArrowWithIds();
    assertThat(Schema.fromArrowWithIds(stored)).isEqualTo(schema);

    assertThatThrownBy(() -> Schema.fromArrowWithIds(schema.toArrow())).isInstanceOf(InvalidSchemaException.class)
        .message().contains("'s' has no 'quiver:field_id'");

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
      InvalidSchemaException e = assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> Schema.fromArrowWithIds(badSchema)).actual();
      assertThat(e.getMessage().contains("'s.tags.item'")).as(e.getMessage()).isTrue();
    }
  }

  @Test
  void fieldIdMetadataKeyIsReservedInUserMetadata() {
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> new Field(0, -1, "a", INT32, true, Map.of(Schema.FIELD_ID_KEY, "0"), List.of()));
    // A fresh conversion drops stale ids and keeps the rest of the metadata.
    org.apache.arrow.vector.types.pojo.Field withStaleId =
        new org.apache.arrow.vector.types.pojo.Field(
            "a", new FieldType(true, INT32, null, Map.of(Schema.FIELD_ID_KEY, "42", "unit", "m")), null);
    Schema schema = Schema.fromArrow(as(withStaleId), new FieldIdAllocator(-1));
    assertThat(schema.field(0).metadata()).isEqualTo(Map.of("unit", "m"));
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
      Assertions.assertThatCode(() -> Field.of(0, -1, "c", t, false)).withFailMessage(t.toString()).doesNotThrowAnyException();
    }
  }
}
