/**
 * Checkpointed distributed writes: workers stage their write results per checkpoint in a
 * {@link io.quiver.checkpoint.CheckpointStore}; {@link io.quiver.checkpoint.CheckpointedWriter} commits each
 * sealed checkpoint exactly once, also after a restart. Supported API; built on {@code io.quiver.dataset}
 * (which never depends on this package).
 */
package io.quiver.checkpoint;
