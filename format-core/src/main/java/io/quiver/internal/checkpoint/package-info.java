/**
 * The object-store implementation of {@link io.quiver.checkpoint.CheckpointStore} and the staging layout
 * under {@code _staging/}, which cleanup also reads.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.checkpoint;
