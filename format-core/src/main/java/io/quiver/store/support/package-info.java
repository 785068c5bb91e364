/**
 * Support for adapter authors: what every {@link io.quiver.store.ObjectStore} implementation needs and
 * should not write again. An adapter depends on {@code io.quiver.store} (the port, {@link
 * io.quiver.store.StoreArgs} for its argument checks, {@link io.quiver.store.Keys}), on this package and on
 * {@code io.quiver.exceptions}, and on nothing else of Quiver.
 *
 * <ul>
 *   <li>{@link io.quiver.store.support.StoreOptions}: typed option parsing with one message style
 *       ({@code option 's3.x' must be …, found '…'});
 *   <li>{@link io.quiver.store.support.Failure}: the classification of a failed call (not found, store not
 *       found, access denied, unreachable, refused before acting, transient, permanent, outcome unknown) and
 *       the typed exception, with one message style, for each;
 *   <li>{@link io.quiver.store.support.ConditionalPut}: the retry-and-settle loop of {@code putIfAbsent},
 *       with the one metadata key ({@value io.quiver.store.support.ConditionalPut#TOKEN_METADATA_KEY}) under
 *       which an attempt's random token is stored, so that an ambiguous attempt is settled by reading the
 *       token back instead of being reported as "already exists" for the caller's own object;
 *   <li>{@link io.quiver.store.support.Backoff}: jittered exponential backoff (also the commit loop's);
 *   <li>{@link io.quiver.store.support.StoreThreads}: daemon thread factories and bounded upload pools;
 *   <li>{@link io.quiver.store.support.StreamingObjectWriter}: the base of streaming writers (closed-state
 *       guards, position, abort and close that publish once or never).
 * </ul>
 *
 * <p>Supported SPI for adapters; {@code docs/adapter-guide.md} shows how the pieces fit. The core's
 * internals may use it (the commit loop shares {@code Backoff}); the port package does not, so that the
 * dependency points one way.
 */
package io.quiver.store.support;
