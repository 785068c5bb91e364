package io.quiver.spark.read;

import io.quiver.dataset.ScanMetrics;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomSumMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * The Spark custom metrics of a Quiver scan (shown on the scan node in the SQL UI and in {@code
 * SparkPlan.metrics()}): from executors, per task, {@value #TASKS_READ}, {@value #ROWS_READ}, {@value
 * #BYTES_FETCHED} and {@value #FILES_OPENED}; from the driver's planning, {@value #TASKS_PLANNED}, {@value
 * #FRAGMENTS_CONSIDERED} and {@value #FRAGMENTS_PRUNED}. Values come from Quiver's {@link ScanMetrics}.
 */
public final class QuiverMetrics {
  private QuiverMetrics() {}

  public static final String TASKS_READ = "quiverTasksRead";
  public static final String ROWS_READ = "quiverRowsRead";
  public static final String BYTES_FETCHED = "quiverBytesFetched";
  public static final String FILES_OPENED = "quiverFilesOpened";
  public static final String TASKS_PLANNED = "quiverTasksPlanned";
  public static final String FRAGMENTS_CONSIDERED = "quiverFragmentsConsidered";
  public static final String FRAGMENTS_PRUNED = "quiverFragmentsPruned";

  /** A summed metric; Spark instantiates the subclasses by name on the driver. */
  abstract static class Sum extends CustomSumMetric {
    private final String name;
    private final String description;

    Sum(String name, String description) {
      this.name = name;
      this.description = description;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String description() {
      return description;
    }
  }

  public static final class TasksRead extends Sum {
    public TasksRead() {
      super(TASKS_READ, "Quiver scan tasks read");
    }
  }

  public static final class RowsRead extends Sum {
    public RowsRead() {
      super(ROWS_READ, "rows read from Quiver (after its filter)");
    }
  }

  public static final class BytesFetched extends Sum {
    public BytesFetched() {
      super(BYTES_FETCHED, "bytes fetched from the object store");
    }
  }

  public static final class FilesOpened extends Sum {
    public FilesOpened() {
      super(FILES_OPENED, "Quiver data files opened");
    }
  }

  public static final class TasksPlanned extends Sum {
    public TasksPlanned() {
      super(TASKS_PLANNED, "Quiver scan tasks planned");
    }
  }

  public static final class FragmentsConsidered extends Sum {
    public FragmentsConsidered() {
      super(FRAGMENTS_CONSIDERED, "Quiver fragments considered at planning");
    }
  }

  public static final class FragmentsPruned extends Sum {
    public FragmentsPruned() {
      super(FRAGMENTS_PRUNED, "Quiver fragments pruned at planning");
    }
  }

  static CustomMetric[] supported() {
    return new CustomMetric[] {new TasksRead(), new RowsRead(), new BytesFetched(), new FilesOpened(),
        new TasksPlanned(), new FragmentsConsidered(), new FragmentsPruned()};
  }

  /** One task's values (executor side). */
  static CustomTaskMetric[] task(long tasks, ScanMetrics m) {
    return new CustomTaskMetric[] {value(TASKS_READ, tasks), value(ROWS_READ, m.rowsReturned()),
        value(BYTES_FETCHED, m.bytesFetched()), value(FILES_OPENED, m.dataFilesOpened())};
  }

  /** Planning's values (driver side). */
  static CustomTaskMetric[] driver(ScanMetrics m) {
    return new CustomTaskMetric[] {value(TASKS_PLANNED, m.tasksPlanned()),
        value(FRAGMENTS_CONSIDERED, m.fragmentsConsidered()), value(FRAGMENTS_PRUNED, m.fragmentsPruned())};
  }

  static CustomTaskMetric value(String name, long value) {
    return new CustomTaskMetric() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public long value() {
        return value;
      }
    };
  }
}
