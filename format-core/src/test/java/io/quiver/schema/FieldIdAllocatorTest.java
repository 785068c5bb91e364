package io.quiver.schema;


import static io.quiver.schema.SchemaValidationTest.af;
import static io.quiver.schema.SchemaValidationTest.as;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.InvalidSchemaException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.Test;

class FieldIdAllocatorTest {
  private static final ArrowType INT32 = new ArrowType.Int(32, true);

  @Test
  void startsAboveTheHighWaterMark() {
    FieldIdAllocator fresh = new FieldIdAllocator(-1);
    assertEquals(-1, fresh.maxAllocated());
    assertEquals(0, fresh.next());
    assertEquals(1, fresh.next());
    assertEquals(1, fresh.maxAllocated());

    FieldIdAllocator resumed = new FieldIdAllocator(41);
    assertEquals(42, resumed.next());
    assertThrows(InvalidArgumentException.class, () -> new FieldIdAllocator(-2));
  }

  @Test
  void refusesToWrapAround() {
    FieldIdAllocator full = new FieldIdAllocator(Integer.MAX_VALUE - 1);
    assertEquals(Integer.MAX_VALUE, full.next());
    assertThrows(InvalidArgumentException.class, full::next);
  }

  @Test
  void idsOfDroppedFieldsAreNeverReused() {
    FieldIdAllocator allocator = new FieldIdAllocator(-1);
    Schema v1 =
        Schema.fromArrow(
            as(af("a", INT32), af("b", ArrowType.Struct.INSTANCE, af("x", INT32), af("y", INT32))),
            allocator);
    assertEquals(3, v1.maxFieldId());
    int highWaterMark = allocator.maxAllocated(); // what the manifest persists
    assertEquals(3, highWaterMark);

    // Drop "b" (ids 1..3): the schema forgets them, the high-water mark does not.
    Schema v2 = new Schema(List.of(v1.findTopLevel("a").orElseThrow()), v1.metadata());
    assertEquals(0, v2.maxFieldId());

    // Re-add a column named "b" in a later commit: it gets new ids.
    FieldIdAllocator later = new FieldIdAllocator(highWaterMark);
    Field newB = Field.fromArrow(af("b", ArrowType.Struct.INSTANCE, af("x", INT32)), -1, later);
    List<Field> fields = new ArrayList<>(v2.fields());
    fields.add(newB);
    Schema v3 = new Schema(fields, v2.metadata());

    assertEquals(List.of(0, 4, 5), v3.allFields().stream().map(Field::id).collect(Collectors.toList()));
    for (Field f : v1.allFields()) {
      if (f.id() != 0) {
        assertTrue(v3.findField(f.id()).isEmpty(), "id " + f.id() + " reused");
      }
    }
    assertEquals(4, v3.field(5).parentId());
    assertEquals(5, later.maxAllocated());
  }

  @Test
  void rejectedFieldConsumesNoIds() {
    FieldIdAllocator allocator = new FieldIdAllocator(7);
    assertThrows(
        InvalidSchemaException.class,
        () -> Field.fromArrow(af("s", ArrowType.Struct.INSTANCE, af("n", ArrowType.Null.INSTANCE)), -1, allocator));
    assertEquals(7, allocator.maxAllocated());
    assertEquals(8, Field.fromArrow(af("ok", INT32), -1, allocator).id());
  }
}
