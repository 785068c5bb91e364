/** Turns JMH results into {@code benchmarks/RESULTS.md}: each Quiver figure beside its baseline, as a ratio. */
package io.quiver.bench.report;
