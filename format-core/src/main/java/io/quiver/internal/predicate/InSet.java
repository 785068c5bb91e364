package io.quiver.internal.predicate;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VariableWidthFieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.ReusableByteArray;

/**
 * A hashed {@code IN} list, for the long lists (an upsert's changed keys, a join's keys) where comparing every row
 * with every value costs rows × values: one hash lookup per row instead. Only where a hash lookup is exactly the
 * equality {@link ValueComparator} applies — signed integer columns with integral literals ({@code Byte}, {@code
 * Short}, {@code Integer}, {@code Long}), string columns with {@code String} literals (their UTF-8 bytes) and
 * binary columns with {@code byte[]} literals; every other list is compared value by value. Thread-safe (the
 * scratch buffer of a lookup is per thread), as the evaluator is.
 */
abstract class InSet {
  /** Lists shorter than this are compared value by value: as fast, and no set is built. */
  static final int MIN_VALUES = 8;

  /** True when the value at {@code row} (not null) is in the list. */
  abstract boolean contains(FieldVector vector, int row);

  /** The hashed form of {@code values} for a column of {@code field}'s type, when one is exact. */
  static Optional<InSet> of(Field field, List<Object> values) {
    if (values.size() < MIN_VALUES) {
      return Optional.empty();
    }
    ArrowType t = field.getType();
    if (t instanceof ArrowType.Int i && i.getIsSigned()
        && values.stream().allMatch(v -> v instanceof Byte || v instanceof Short || v instanceof Integer
            || v instanceof Long)) {
      Set<Long> set = new HashSet<>();
      values.forEach(v -> set.add(((Number) v).longValue()));
      return Optional.of(new InSet() {
        @Override
        boolean contains(FieldVector vector, int row) {
          return set.contains(((BaseIntVector) vector).getValueAsLong(row));
        }
      });
    }
    boolean strings = (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8)
        && values.stream().allMatch(String.class::isInstance);
    boolean binaries = (t instanceof ArrowType.Binary || t instanceof ArrowType.LargeBinary)
        && values.stream().allMatch(byte[].class::isInstance);
    if (strings || binaries) {
      Set<ByteBuffer> set = new HashSet<>();
      values.forEach(v -> set.add(ByteBuffer.wrap(strings ? ((String) v).getBytes(StandardCharsets.UTF_8) : (byte[]) v)));
      ThreadLocal<ReusableByteArray> scratch = ThreadLocal.withInitial(ReusableByteArray::new);
      return Optional.of(new InSet() {
        @Override
        boolean contains(FieldVector vector, int row) {
          ReusableByteArray buf = scratch.get();
          ((VariableWidthFieldVector) vector).read(row, buf);
          return set.contains(ByteBuffer.wrap(buf.getBuffer(), 0, (int) buf.getLength()));
        }
      });
    }
    return Optional.empty();
  }
}
