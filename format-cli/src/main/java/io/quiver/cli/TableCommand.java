package io.quiver.cli;

import io.quiver.dataset.CommitOptions;
import io.quiver.dataset.Dataset;
import io.quiver.dataset.DatasetOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** A command on one table: its URI, store settings, and an allocator closed when the command ends. */
abstract class TableCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "<uri>",
      description = "Table URI of any scheme (file://, s3://, gs://, az://, memory://) or a local path.")
  String uri;

  @Option(names = {"-o", "--option"}, paramLabel = "key=value",
      description = "Store setting (repeatable), e.g. --option region=eu-west-1.")
  Map<String, String> storeOptions = new LinkedHashMap<>();

  @Option(names = "--options-file", paramLabel = "<file>", description = "Properties file of store settings.")
  Path optionsFile;

  @Spec
  CommandSpec spec;

  BufferAllocator allocator;

  @Override
  public final Integer call() throws Exception {
    try (BufferAllocator a = new RootAllocator()) {
      allocator = a;
      run();
      out().flush();
      return Main.OK;
    }
  }

  abstract void run() throws Exception;

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  DatasetOptions options() {
    Map<String, String> settings = new LinkedHashMap<>();
    if (optionsFile != null) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(optionsFile)) {
        p.load(r);
      } catch (NoSuchFileException e) {
        throw new UserException("options file " + optionsFile + " does not exist");
      } catch (IOException e) {
        throw new UserException("cannot read options file " + optionsFile + ": " + e.getMessage());
      }
      p.stringPropertyNames().forEach(k -> settings.put(k, p.getProperty(k)));
    }
    settings.putAll(storeOptions);
    return DatasetOptions.builder()
        .allocator(allocator)
        .storeOptions(settings)
        .commitOptions(CommitOptions.defaults().withTimeout(Duration.ofMinutes(2)))
        .build();
  }

  Dataset open() {
    return Dataset.open(uri, options());
  }
}
