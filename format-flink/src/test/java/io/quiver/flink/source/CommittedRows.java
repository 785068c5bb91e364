package io.quiver.flink.source;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A test sink that records longs only when the checkpoint holding them completes (a committer), idempotently:
 * what it records is what an exactly-once sink would have published, so a repeated or lost row shows.
 */
final class CommittedRows implements Sink<Long>, SupportsCommitter<String> {
  private static final Map<String, Map<String, List<Long>>> COMMITTED = new ConcurrentHashMap<>();

  private final String key;

  CommittedRows(String key) {
    this.key = key;
    COMMITTED.put(key, new ConcurrentHashMap<>());
  }

  /** Every row committed so far under {@code key}. */
  static List<Long> committed(String key) {
    List<Long> all = new ArrayList<>();
    COMMITTED.getOrDefault(key, Map.of()).values().forEach(all::addAll);
    return all;
  }

  @Override
  public SinkWriter<Long> createWriter(WriterInitContext context) {
    return new CommittingSinkWriter<Long, String>() {
      private final List<Long> buffer = new ArrayList<>();

      @Override
      public void write(Long value, Context context) {
        buffer.add(value);
      }

      @Override
      public void flush(boolean endOfInput) {}

      @Override
      public Collection<String> prepareCommit() {
        StringBuilder committable = new StringBuilder(UUID.randomUUID().toString());
        for (Long v : buffer) {
          committable.append(',').append(v);
        }
        buffer.clear();
        return List.of(committable.toString());
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public Committer<String> createCommitter(CommitterInitContext context) {
    return new Committer<>() {
      @Override
      public void commit(Collection<CommitRequest<String>> requests) {
        for (CommitRequest<String> r : requests) {
          String[] parts = r.getCommittable().split(",");
          List<Long> rows = new ArrayList<>();
          for (int i = 1; i < parts.length; i++) {
            rows.add(Long.parseLong(parts[i]));
          }
          COMMITTED.get(key).putIfAbsent(parts[0], rows);
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public SimpleVersionedSerializer<String> getCommittableSerializer() {
    return new SimpleVersionedSerializer<>() {
      @Override
      public int getVersion() {
        return 1;
      }

      @Override
      public byte[] serialize(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
      }

      @Override
      public String deserialize(int version, byte[] bytes) throws IOException {
        return new String(bytes, StandardCharsets.UTF_8);
      }
    };
  }
}
