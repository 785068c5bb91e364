package io.quiver.spark.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundle jar on a minimal classpath: Spark 4.2's own jars (spark-sql and everything it brings, Arrow and
 * Jackson included, as a Spark distribution ships them) plus the bundle, and nothing of Quiver's build. A
 * child JVM runs catalog DDL, an INSERT, a filtered read and a path write and read.
 */
class BundleIT {
  @TempDir Path dir;

  @Test
  void theBundleRunsOnSparksOwnClasspath() throws IOException, InterruptedException {
    Path bundle = Path.of(System.getProperty("quiver.spark.bundle"));
    assertThat(bundle).exists();
    Set<String> classpath = new LinkedHashSet<>();
    for (String list : List.of("quiver.spark.provided-classpath", "quiver.spark.shared-classpath")) {
      for (String entry : Files.readString(Path.of(System.getProperty(list))).trim().split(File.pathSeparator)) {
        if (!entry.isBlank()) {
          classpath.add(entry);
        }
      }
    }
    // Nothing of Quiver's own: its modules, and what only Quiver brings (Caffeine, the AWS SDK). Spark ships
    // RoaringBitmap and protobuf-java itself, so they are on Spark's classpath; the bundle uses relocated copies.
    assertThat(classpath).noneMatch(e -> e.contains("io/quiver") || e.contains("caffeine") || e.contains("awssdk"));
    classpath.add(bundle.toString());
    Path source = dir.resolve("BundleSmoke.java");
    try (var in = BundleIT.class.getResourceAsStream("/bundle/BundleSmoke.java")) {
      Files.copy(in, source);
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(System.getProperty("quiver.spark.jvm-flags").trim().split("\\s+")));
    command.add("-Xmx1g");
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath));
    command.add(source.toString());
    command.add(dir.resolve("warehouse").toUri().toString());
    Path log = dir.resolve("out.txt");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    String out = Files.readString(log, StandardCharsets.UTF_8);
    if (!done) {
      p.destroyForcibly();
    }
    assertThat(done).as("the smoke run finished; output:\n" + out).isTrue();
    assertThat(p.exitValue()).as("exit status; output:\n" + out).isZero();
    assertThat(out).contains("rows=[[2,b], [3,c]]").contains("rows=2");
  }
}
