package io.quiver.conformance;

import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.support.AnnotationConsumer;
import org.junit.jupiter.params.support.ParameterDeclarations;
import org.junit.jupiter.params.provider.ArgumentsProvider;

/**
 * The arguments of {@link OnStores}: one fresh fixture per store, named after it. The stream is lazy, so a
 * fixture exists only while its invocation runs (JUnit closes it at the end of the invocation).
 */
public final class OnStoresArguments implements ArgumentsProvider, AnnotationConsumer<OnStores> {
  private Class<? extends StoreFixture>[] fixtures;

  @Override
  public void accept(OnStores annotation) {
    fixtures = annotation.value();
  }

  @Override
  public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters, ExtensionContext context) {
    if (fixtures == null || fixtures.length == 0) {
      throw new IllegalStateException(context.getDisplayName() + ": @OnStores names no store fixture");
    }
    Set<String> only = filter();
    return Arrays.stream(fixtures)
        .map(OnStoresArguments::create)
        .filter(fixture -> {
          boolean selected = only.isEmpty() || only.contains(fixture.name().toLowerCase(Locale.ROOT));
          if (!selected) {
            fixture.close();
          }
          return selected;
        })
        .map(fixture -> Arguments.argumentSet(fixture.name(), fixture));
  }

  private static Set<String> filter() {
    String value = System.getProperty(OnStores.FILTER, "").trim();
    if (value.isEmpty()) {
      return Set.of();
    }
    return Arrays.stream(value.split(","))
        .map(s -> s.trim().toLowerCase(Locale.ROOT))
        .filter(s -> !s.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
  }

  private static StoreFixture create(Class<? extends StoreFixture> type) {
    try {
      return type.getConstructor().newInstance();
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("could not create the store fixture " + type.getName() + ": " + e.getCause(),
          e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "store fixture " + type.getName() + " needs a public no-argument constructor (@OnStores creates it)", e);
    }
  }
}
