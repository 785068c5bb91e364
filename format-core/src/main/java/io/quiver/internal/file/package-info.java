/**
 * Data files: Arrow IPC files with projected, ranged reads, the footer metadata cache shared by a session,
 * and the writer.
 *
 * <p><b>Not API.</b> Public only so the engine's packages can reach each other; any release may change
 * or remove it. Use {@link io.quiver.dataset.Dataset} and the types it returns.
 */
package io.quiver.internal.file;
