/**
 * Every error Quiver throws: unchecked, rooted at {@link io.quiver.exceptions.QuiverException}; each message
 * says what was expected, what was found and what to do. Supported API.
 */
package io.quiver.exceptions;
