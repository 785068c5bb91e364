/** Quiver for Flink 2.3: an exactly-once sink committed on checkpoints, and a source. See docs/flink.md. */
package io.quiver.flink;
