package io.quiver.schema;


import static io.quiver.schema.SchemaValidationTest.af;
import static io.quiver.schema.SchemaValidationTest.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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
    assertThat(fresh.maxAllocated()).isEqualTo(-1);
    assertThat(fresh.next()).isEqualTo(0);
    assertThat(fresh.next()).isEqualTo(1);
    assertThat(fresh.maxAllocated()).isEqualTo(1);

    FieldIdAllocator resumed = new FieldIdAllocator(41);
    assertThat(resumed.next()).isEqualTo(42);
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(() -> new FieldIdAllocator(-2));
  }

  @Test
  void refusesToWrapAround() {
    FieldIdAllocator full = new FieldIdAllocator(Integer.MAX_VALUE - 1);
    assertThat(full.next()).isEqualTo(Integer.MAX_VALUE);
    assertThatExceptionOfType(InvalidArgumentException.class).isThrownBy(full::next);
  }

  @Test
  void idsOfDroppedFieldsAreNeverReused() {
    FieldIdAllocator allocator = new FieldIdAllocator(-1);
    Schema v1 =
        Schema.fromArrow(
            as(af("a", INT32), af("b", ArrowType.Struct.INSTANCE, af("x", INT32), af("y", INT32))),
            allocator);
    assertThat(v1.maxFieldId()).isEqualTo(3);
    int highWaterMark = allocator.maxAllocated(); // what the manifest persists
    assertThat(highWaterMark).isEqualTo(3);

    // Drop "b" (ids 1..3): the schema forgets them, the high-water mark does not.
    Schema v2 = new Schema(List.of(v1.findTopLevel("a").orElseThrow()), v1.metadata());
    assertThat(v2.maxFieldId()).isEqualTo(0);

    // Re-add a column named "b" in a later commit: it gets new ids.
    FieldIdAllocator later = new FieldIdAllocator(highWaterMark);
    Field newB = Field.fromArrow(af("b", ArrowType.Struct.INSTANCE, af("x", INT32)), -1, later);
    List<Field> fields = new ArrayList<>(v2.fields());
    fields.add(newB);
    Schema v3 = new Schema(fields, v2.metadata());

    assertThat(v3.allFields().stream().map(Field::id).collect(Collectors.toList())).isEqualTo(List.of(0, 4, 5));
    for (Field f : v1.allFields()) {
      if (f.id() != 0) {
        assertThat(v3.findField(f.id()).isEmpty()).as("id " + f.id() + " reused").isTrue();
      }
    }
    assertThat(v3.field(5).parentId()).isEqualTo(4);
    assertThat(later.maxAllocated()).isEqualTo(5);
  }

  @Test
  void rejectedFieldConsumesNoIds() {
    FieldIdAllocator allocator = new FieldIdAllocator(7);
    assertThatExceptionOfType(InvalidSchemaException.class).isThrownBy(() -> Field.fromArrow(af("s", ArrowType.Struct.INSTANCE, af("n", ArrowType.Null.INSTANCE)), -1, allocator));
    assertThat(allocator.maxAllocated()).isEqualTo(7);
    assertThat(Field.fromArrow(af("ok", INT32), -1, allocator).id()).isEqualTo(8);
  }
}
