/** Deterministic benchmark data sets, shared by the Quiver and Lance sides of a benchmark. */
package io.quiver.bench.data;
