package io.quiver.internal.file;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which requests a scan issues for the reads it will make, in the order it makes them: a pure plan, no
 * I/O. A <em>read</em> is what a decoder needs at one time (one batch's projected buffers of one data
 * file, or one struct validity buffer), added in consumption order with the <em>step</em> (the scan's
 * chunk index) at which it is needed.
 *
 * <p>Per data file, the wanted ranges of consecutive reads are merged into <em>spans</em> while the gap
 * between two ranges is at most {@link ReadOptions#coalesceGapBytes()} and the span stays within {@link
 * ReadOptions#targetRequestBytes()} (overlapping ranges always merge: a buffer lives in one span). A
 * range larger than the target on its own becomes one span fetched by several requests of at most the
 * target. Spans are issued in the order of the step that first needs them, so the fetches of several
 * files (a fragment's column files, its overlays) interleave as the decoder needs them; a span is
 * released after the last step that needs it.
 */
public final class FetchPlan {
  /** A single store read of a span is at most this long (a {@code ByteBuffer} is indexed by int). */
  static final long MAX_REQUEST = 1 << 30;

  /**
   * One contiguous byte range of one file, fetched into one buffer.
   *
   * @param firstStep the step of the first read that needs it (issue order)
   * @param lastStep the step of the last read that needs it (it is released after this step)
   * @param reads how many reads take buffers from it: a span of one read is sliced, a span shared by
   *     several is copied out of (so a batch never keeps a large shared buffer alive)
   */
  public record Span(String key, String location, long start, long end, int firstStep, int lastStep, int reads) {
    public long length() {
      return end - start;
    }

    /** Requests of at most {@code target} bytes (and of {@link #MAX_REQUEST}) that fetch it. */
    public int requests(long target) {
      long size = Math.min(Math.max(1, target), MAX_REQUEST);
      return (int) Math.max(1, (length() + size - 1) / size);
    }
  }

  /**
   * Where read {@code read}'s wanted buffers are: per buffer, the index of its span in {@link #spans()}
   * (-1 for an empty buffer) and its offset in that span.
   */
  record Placement(int[] span, long[] offset) {}

  private final List<Span> spans;
  private final List<Placement> placements;

  private FetchPlan(List<Span> spans, List<Placement> placements) {
    this.spans = spans;
    this.placements = placements;
  }

  /** Spans in issue order. */
  public List<Span> spans() {
    return spans;
  }

  /** Reads in the plan. */
  public int readCount() {
    return placements.size();
  }

  Placement placement(int read) {
    return placements.get(read);
  }

  /** Bytes the plan fetches (the wanted bytes plus the gaps merged). */
  public long bytes() {
    return spans.stream().mapToLong(Span::length).sum();
  }

  /** Requests the plan issues with {@code target}-byte requests. */
  public long requests(long target) {
    return spans.stream().mapToLong(s -> s.requests(target)).sum();
  }

  public static Builder builder(ReadOptions options) {
    return new Builder(options);
  }

  /** Collects reads in consumption order; {@link #build()} plans them. */
  public static final class Builder {
    private final ReadOptions options;
    private final List<Read> reads = new ArrayList<>();

    private record Read(String key, String location, int step, long[][] wanted) {}

    private Builder(ReadOptions options) {
      this.options = options;
    }

    /**
     * Adds a read needed at {@code step} (non-decreasing over the calls) of the ranges {@code wanted}
     * ({@code {offset, length}} pairs, in the order the decoder asks for them) of the file {@code key}.
     *
     * @return the read's index, to ask the {@link Prefetch} for its bytes
     */
    public int add(String key, String location, int step, List<long[]> wanted) {
      if (!reads.isEmpty() && step < reads.get(reads.size() - 1).step()) {
        throw new IllegalArgumentException("steps must not decrease: " + step + " after "
            + reads.get(reads.size() - 1).step());
      }
      reads.add(new Read(key, location, step, wanted.stream().map(long[]::clone).toArray(long[][]::new)));
      return reads.size() - 1;
    }

    /** True when no read was added. */
    public boolean isEmpty() {
      return reads.isEmpty();
    }

    /**
     * Keeps a read out of its file's current span when the whole read would not fit in it (and does not
     * overlap it): the read then starts a span of its own instead of being cut across two spans. A read cut
     * across spans shares both with other reads and must copy its buffers out of them; on a local disk that
     * copy, and the fresh memory it needs, made a compressed full scan of 4.6 MB batches in 8 MiB spans
     * 3-4x slower than Arrow's own reader. Small reads still share spans (up to the target).
     */
    private static void startWholeReadInNewSpan(
        Read read, long[][] wanted, List<long[]> open, Map<String, Integer> current, long target) {
      Integer c = current.get(read.key());
      if (c == null) {
        return;
      }
      long[] cur = open.get(c);
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (long[] w : wanted) {
        if (w[1] > 0) {
          first = Math.min(first, w[0]);
          last = Math.max(last, w[0] + w[1]);
        }
      }
      if (first != Long.MAX_VALUE && first >= cur[1] && last - cur[0] > target) {
        current.remove(read.key());
      }
    }

    public FetchPlan build() {
      long target = options.targetRequestBytes();
      int gap = options.coalesceGapBytes();
      // Mutable spans while planning: {start, end, firstStep, lastStep, reads, lastRead}.
      List<long[]> open = new ArrayList<>();
      List<Read> spanRead = new ArrayList<>(); // the first read of each span (key, location)
      Map<String, Integer> current = new LinkedHashMap<>(); // key -> index in open of its newest span
      List<int[]> spanOf = new ArrayList<>();
      List<long[]> startOf = new ArrayList<>(); // per read: absolute start of each buffer
      for (int r = 0; r < reads.size(); r++) {
        Read read = reads.get(r);
        long[][] wanted = read.wanted();
        int[] span = new int[wanted.length];
        Arrays.fill(span, -1);
        Integer[] order = new Integer[wanted.length];
        for (int i = 0; i < order.length; i++) {
          order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> wanted[i][0]));
        startWholeReadInNewSpan(read, wanted, open, current, target);
        for (int i : order) {
          long start = wanted[i][0];
          long end = start + wanted[i][1];
          if (wanted[i][1] <= 0) {
            continue;
          }
          Integer c = current.get(read.key());
          long[] cur = c == null ? null : open.get(c);
          boolean merges = cur != null && start >= cur[0]
              && (start < cur[1] // overlapping: must merge
                  || (start - cur[1] <= gap && end - cur[0] <= target));
          if (merges) {
            cur[1] = Math.max(cur[1], end);
            cur[3] = read.step();
            if (cur[5] != r) {
              cur[4]++;
              cur[5] = r;
            }
            span[i] = c;
          } else {
            open.add(new long[] {start, end, read.step(), read.step(), 1, r});
            spanRead.add(read);
            current.put(read.key(), open.size() - 1);
            span[i] = open.size() - 1;
          }
        }
        long[] starts = new long[wanted.length];
        for (int i = 0; i < wanted.length; i++) {
          starts[i] = wanted[i][0];
        }
        spanOf.add(span);
        startOf.add(starts);
      }
      // Issue order: by the step that first needs a span; spans are created in that order already.
      List<Span> spans = new ArrayList<>(open.size());
      for (int s = 0; s < open.size(); s++) {
        long[] o = open.get(s);
        Read first = spanRead.get(s);
        spans.add(new Span(first.key(), first.location(), o[0], o[1], (int) o[2], (int) o[3], (int) o[4]));
      }
      List<Placement> placements = new ArrayList<>(reads.size());
      for (int r = 0; r < reads.size(); r++) {
        int[] span = spanOf.get(r);
        long[] offset = new long[span.length];
        for (int i = 0; i < span.length; i++) {
          offset[i] = span[i] < 0 ? 0 : startOf.get(r)[i] - spans.get(span[i]).start();
        }
        placements.add(new Placement(span, offset));
      }
      return new FetchPlan(List.copyOf(spans), List.copyOf(placements));
    }
  }
}
