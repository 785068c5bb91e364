package io.quiver.manifest;

import java.util.List;
import org.roaringbitmap.buffer.ImmutableRoaringBitmap;

/** Which physical offsets of a fragment an overlay supplies values for. */
public sealed interface Coverage {

  /** The offsets covered for the field at {@code position} in the overlay file's field list. */
  ImmutableRoaringBitmap offsetsFor(int position);

  /** Largest covered offset over all fields, or -1 when nothing is covered. */
  long maxOffset();

  /** One bitmap that applies to every field of the overlay. */
  record Shared(ImmutableRoaringBitmap offsets) implements Coverage {
    public Shared {
      offsets = offsets.clone();
    }

    @Override
    public ImmutableRoaringBitmap offsetsFor(int position) {
      return offsets;
    }

    @Override
    public long maxOffset() {
      return offsets.isEmpty() ? -1 : Integer.toUnsignedLong(offsets.last());
    }
  }

  /** One bitmap per field position of the overlay file. */
  record PerField(List<ImmutableRoaringBitmap> offsets) implements Coverage {
    public PerField {
      offsets = offsets.stream().map(ImmutableRoaringBitmap::clone).toList();
    }

    @Override
    public ImmutableRoaringBitmap offsetsFor(int position) {
      return offsets.get(position);
    }

    @Override
    public long maxOffset() {
      long max = -1;
      for (ImmutableRoaringBitmap b : offsets) {
        if (!b.isEmpty()) {
          max = Math.max(max, Integer.toUnsignedLong(b.last()));
        }
      }
      return max;
    }
  }
}
