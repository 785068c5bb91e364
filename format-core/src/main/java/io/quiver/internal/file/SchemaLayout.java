package io.quiver.internal.file;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType.ArrowTypeID;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * How a schema maps onto IPC field nodes and buffers, and which fields are atomic columns.
 *
 * <p>IPC lays out one field node per field and {@link TypeLayout#getTypeBufferCount} buffers per field,
 * in depth-first preorder; a field's subtree is therefore a contiguous run of nodes and buffers, which
 * is what lets a projected read pick byte ranges without decoding anything else.
 */
final public class SchemaLayout {
  /** Deepest nesting accepted; deeper schemas are almost certainly hostile and would blow the stack. */
  static final int MAX_DEPTH = 64;

  final Field[] fields; // preorder
  final int[] parent; // preorder index of the parent, -1 for top-level fields
  final int[] depth;
  final int[] subtreeEnd; // exclusive preorder index after the field's subtree
  final int[] bufferStart;
  final int[] bufferCount;
  final int totalBuffers;
  final int[] atomicField; // preorder index of each atomic column
  final String[] atomicPath;

  SchemaLayout(Schema schema) {
    List<Field> pre = new ArrayList<>();
    List<Integer> parents = new ArrayList<>();
    List<Integer> depths = new ArrayList<>();
    for (Field f : schema.getFields()) {
      collect(f, -1, 0, pre, parents, depths);
    }
    int n = pre.size();
    fields = pre.toArray(new Field[0]);
    parent = new int[n];
    depth = new int[n];
    subtreeEnd = new int[n];
    bufferStart = new int[n];
    bufferCount = new int[n];
    int buffers = 0;
    for (int i = 0; i < n; i++) {
      parent[i] = parents.get(i);
      depth[i] = depths.get(i);
      bufferStart[i] = buffers;
      bufferCount[i] = TypeLayout.getTypeBufferCount(fields[i].getType());
      buffers += bufferCount[i];
    }
    totalBuffers = buffers;
    for (int i = n - 1; i >= 0; i--) {
      int end = i + 1;
      while (end < n && isDescendant(end, i)) {
        end = subtreeEnd[end];
      }
      subtreeEnd[i] = end;
    }
    List<Integer> atomics = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (isStruct(fields[i]) || !ancestorsAreStructs(i)) {
        continue;
      }
      atomics.add(i);
      paths.add(path(i));
    }
    atomicField = atomics.stream().mapToInt(Integer::intValue).toArray();
    atomicPath = paths.toArray(new String[0]);
  }

  private static void collect(
      Field f, int parentIndex, int d, List<Field> pre, List<Integer> parents, List<Integer> depths) {
    int me = pre.size();
    pre.add(f);
    parents.add(parentIndex);
    depths.add(d);
    for (Field c : f.getChildren()) {
      collect(c, me, d + 1, pre, parents, depths);
    }
  }

  private boolean isDescendant(int candidate, int ancestor) {
    for (int p = parent[candidate]; p >= 0; p = parent[p]) {
      if (p == ancestor) {
        return true;
      }
    }
    return false;
  }

  private boolean ancestorsAreStructs(int i) {
    for (int p = parent[i]; p >= 0; p = parent[p]) {
      if (!isStruct(fields[p])) {
        return false;
      }
    }
    return true;
  }

  String path(int fieldIndex) {
    StringBuilder sb = new StringBuilder(fields[fieldIndex].getName());
    for (int p = parent[fieldIndex]; p >= 0; p = parent[p]) {
      sb.insert(0, '.').insert(0, fields[p].getName());
    }
    return sb.toString();
  }

  int fieldCount() {
    return fields.length;
  }

  static boolean isStruct(Field f) {
    return f.getType().getTypeID() == ArrowTypeID.Struct;
  }

  /**
   * The first field (by dotted path) that cannot live in a data file, with the reason; null if none.
   * Only types whose round trip is tested are accepted: views, unions, run-end encoding, dictionaries
   * and the null type are not.
   */
  static String firstUnsupported(Schema schema) {
    for (Field f : schema.getFields()) {
      String p = firstUnsupported(f, "", 0);
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  private static String firstUnsupported(Field f, String prefix, int d) {
    String path = prefix.isEmpty() ? f.getName() : prefix + "." + f.getName();
    String own = d > MAX_DEPTH ? "it is nested deeper than " + MAX_DEPTH + " levels" : ownProblem(f);
    if (own != null) {
      return "field '" + path + "' (" + f.getType() + "): " + own;
    }
    for (Field c : f.getChildren()) {
      String p = firstUnsupported(c, path, d + 1);
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  /** What is wrong with this field's own type and child count, ignoring its descendants. */
  private static String ownProblem(Field f) {
    if (f.getDictionary() != null) {
      return "it is dictionary-encoded, and data files hold no dictionaries; decode it first";
    }
    ArrowType t = f.getType();
    int children = f.getChildren().size();
    return switch (t.getTypeID()) {
      case Bool, Utf8, LargeUtf8, Binary, LargeBinary, Duration, Timestamp, Interval -> leaf(children);
      case Date -> ((ArrowType.Date) t).getUnit() == null ? "date without unit" : leaf(children);
      case Int -> {
        int w = ((ArrowType.Int) t).getBitWidth();
        yield (w == 8 || w == 16 || w == 32 || w == 64) ? leaf(children) : "integer bit width " + w;
      }
      case FloatingPoint -> {
        FloatingPointPrecision p = ((ArrowType.FloatingPoint) t).getPrecision();
        yield p == null ? "floating point without precision" : leaf(children);
      }
      case FixedSizeBinary -> {
        int w = ((ArrowType.FixedSizeBinary) t).getByteWidth();
        yield w <= 0 ? "fixed-size binary of width " + w + " (must be > 0)" : leaf(children);
      }
      case Decimal -> {
        int w = ((ArrowType.Decimal) t).getBitWidth();
        yield (w != 128 && w != 256) ? "decimal bit width " + w + " (128 and 256 are supported)" : leaf(children);
      }
      case Time -> {
        ArrowType.Time time = (ArrowType.Time) t;
        int expected = time.getUnit() == TimeUnit.SECOND || time.getUnit() == TimeUnit.MILLISECOND ? 32 : 64;
        yield time.getBitWidth() != expected
            ? "time in " + time.getUnit() + " must have bit width " + expected + ", not " + time.getBitWidth()
            : leaf(children);
      }
      case List, LargeList -> children == 1 ? null : "a list needs exactly 1 child, found " + children;
      case FixedSizeList -> {
        int size = ((ArrowType.FixedSizeList) t).getListSize();
        yield size <= 0
            ? "fixed-size list of size " + size + " (must be > 0)"
            : children == 1 ? null : "a fixed-size list needs exactly 1 child, found " + children;
      }
      case Map ->
          children == 1 && isStruct(f.getChildren().get(0)) && f.getChildren().get(0).getChildren().size() == 2
              ? null
              : "a map needs one struct child holding a key and a value";
      case Struct -> {
        // StructVector keys children by name: duplicates would silently drop a child
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Field c : f.getChildren()) {
          if (!names.add(c.getName())) {
            yield "a struct cannot have two children named '" + c.getName() + "'";
          }
        }
        yield null;
      }
      default ->
          "this type is not supported in data files (supported: integers, floats, bool, (large) utf8 and"
              + " binary, fixed-size binary, decimal128/256, date, time, timestamp, duration, interval,"
              + " (large/fixed-size) list, map, struct)";
    };
  }

  private static String leaf(int children) {
    return children == 0 ? null : "a primitive type cannot have children, found " + children;
  }
}
