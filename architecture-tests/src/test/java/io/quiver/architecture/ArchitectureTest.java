package io.quiver.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * The dependency rules of Quiver's modules (docs/architecture.md): what is API, what is internal, and who
 * may depend on what. Imports every module's main classes (this module depends on all of them).
 */
@AnalyzeClasses(packages = "io.quiver", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  /** The handles a caller acts on a table through. Internal code is called by them, never the reverse. */
  static final Class<?>[] ENTRY_POINTS = EntryPoints.CLASSES;

  static final String INTERNAL = "io.quiver.internal..";
  static final String[] ADAPTERS = {
      "io.quiver.store.local..", "io.quiver.store.s3..", "io.quiver.store.gcs..", "io.quiver.store.azure.."};
  /** What an adapter may use of Quiver: the ports and SPI, their support package, the exceptions. */
  static final String[] SPI = {"io.quiver.store", "io.quiver.store.support", "io.quiver.exceptions"};

  @ArchTest
  static final ArchRule internal_code_never_depends_on_the_entry_points =
      noClasses().that().resideInAPackage(INTERNAL)
          .should().dependOnClassesThat(belongToAnyOf(ENTRY_POINTS))
          .because("the engine is called by the entry points; a call back would make the API a layer of the"
              + " engine and let every internal change leak into it");

  @ArchTest
  static final ArchRule adapters_depend_only_on_the_spi =
      noClasses().that().resideInAnyPackage(ADAPTERS)
          .should().dependOnClassesThat(resideInAPackage("io.quiver..")
              .and(not(resideInAnyPackage(SPI)))
              .and(not(resideInAnyPackage(ADAPTERS)))
              .as("Quiver classes outside the store SPI (io.quiver.store, io.quiver.store.support,"
                  + " io.quiver.exceptions)"))
          .because("an adapter implements the storage port and nothing else; the engine may change freely");

  @ArchTest
  static final ArchRule adapters_are_independent_of_each_other =
      slices().matching("io.quiver.store.(local|s3|gcs|azure)..").should().notDependOnEachOther();

  @ArchTest
  static final ArchRule tools_and_adapters_use_no_internals =
      noClasses().that().resideInAnyPackage(concat(ADAPTERS, "io.quiver.cli..", "io.quiver.bench..",
              "io.quiver.examples..", "io.quiver.spark..", "io.quiver.flink.."))
          .should().dependOnClassesThat().resideInAPackage(INTERNAL)
          .because("the CLI, the benchmarks, the examples and the Spark and Flink connectors use Quiver as its users"
              + " do, through the API");

  @ArchTest
  static final ArchRule the_dataset_api_does_not_depend_on_checkpointing =
      noClasses().that().resideInAPackage("io.quiver.dataset")
          .should().dependOnClassesThat().resideInAPackage("io.quiver.checkpoint..")
          .because("checkpointed writes are a layer over Dataset (the dataset <-> checkpoint cycle is broken)");

  @ArchTest
  static final ArchRule the_public_packages_are_free_of_cycles =
      slices().matching("io.quiver.(*)..")
          .that(DescribedPredicate.describe("are public API packages",
              s -> !s.getDescription().contains("internal")))
          .should().beFreeOfCycles()
          .ignoreDependency(resideInAPackage("io.quiver.internal.."), DescribedPredicate.alwaysTrue())
          .ignoreDependency(DescribedPredicate.alwaysTrue(), resideInAPackage("io.quiver.internal.."));

  @ArchTest
  static final ArchRule the_public_api_does_not_expose_internal_types =
      members().that().areDeclaredInClassesThat(publicApiClass())
          .and().haveModifier(JavaModifier.PUBLIC)
          .should(notMentionInternalTypes())
          .because("a type in a public signature is API; internal types may change in any release");

  private static DescribedPredicate<JavaClass> publicApiClass() {
    return DescribedPredicate.describe("public classes of public packages",
        c -> c.getModifiers().contains(JavaModifier.PUBLIC)
            && c.getPackageName().startsWith("io.quiver.")
            && !c.getPackageName().startsWith("io.quiver.internal")
            && !c.getPackageName().startsWith("io.quiver.cli")
            && !c.getPackageName().startsWith("io.quiver.bench")
            && !c.getPackageName().startsWith("io.quiver.examples")
            && isPubliclyReachable(c));
  }

  private static boolean isPubliclyReachable(JavaClass c) {
    for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
      if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return true;
  }

  private static ArchCondition<JavaMember> notMentionInternalTypes() {
    return new ArchCondition<>("not mention io.quiver.internal types in their signature") {
      @Override
      public void check(JavaMember member, ConditionEvents events) {
        List<JavaClass> mentioned = new ArrayList<>();
        if (member instanceof JavaField field) {
          mentioned.addAll(field.getType().getAllInvolvedRawTypes());
        } else if (member instanceof JavaCodeUnit unit) {
          mentioned.addAll(unit.getReturnType().getAllInvolvedRawTypes());
          unit.getParameterTypes().forEach(t -> mentioned.addAll(t.getAllInvolvedRawTypes()));
          unit.getThrowsClause().getTypes().forEach(mentioned::add);
        }
        for (JavaClass type : mentioned) {
          if (type.getPackageName().startsWith("io.quiver.internal")) {
            events.add(SimpleConditionEvent.violated(member,
                member.getFullName() + " exposes internal type " + type.getName()));
          }
        }
      }
    };
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
