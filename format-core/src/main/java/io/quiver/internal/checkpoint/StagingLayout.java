package io.quiver.internal.checkpoint;

import io.quiver.dataset.WorkerResults;
import io.quiver.dataset.WriteResult;
import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.internal.codec.WriteResultCodec;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The layout of staged checkpoints in an object store (relative to the table root):
 *
 * <pre>
 * _staging/{jobId}/{checkpointId}/task-{taskId}.qvb   one task's results (WorkerResults, magic QVB1)
 * _staging/{jobId}/{checkpointId}/sealed.qvc          seal marker: the task ids it includes (QVC1)
 * _staging/{jobId}/{checkpointId}/committed.qvc       commit marker: the table version (QVC1)
 * </pre>
 *
 * <p>Every object is created with {@code putIfAbsent}, never replaced. {@link io.quiver.dataset.Dataset#cleanup}
 * reads this layout: it keeps the data files of sealed, uncommitted checkpoints (and of open ones staged
 * within the safety window), and removes the staging objects of committed checkpoints and of abandoned open
 * ones once they are older than the safety window.
 */
public final class StagingLayout {
  /** Prefix of every staging object. */
  public static final String PREFIX = "_staging/";

  static final String TASK_PREFIX = "task-";
  static final String TASK_SUFFIX = ".qvb";
  static final String SEALED = "sealed.qvc";
  static final String COMMITTED = "committed.qvc";
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._=-]{0,127}");

  private StagingLayout() {}

  static public String validId(String what, String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new InvalidArgumentException(
          "invalid " + what + " '" + id + "': expected 1 to 128 letters, digits or . _ = - (not starting with"
              + " punctuation)");
    }
    return id;
  }

  static String checkpointPrefix(String jobId, String checkpointId) {
    return PREFIX + validId("job id", jobId) + "/" + validId("checkpoint id", checkpointId) + "/";
  }

  static String taskKey(String jobId, String checkpointId, String taskId) {
    return checkpointPrefix(jobId, checkpointId) + TASK_PREFIX + validId("task id", taskId) + TASK_SUFFIX;
  }

  /** Orders checkpoint ids: all-digit ids by numeric value, before any other id; others lexically. */
  static final Comparator<String> CHECKPOINT_ORDER = (a, b) -> {
    boolean da = a.chars().allMatch(Character::isDigit);
    boolean db = b.chars().allMatch(Character::isDigit);
    if (da && db) {
      String na = a.replaceFirst("^0+(?=.)", "");
      String nb = b.replaceFirst("^0+(?=.)", "");
      return na.length() != nb.length() ? Integer.compare(na.length(), nb.length()) : na.compareTo(nb);
    }
    if (da != db) {
      return da ? -1 : 1;
    }
    return a.compareTo(b);
  };

  /**
   * One staged checkpoint as found in the store.
   *
   * @param jobId the job
   * @param checkpointId the checkpoint
   * @param tasks its task objects, by task id
   * @param sealed its seal marker, if any
   * @param committed its commit marker, if any
   */
  public record Checkpoint(
      String jobId, String checkpointId, Map<String, ObjectInfo> tasks, Optional<ObjectInfo> sealed,
      Optional<ObjectInfo> committed) {

    /** Every staging object of the checkpoint. */
    public List<ObjectInfo> objects() {
      List<ObjectInfo> out = new ArrayList<>(tasks.values());
      sealed.ifPresent(out::add);
      committed.ifPresent(out::add);
      return out;
    }

    /** The newest modification time of its objects. */
    public Instant lastModified() {
      return objects().stream().map(ObjectInfo::lastModified).max(Comparator.naturalOrder()).orElse(Instant.MIN);
    }
  }

  /** Every staged checkpoint under {@code prefix} (all of {@link #PREFIX}, or one job's). */
  public static List<Checkpoint> inventory(ObjectStore store, String prefix) {
    Map<String, Map<String, ObjectInfo>> byCheckpoint = new LinkedHashMap<>();
    for (ObjectInfo info : store.listAll(prefix)) {
      String rest = info.key().substring(PREFIX.length());
      int slash = rest.lastIndexOf('/');
      if (slash < 0 || rest.indexOf('/') == slash) {
        continue; // not {job}/{checkpoint}/{name}: not ours
      }
      byCheckpoint.computeIfAbsent(rest.substring(0, slash), k -> new LinkedHashMap<>())
          .put(rest.substring(slash + 1), info);
    }
    List<Checkpoint> out = new ArrayList<>();
    for (Map.Entry<String, Map<String, ObjectInfo>> e : byCheckpoint.entrySet()) {
      int slash = e.getKey().indexOf('/');
      Map<String, ObjectInfo> tasks = new LinkedHashMap<>();
      for (Map.Entry<String, ObjectInfo> o : e.getValue().entrySet()) {
        String name = o.getKey();
        if (name.startsWith(TASK_PREFIX) && name.endsWith(TASK_SUFFIX)) {
          tasks.put(name.substring(TASK_PREFIX.length(), name.length() - TASK_SUFFIX.length()), o.getValue());
        }
      }
      out.add(new Checkpoint(e.getKey().substring(0, slash), e.getKey().substring(slash + 1), tasks,
          Optional.ofNullable(e.getValue().get(SEALED)), Optional.ofNullable(e.getValue().get(COMMITTED))));
    }
    return out;
  }

  /** The seal or commit marker at {@code key}, or empty if absent. */
  static Optional<WriteResultCodec.Marker> marker(ObjectStore store, String key) {
    byte[] bytes;
    try {
      bytes = store.read(key);
    } catch (ObjectNotFoundException e) {
      return Optional.empty();
    }
    return Optional.of(WriteResultCodec.decodeMarker(bytes, store.locationOf(key)));
  }

  /** The task ids a checkpoint's seal includes. */
  public static List<String> sealedTasks(ObjectStore store, Checkpoint checkpoint) {
    return marker(store, checkpointPrefix(checkpoint.jobId(), checkpoint.checkpointId()) + SEALED)
        .map(WriteResultCodec.Marker::tasks).orElse(List.of());
  }

  /** The write results one staged task object holds. */
  public static List<WriteResult> taskResults(ObjectStore store, String key) {
    return WorkerResults.decode(store.read(key), store.locationOf(key)).writes();
  }
}
