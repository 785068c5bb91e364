/**
 * JMH benchmarks of Quiver beside a baseline in the same run (Lance's Java SDK, the raw Arrow reader): append,
 * scan, projected scan, take, overlay update, backfill, concurrent appends, conflict cost and table size.
 * {@code benchmarks/run.sh} runs them and writes {@code benchmarks/RESULTS.md}.
 */
package io.quiver.bench;
