/** The Lance side of the benchmarks, through Lance's Java SDK. */
package io.quiver.bench.lance;
