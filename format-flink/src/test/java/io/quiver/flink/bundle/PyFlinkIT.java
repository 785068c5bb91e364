package io.quiver.flink.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PyFlink 2.3 SQL session (src/test/python/pyflink_journey.py) with the bundle jar in {@code pipeline.jars}:
 * appends, a filtered read and a count, an upsert table with a primary key, and time travel by version. The script
 * checks every row itself and exits non-zero on the first difference.
 */
class PyFlinkIT {
  @TempDir Path dir;

  @Test
  void aPyFlinkSessionWritesAndReadsQuiverTables() throws Exception {
    List<String> command = List.of(
        PyFlinkEnvironment.python().toString(),
        System.getProperty("quiver.pyflink.script"),
        PyFlinkEnvironment.bundle().toString(),
        dir.resolve("warehouse").toString());
    PyFlinkEnvironment.Result result = PyFlinkEnvironment.run(
        command, Map.of("JAVA_HOME", System.getProperty("java.home")), dir.resolve("out.txt"));
    assertThat(result.finished()).as("the PyFlink session finished; output:\n" + result.output()).isTrue();
    assertThat(result.exitStatus()).as("exit status; output:\n" + result.output()).isZero();
    assertThat(result.output())
        .contains("upserted: [(1, 'a'), (2, 'B'), (3, 'c')]")
        .contains("version 2: [(1, 'a'), (2, 'b')]")
        .contains("pyflink journey ok");
  }
}
