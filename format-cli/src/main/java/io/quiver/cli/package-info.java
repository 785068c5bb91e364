/**
 * The {@code quiver} command line: picocli commands (info, log, diff, scan, import, validate, delete,
 * update, add/drop/rename column, compact, cleanup, restore, tag, demo) over the public API only. Exit
 * codes are decided in one place, {@code Main.exitCode}.
 */
package io.quiver.cli;
