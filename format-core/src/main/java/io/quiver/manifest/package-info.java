/**
 * The table model as it is stored: a {@link io.quiver.manifest.Manifest} per version, its
 * {@link io.quiver.manifest.Fragment}s, data files, deletion files, overlays and the idempotence ledger.
 * Immutable records, readable by anyone (tools, engines planning scans); only the engine writes them.
 * Supported API; the encoding is in {@code docs/format.md}.
 */
package io.quiver.manifest;
