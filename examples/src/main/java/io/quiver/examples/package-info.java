/** The README's Java quickstart as a runnable program; its test keeps the README true. */
package io.quiver.examples;
