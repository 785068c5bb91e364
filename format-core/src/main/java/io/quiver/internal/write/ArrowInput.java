package io.quiver.internal.write;

import io.quiver.exceptions.StoreException;
import java.io.IOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/** Caller-supplied Arrow streams as the batch iterators the writers consume. */
final public class ArrowInput {
  private ArrowInput() {}

  /**
   * The reader's batches, loaded lazily. Each returned root is the reader's own and is valid until the
   * next call; the caller keeps ownership of the reader.
   */
  static public Iterator<VectorSchemaRoot> batches(ArrowReader reader) {
    return new Iterator<>() {
      private Boolean ready;

      @Override
      public boolean hasNext() {
        if (ready == null) {
          try {
            ready = reader.loadNextBatch();
          } catch (IOException e) {
            throw unreadable(e);
          }
        }
        return ready;
      }

      @Override
      public VectorSchemaRoot next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        ready = null;
        try {
          return reader.getVectorSchemaRoot();
        } catch (IOException e) {
          throw unreadable(e);
        }
      }
    };
  }

  private static StoreException unreadable(IOException e) {
    return new StoreException("could not read the input Arrow stream: " + e.getMessage(), e);
  }
}
