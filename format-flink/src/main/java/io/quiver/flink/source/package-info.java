/**
 * A FLIP-27 source reading a Quiver table: {@link io.quiver.flink.source.QuiverSource}. A bounded read of one
 * version, or a continuous read that follows the table's appends. One split per Quiver scan task.
 */
package io.quiver.flink.source;
