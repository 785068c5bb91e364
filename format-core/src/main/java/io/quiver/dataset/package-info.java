/**
 * The entry points and the values they take and return.
 *
 * <p>{@link io.quiver.dataset.Dataset} is a handle on one version of a table: open or create one, scan it
 * ({@link io.quiver.dataset.Scanner}), change it (append, overwrite, delete, update, compact, restore,
 * config, tags), change its columns ({@link io.quiver.dataset.DatasetColumns}, from {@code columns()}),
 * and commit distributed writes ({@link io.quiver.dataset.DistributedWrites}, from {@code distributed()}). Options
 * ({@link io.quiver.dataset.DatasetOptions}, {@link io.quiver.dataset.CommitOptions}) and results are
 * immutable values. Everything here is supported API.
 */
package io.quiver.dataset;
