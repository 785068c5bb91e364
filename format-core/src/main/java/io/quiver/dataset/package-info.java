/**
 * The entry points and the values they take and return.
 *
 * <p>{@link io.quiver.dataset.Dataset} is a handle on one version of a table: open or create one, scan it
 * ({@link io.quiver.dataset.Scanner}), change it (append, overwrite, delete, update, compact, restore,
 * config, tags), evolve its columns, and commit distributed writes. Options
 * ({@link io.quiver.dataset.DatasetOptions}, {@link io.quiver.dataset.CommitOptions}) and results are
 * immutable values. Everything here is supported API.
 */
package io.quiver.dataset;
