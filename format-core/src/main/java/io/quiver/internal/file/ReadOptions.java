package io.quiver.internal.file;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.store.FetchTuning;

/**
 * Tuning of {@link DataFileReader} and of the scans' fetch plan ({@link FetchPlan}, {@link Prefetch};
 * docs/scan-planning.md, "Fetching").
 *
 * @param coalesceGapBytes wanted byte ranges separated by at most this many bytes are fetched with one
 *     {@code readRange}: on object stores a request costs far more than a few extra kilobytes. 0 fetches
 *     exactly the wanted bytes (touching ranges are still merged).
 * @param targetRequestBytes a scan's fetch plan merges the wanted buffers of consecutive batches into
 *     requests of at most this many bytes (a single buffer larger than this is fetched by several requests
 *     of this size into one buffer)
 * @param requestsInFlight most requests a scan's fragment reader has issued and not yet seen complete; 0
 *     fetches on the reading thread when the decoder reaches a request (coalesced, but nothing read ahead
 *     and no fetch thread started)
 * @param prefetchBytes most bytes of fetched or in-flight requests a fragment reader holds before the
 *     decoder has consumed them; the request the decoder waits for is issued even when it alone exceeds
 *     this
 * @param planned false turns fetch plans off: each batch is fetched with its own requests when the decoder
 *     reaches it (one request per run of its wanted buffers), as before fetch plans existed; for
 *     comparisons
 * @param takeGapBytes {@code take}'s point reads ({@link PointReader}) fetch wanted ranges at most this many
 *     bytes apart with one request
 */
public record ReadOptions(int coalesceGapBytes, long targetRequestBytes, int requestsInFlight, long prefetchBytes,
    boolean planned, int takeGapBytes) {
  /** Default gap: 8 KiB ({@link FetchTuning#DEFAULT}; a store may choose another, {@link FetchTuning}). */
  public static final int DEFAULT_COALESCE_GAP_BYTES = FetchTuning.DEFAULT.coalesceGapBytes();
  /**
   * Default request size: 8 MiB, where one S3 (or GCS, Azure) GET reaches most of a connection's throughput
   * while its first byte still costs only one round trip; larger requests delay the first batch.
   */
  public static final long DEFAULT_TARGET_REQUEST_BYTES = FetchTuning.DEFAULT.requestBytes();
  /** Default requests in flight: 4. */
  public static final int DEFAULT_REQUESTS_IN_FLIGHT = FetchTuning.DEFAULT.requestsInFlight();
  /** Default read-ahead budget: 64 MiB (in-flight and fetched requests not yet decoded). */
  public static final long DEFAULT_PREFETCH_BYTES = 64L << 20;
  /** Most requests in flight a reader may ask for. */
  public static final int MAX_REQUESTS_IN_FLIGHT = FetchTuning.MAX_REQUESTS_IN_FLIGHT;

  public ReadOptions {
    new FetchTuning(coalesceGapBytes, targetRequestBytes, requestsInFlight, takeGapBytes); // checks them alike
    if (prefetchBytes < 0) {
      throw new InvalidArgumentException(
          "prefetchBytes must be >= 0, got " + prefetchBytes + "; the default is " + DEFAULT_PREFETCH_BYTES
              + " (64 MiB)");
    }
  }

  /** These settings, with the default gap for take. */
  public ReadOptions(
      int coalesceGapBytes, long targetRequestBytes, int requestsInFlight, long prefetchBytes, boolean planned) {
    this(coalesceGapBytes, targetRequestBytes, requestsInFlight, prefetchBytes, planned, DEFAULT_COALESCE_GAP_BYTES);
  }

  /** The defaults, with another coalescing gap. */
  public ReadOptions(int coalesceGapBytes) {
    this(coalesceGapBytes, DEFAULT_TARGET_REQUEST_BYTES, DEFAULT_REQUESTS_IN_FLIGHT, DEFAULT_PREFETCH_BYTES, true);
  }

  /** These options with fetch plans off ({@link #planned()} false). */
  public ReadOptions unplanned() {
    return new ReadOptions(coalesceGapBytes, targetRequestBytes, requestsInFlight, prefetchBytes, false, takeGapBytes);
  }

  public static ReadOptions defaults() {
    return new ReadOptions(DEFAULT_COALESCE_GAP_BYTES);
  }
}
