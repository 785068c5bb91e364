package io.quiver.flink.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundle jar on a Flink distribution's own classpath (the jars of its lib/, here PyFlink's copy of Flink 2.3)
 * and nothing of Quiver's build: a child JVM creates an append table and an upsert table through
 * {@code 'connector' = 'quiver'}, writes them with Flink SQL and reads them back.
 */
class FlinkBundleIT {
  @TempDir Path dir;

  @Test
  void theBundleRunsOnFlinksOwnClasspath() throws Exception {
    List<String> classpath = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Path jar : PyFlinkEnvironment.flinkLib()) {
      classpath.add(jar.toString());
      names.add(jar.getFileName().toString());
    }
    assertThat(names).anyMatch(j -> j.startsWith("flink-dist")).anyMatch(j -> j.startsWith("flink-table-planner"))
        .noneMatch(j -> j.contains("quiver") || j.contains("arrow") || j.contains("awssdk"));
    classpath.add(PyFlinkEnvironment.bundle().toString());
    Path source = dir.resolve("FlinkBundleSmoke.java");
    try (var in = FlinkBundleIT.class.getResourceAsStream("/bundle/FlinkBundleSmoke.java")) {
      Files.copy(in, source);
    }
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED",
        "-Xmx1g",
        "-cp", String.join(File.pathSeparator, classpath),
        source.toString(),
        dir.resolve("warehouse").toString()));
    PyFlinkEnvironment.Result result = PyFlinkEnvironment.run(command, Map.of(), dir.resolve("out.txt"));
    assertThat(result.finished()).as("the smoke run finished; output:\n" + result.output()).isTrue();
    assertThat(result.exitStatus()).as("exit status; output:\n" + result.output()).isZero();
    assertThat(result.output()).contains("rows=[2:b, 3:c]").contains("upserted=[1:a, 2:B, 3:c]");
  }
}
