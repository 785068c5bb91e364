package io.quiver.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every main source package of every module has a {@code package-info.java}, and each internal one says it
 * is not API. (javac writes no class file for a package-info without annotations, so this reads sources.)
 */
class PackageDocumentationTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyPackageHasAPackageInfo_andInternalOnesSayTheyAreNotApi() throws Exception {
    List<String> missing = new ArrayList<>();
    List<String> internalWithoutNotice = new ArrayList<>();
    List<Path> sourceRoots;
    try (Stream<Path> modules = Files.list(ROOT)) {
      sourceRoots = modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList();
    }
    assertThat(sourceRoots).as("module source roots under %s", ROOT).hasSizeGreaterThan(5);
    for (Path root : sourceRoots) {
      try (Stream<Path> dirs = Files.walk(root)) {
        for (Path dir : dirs.filter(Files::isDirectory).toList()) {
          if (!containsJava(dir)) {
            continue;
          }
          String pkg = root.relativize(dir).toString().replace('/', '.');
          Path info = dir.resolve("package-info.java");
          if (!Files.exists(info)) {
            missing.add(pkg + " (" + ROOT.relativize(dir) + ")");
          } else if (pkg.contains(".internal") && !Files.readString(info).contains("Not API")) {
            internalWithoutNotice.add(pkg);
          }
        }
      }
    }
    assertThat(missing).as("packages without a package-info.java").isEmpty();
    assertThat(internalWithoutNotice).as("internal packages whose package-info does not say 'Not API'").isEmpty();
  }

  private static boolean containsJava(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
