package io.quiver.dataset;

import static io.quiver.dataset.ScanFixture.rows;
import static io.quiver.dataset.ScanFixture.rowsByAddress;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.predicate.Predicate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Scanner#filter}: exactly the rows for which the predicate is true on the merged view (deletions,
 * overlays on top-level and struct members), with projections that leave the filter's columns out, nested
 * fields, {@code _rowaddr}, batch sizes and limits; typed errors for filters that do not fit the table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScanFilterTest {
  private RootAllocator allocator;
  private Dataset table;

  @BeforeAll
  void setUp() {
    allocator = new RootAllocator();
    table = ScanFixture.create(ScanFixture.newUri(), allocator, ScanFixture.options(allocator));
  }

  @AfterAll
  void tearDown() {
    table.close();
    allocator.close();
  }

  static final List<Predicate> FILTERS = List.of(
      Predicate.gt("id", 50L),
      Predicate.and(Predicate.ge("id", 20L), Predicate.lt("id", 170L), Predicate.isNotNull("name")),
      Predicate.or(Predicate.eq("name", "upd"), Predicate.isNull("s")),
      Predicate.gt("s.x", 100),
      Predicate.not(Predicate.gt("s.x", 100)),
      Predicate.eq("s.x", 999),
      Predicate.in("id", 1L, 2L, 3L, 150L, 151L, 198L, 199L, 1000L),
      Predicate.isNull("tags"),
      Predicate.eq("s.y", "y42"),
      Predicate.ne("name", "upd"),
      Predicate.FALSE);

  static final List<List<String>> PROJECTIONS = List.of(
      List.of("id", "name", "s", "tags"), List.of("name"), List.of("s.y"), List.of("tags", "id"), List.of());

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Predicate p : FILTERS) {
      for (List<String> columns : PROJECTIONS) {
        out.add(Arguments.of(p, columns));
      }
    }
    return out.stream();
  }

  /** Addresses of the live rows for which {@code p} is true, from a full-width scan evaluated here. */
  private Set<Long> matching(Predicate p) {
    return matching.computeIfAbsent(p, this::evaluateHere);
  }

  private final Map<Predicate, Set<Long>> matching = new java.util.HashMap<>();

  private Set<Long> evaluateHere(Predicate p) {
    Set<Long> out = new HashSet<>();
    try (ArrowReader reader = table.newScan().withRowAddress(true).open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BitSet hits = p.evaluate(root);
        UInt8Vector addresses = (UInt8Vector) root.getVector(RowAddress.COLUMN);
        hits.stream().forEach(i -> out.add(addresses.get(i)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  @ParameterizedTest(name = "{0} over {1}")
  @MethodSource("cases")
  void filteredScanIsTheUnfilteredScansMatchingRows(Predicate p, List<String> columns) {
    Set<Long> matching = matching(p);
    Map<Long, String> expected = new LinkedHashMap<>();
    rowsByAddress(table.newScan().columns(columns).withRowAddress(true).open()).forEach((a, row) -> {
      if (matching.contains(a)) {
        expected.put(a, row);
      }
    });
    Map<Long, String> actual = rowsByAddress(table.newScan().columns(columns).filter(p).withRowAddress(true).open());
    assertThat(actual.entrySet()).containsExactlyElementsOf(expected.entrySet());
    // Without _rowaddr: the same rows, and the output holds only the projected columns.
    List<String> plain = rows(table.newScan().columns(columns).filter(p).batchSize(7).open(), 7);
    assertThat(plain).hasSize(expected.size());
    try (ArrowReader reader = table.newScan().columns(columns).filter(p).open()) {
      assertThat(reader.getVectorSchemaRoot().getSchema())
          .isEqualTo(table.newScan().columns(columns).open().getVectorSchemaRoot().getSchema());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aNullComparisonIsNotTrueSoNeitherTheFilterNorItsNegationReturnsTheRow() {
    long above = count(table.newScan().filter(Predicate.gt("s.x", 100)));
    long notAbove = count(table.newScan().filter(Predicate.not(Predicate.gt("s.x", 100))));
    long unknown = count(table.newScan().filter(Predicate.isNull("s.x")));
    assertThat(unknown).as("rows whose s.x or s is null").isPositive();
    assertThat(above + notAbove + unknown).isEqualTo(table.countRows());
    // A null struct makes its members null: s IS NULL implies s.x IS NULL.
    assertThat(count(table.newScan().filter(Predicate.and(Predicate.isNull("s"), Predicate.isNotNull("s.x")))))
        .isZero();
  }

  @Test
  void theFilterSeesOverlaysAndNeverDeletedRows() {
    // name = "upd" only through overlays: 10..19 and 155..157.
    assertThat(ids(table.newScan().filter(Predicate.eq("name", "upd"))))
        .containsExactly(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 155L, 156L, 157L);
    // s.x = 999 through an overlay on a struct member; id 104's struct is null, so its s.x is null.
    assertThat(ids(table.newScan().filter(Predicate.eq("s.x", 999)))).containsExactly(100L, 101L, 102L, 103L);
    // Deleted ids never come back, whatever the filter says.
    assertThat(ids(table.newScan().filter(Predicate.in("id", 3L, 4L, 40L, 66L, 150L, 199L, 7L)))).containsExactly(7L);
  }

  @Test
  void aLimitCountsMatchingRowsInScanOrderAcrossFragmentsAndBatches() {
    Predicate p = Predicate.gt("id", 55L);
    List<Long> all = ids(table.newScan().filter(p));
    for (long limit : new long[] {0, 1, 3, 7, 40, 1_000}) {
      List<Long> limited = ids(table.newScan().filter(p).limit(limit).batchSize(3));
      assertThat(limited).containsExactlyElementsOf(all.subList(0, (int) Math.min(limit, all.size())));
    }
    assertThat(rows(table.newScan().columns("name").filter(p).limit(5).batchSize(2).open(), 2)).hasSize(5);
  }

  @Test
  void aNestedFilterWithANestedProjectionKeepsStructNullsOfTheMergedView() {
    // Project s.y, filter on s.x (not projected): s is narrowed to {y}; its nulls are the merged view's.
    List<String> rows = rows(table.newScan().columns("s.y", "id").filter(
        Predicate.or(Predicate.isNull("s.x"), Predicate.eq("s.x", 999))).open());
    assertThat(rows).contains("s=null | id=16"); // 16 % 11 == 5: s is null
    assertThat(rows).contains("s={\"y\":\"y101\"} | id=101"); // s.x from the overlay, y from the base
    assertThat(rows).contains("s=null | id=104"); // the overlay on s.x leaves the null struct null
    assertThat(rows).allMatch(r -> !r.contains("\"x\""));
  }

  @Test
  void filtersThatDoNotFitTheTableFailWithTypedErrorsBeforeAnythingIsRead() {
    assertThatThrownBy(() -> table.newScan().filter(Predicate.eq("nope", 1L)))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("no column 'nope'").hasMessageContaining("columns are [id, name, s, s.x, s.y, tags]");
    assertThatThrownBy(() -> table.newScan().filter(Predicate.eq("id", "seven")))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("cannot compare column 'id'").hasMessageContaining("String")
        .hasMessageContaining("write the literal as the column's type");
    assertThatThrownBy(() -> table.newScan().filter(Predicate.gt("s", 1)))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("'s'");
    assertThatThrownBy(() -> table.newScan().filter(Predicate.eq("tags.item", 1)))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("lies inside");
    assertThatThrownBy(() -> table.newScan().filter(Predicate.eq(RowAddress.COLUMN, 1L)))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("Dataset.take");
    assertThatThrownBy(() -> table.newScan().filter(null))
        .isInstanceOf(InvalidArgumentException.class).hasMessageContaining("Predicate.TRUE");
    assertThatThrownBy(() -> table.newScan().limit(-1)).isInstanceOf(InvalidArgumentException.class);
  }

  @Test
  void trueIsNoFilterAndFalseReturnsNothing() {
    assertThat(count(table.newScan().filter(Predicate.TRUE))).isEqualTo(table.countRows());
    assertThat(count(table.newScan().filter(Predicate.FALSE))).isZero();
  }

  private static long count(Scanner scanner) {
    return rows(scanner.open()).size();
  }

  private static List<Long> ids(Scanner scanner) {
    List<Long> out = new ArrayList<>();
    try (ArrowReader reader = scanner.columns("id").open()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          out.add((Long) root.getVector("id").getObject(i));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
