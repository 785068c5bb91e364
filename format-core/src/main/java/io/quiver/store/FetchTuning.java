package io.quiver.store;

import io.quiver.exceptions.InvalidArgumentException;

/**
 * The request shape a store asks readers to use ({@link ObjectStore#fetchTuning()}): what one request
 * costs on it decides how far apart two wanted byte ranges may be and still share a request, how large a
 * request should be, and how many a scan keeps in flight. A caller's explicit {@code DatasetOptions}
 * setting wins over each of these (docs/scan-planning.md, "Fetching").
 *
 * @param coalesceGapBytes wanted ranges at most this many bytes apart are fetched by one request (at least
 *     0): the bytes of the gap are cheaper than another request
 * @param requestBytes the size a scan's fetch plan aims at for one request (at least 1)
 * @param requestsInFlight requests one fragment reader of a scan keeps in flight on fetch threads, 0 to
 *     {@value #MAX_REQUESTS_IN_FLIGHT}; 0 fetches on the reading thread (where a read costs less than
 *     handing it to another thread)
 * @param takeGapBytes {@code take}'s point reads fetch wanted ranges at most this many bytes apart with one
 *     request (at least 0). Smaller than a scan's gap: a point read's merged ranges have no request-size
 *     bound, so every wanted row can add up to this many bytes
 */
public record FetchTuning(int coalesceGapBytes, long requestBytes, int requestsInFlight, int takeGapBytes) {
  /** Most requests in flight a reader may be asked for. */
  public static final int MAX_REQUESTS_IN_FLIGHT = 64;

  /**
   * Local disk and memory: an 8 KiB gap, 8 MiB requests, fetched on the reading thread (a read costs less
   * than a hand-over to a fetch thread), an 8 KiB gap for take.
   */
  public static final FetchTuning LOCAL = new FetchTuning(8 << 10, 8L << 20, 0, 8 << 10);

  /**
   * The port's default, for a store that says nothing: an 8 KiB gap, 8 MiB requests, 4 in flight, an 8 KiB
   * gap for take (the values readers used before stores chose them).
   */
  public static final FetchTuning DEFAULT = new FetchTuning(8 << 10, 8L << 20, 4, 8 << 10);

  /**
   * Cloud object stores (S3, GCS, Azure), where a GET costs tens of milliseconds before its first byte: a
   * 1 MiB gap (reading another column's buffers between two wanted ones is cheaper than a request; Trino's
   * and Iceberg's S3 readers merge at similar distances), 8 MiB requests, 8 in flight per fragment reader
   * (8 × 8 MiB is the default 64 MiB read-ahead budget), and a 256 KiB gap for take (on benchmark 3's
   * table it cut a take's GETs from 509 to 183 for 1.8× the bytes; 1 MiB merged no more). {@code
   * ObjectStoreScanBench} and {@code ObjectStoreTakeBench} (benchmarks/RESULTS.md, "Store-chosen fetch
   * tuning") measured them.
   */
  public static final FetchTuning CLOUD = new FetchTuning(1 << 20, 8L << 20, 8, 256 << 10);

  public FetchTuning {
    if (coalesceGapBytes < 0) {
      throw new InvalidArgumentException(
          "coalesceGapBytes must be >= 0, got " + coalesceGapBytes + "; use 0 to merge only touching ranges");
    }
    if (requestBytes < 1) {
      throw new InvalidArgumentException(
          "requestBytes must be >= 1, got " + requestBytes + "; the usual value is 8388608 (8 MiB)");
    }
    if (requestsInFlight < 0 || requestsInFlight > MAX_REQUESTS_IN_FLIGHT) {
      throw new InvalidArgumentException("requestsInFlight must be in [0, " + MAX_REQUESTS_IN_FLIGHT + "], got "
          + requestsInFlight + "; 0 fetches on the reading thread");
    }
    if (takeGapBytes < 0) {
      throw new InvalidArgumentException(
          "takeGapBytes must be >= 0, got " + takeGapBytes + "; use 0 to merge only touching ranges");
    }
  }
}
