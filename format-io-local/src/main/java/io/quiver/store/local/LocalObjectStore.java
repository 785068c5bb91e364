package io.quiver.store.local;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.ObjectNotFoundException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ByteRange;
import io.quiver.store.FetchTuning;
import io.quiver.store.Keys;
import io.quiver.store.ListPage;
import io.quiver.store.ObjectInfo;
import io.quiver.store.ObjectStore;
import io.quiver.store.StoreArgs;
import io.quiver.store.support.Failure;
import io.quiver.store.support.Failure.Call;
import io.quiver.store.support.StreamingObjectWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@link ObjectStore} on a local (or mounted) file system: key {@code a/b} is the file {@code root/a/b}.
 *
 * <p>Objects appear whole or not at all: writers fill a temp file in the target's directory and rename
 * it into place. {@link #putIfAbsent} publishes with a hard link, which fails if the target exists
 * atomically across threads and processes; a rename without REPLACE_EXISTING is not atomic on Linux
 * (it checks, then replaces). The file system must therefore support hard links.
 *
 * <p>Temp files are named {@value #TEMP_PREFIX}{@code <random>}; listings skip them and keys whose last
 * segment starts with that prefix are refused. A writer killed mid-write ({@code kill -9}, a power loss)
 * leaves its temp file behind: invisible, and reported by {@link #abandonedTemporaries} so that cleanup
 * removes it once it is older than the safety window ({@link #deleteAbandonedTemporaries}). Limits of the
 * mapping: a key cannot be both an object and the
 * "directory" of another ({@code a} and {@code a/b}), and empty directories are not removed on delete
 * (removing them would race with a concurrent writer creating a file there).
 */
public final class LocalObjectStore implements ObjectStore {
  /** Prefix of in-progress files; never a visible key. */
  public static final String TEMP_PREFIX = ".quiver-tmp-";

  private static final int COPY_BUFFER = 64 * 1024;

  private final Path root;
  private final String location;
  private final boolean fsync;

  /** A durable store rooted at {@code root}; the directory is created on first write. */
  public LocalObjectStore(Path root) {
    this(root, true);
  }

  /**
   * A store rooted at {@code root}. With {@code fsync} (the default) every write is forced to disk, file
   * and directory entry, before it returns, so an acknowledged commit survives a power loss. Without it
   * writes stay in the page cache until the OS flushes them (as in object_store's LocalFileSystem that
   * Lance uses): faster, atomic still, but a machine crash can lose acknowledged commits or leave a
   * manifest that names a data file the crash lost. For scratch tables, tests and benchmarks only.
   */
  public LocalObjectStore(Path root, boolean fsync) {
    this.fsync = fsync;
    this.root = root.toAbsolutePath().normalize();
    String uri = this.root.toUri().toString();
    this.location = uri.endsWith("/") && this.root.getParent() != null ? uri.substring(0, uri.length() - 1) : uri;
  }

  /** The root directory. */
  public Path root() {
    return root;
  }

  @Override
  public FetchTuning fetchTuning() {
    return FetchTuning.LOCAL; // a read costs less than a hand-over to a fetch thread
  }

  @Override
  public String location() {
    return location;
  }

  /** The file of a key, refusing anything that would land outside the root. */
  private Path pathOf(String key) {
    StoreArgs.key(key);
    String name = key.substring(key.lastIndexOf('/') + 1);
    if (name.startsWith(TEMP_PREFIX)) {
      throw new InvalidArgumentException(
          "invalid object key '" + key + "': names starting with " + TEMP_PREFIX
              + " are reserved for in-progress writes of the local store");
    }
    Path path;
    try {
      path = root.resolve(key).normalize();
    } catch (InvalidPathException e) {
      throw new InvalidArgumentException("invalid object key '" + key + "' for this file system: " + e.getMessage());
    }
    if (!path.startsWith(root) || path.equals(root)) {
      throw new InvalidArgumentException("invalid object key '" + key + "': it resolves outside " + location);
    }
    return path;
  }

  @Override
  public byte[] read(String key) {
    Path path = pathOf(key);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size > Integer.MAX_VALUE - 8) {
        throw Failure.PERMANENT.storeException(Call.READ, "read whole", location, key,
            "it is " + size + " bytes, more than an array holds", "use readRange", null);
      }
      return readFully(ch, 0, (int) size);
    } catch (IOException e) {
      throw readFailure(key, path, e);
    }
  }

  @Override
  public byte[] readRange(String key, long offset, int length) {
    Path path = pathOf(key);
    StoreArgs.range(offset, length);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = ch.size();
      if (offset >= size) {
        return new byte[0];
      }
      return readFully(ch, offset, (int) Math.min(length, size - offset));
    } catch (IOException e) {
      throw readFailure(key, path, e);
    }
  }

  /**
   * All ranges through one open file: positional reads ({@code pread}), so the file is opened once and
   * every range comes from the same file even if it is replaced meanwhile.
   */
  @Override
  public List<byte[]> readRanges(String key, List<ByteRange> ranges) {
    Path path = pathOf(key);
    List<ByteRange> checked = StoreArgs.ranges(ranges);
    if (checked.isEmpty()) {
      return List.of();
    }
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = ch.size();
      List<byte[]> out = new ArrayList<>(checked.size());
      for (ByteRange r : checked) {
        out.add(r.offset() >= size ? new byte[0] : readFully(ch, r.offset(), (int) Math.min(r.length(), size - r.offset())));
      }
      return out;
    } catch (IOException e) {
      throw readFailure(key, path, e);
    }
  }

  /** Reads straight into {@code target} (Arrow's direct memory, for data files): no intermediate copy. */
  @Override
  public int readRangeInto(String key, long offset, ByteBuffer target) {
    Path path = pathOf(key);
    StoreArgs.target(offset, target);
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      int start = target.position();
      while (target.hasRemaining()) {
        int read = ch.read(target, offset + target.position() - start);
        if (read < 0) {
          break;
        }
      }
      return target.position() - start;
    } catch (IOException e) {
      throw readFailure(key, path, e);
    }
  }

  /** Positional reads until {@code n} bytes or end of file (a replaced file keeps its old content). */
  private static byte[] readFully(FileChannel ch, long offset, int n) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(n);
    while (buf.hasRemaining()) {
      int read = ch.read(buf, offset + buf.position());
      if (read < 0) {
        break;
      }
    }
    byte[] out = buf.array();
    return buf.position() == n ? out : java.util.Arrays.copyOf(out, buf.position());
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    Path path = pathOf(key);
    try {
      BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
      if (!attrs.isRegularFile()) {
        return Optional.empty();
      }
      return Optional.of(new ObjectInfo(key, attrs.size(), attrs.lastModifiedTime().toInstant()));
    } catch (IOException e) {
      if (isAbsent(path, e)) {
        return Optional.empty();
      }
      throw failure("stat", path, e);
    }
  }

  @Override
  public void write(String key, byte[] data) {
    Path path = pathOf(key);
    StoreArgs.data(key, data);
    Path temp = null;
    try {
      temp = writeTemp(path, data);
      Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      temp = null;
      syncDirectory(path.getParent());
    } catch (IOException e) {
      throw failure("write", path, e);
    } finally {
      deleteQuietly(temp);
    }
  }

  @Override
  public PutResult putIfAbsent(String key, byte[] data) {
    Path path = pathOf(key);
    StoreArgs.data(key, data);
    Path temp = null;
    try {
      temp = writeTemp(path, data);
      try {
        Files.createLink(path, temp);
        syncDirectory(path.getParent());
        return PutResult.CREATED;
      } catch (FileAlreadyExistsException e) {
        return PutResult.ALREADY_EXISTS;
      } catch (UnsupportedOperationException e) {
        throw Failure.PERMANENT.storeException(Call.CREATE, "create (if absent)", location, key,
            "the file system does not support hard links, which the local store needs for an atomic putIfAbsent",
            "use a directory on another file system", e);
      }
    } catch (IOException e) {
      throw failure("create", path, e);
    } finally {
      deleteQuietly(temp);
    }
  }

  /** Writes (and fsyncs, if enabled) a new temp file next to {@code target}. */
  private Path writeTemp(Path target, byte[] data) throws IOException {
    Path temp = newTemp(target);
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      ByteBuffer buf = ByteBuffer.wrap(data);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
      if (fsync) {
        ch.force(true);
      }
    } catch (IOException | RuntimeException e) {
      deleteQuietly(temp);
      throw e;
    }
    return temp;
  }

  private static Path newTemp(Path target) throws IOException {
    Path dir = target.getParent();
    Files.createDirectories(dir);
    Path temp = dir.resolve(TEMP_PREFIX + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    return Files.createFile(temp);
  }

  /**
   * Makes a rename or link durable: without it a crash can lose the directory entry of an object whose
   * commit was already acknowledged. Best effort, as some platforms (Windows) cannot open directories.
   */
  private void syncDirectory(Path dir) {
    if (!fsync) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException ignored) {
      // Not supported here; the file itself was synced.
    }
  }

  private static void deleteQuietly(Path temp) {
    if (temp != null) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException ignored) {
        // An invisible leftover; nothing a caller could do about it.
      }
    }
  }

  @Override
  public ObjectWriter openWriter(String key) {
    Path path = pathOf(key);
    Path temp;
    FileChannel channel;
    try {
      temp = newTemp(path);
      channel = FileChannel.open(temp, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw failure("open a writer for", path, e);
    }
    return new LocalWriter(key, path, temp, channel);
  }

  /** Buffers into the temp file; close fsyncs and renames, any failure deletes the temp file. */
  private final class LocalWriter extends StreamingObjectWriter {
    private final Path target;
    private final Path temp;
    private final FileChannel channel;
    private final OutputStream out;

    LocalWriter(String key, Path target, Path temp, FileChannel channel) {
      super(locationOf(key));
      this.target = target;
      this.temp = temp;
      this.channel = channel;
      this.out = new java.io.BufferedOutputStream(Channels.newOutputStream(channel), COPY_BUFFER);
    }

    @Override
    protected void append(byte[] b, int off, int len) {
      try {
        out.write(b, off, len);
      } catch (IOException e) {
        throw failure("write", target, e);
      }
    }

    @Override
    protected void publish() {
      try {
        out.flush();
        if (fsync) {
          channel.force(true);
        }
        channel.close();
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        throw failure("write", target, e);
      }
      syncDirectory(target.getParent());
    }

    @Override
    protected void discard() {
      try {
        channel.close();
      } catch (IOException ignored) {
        // The temp file is deleted next.
      }
      deleteQuietly(temp);
    }
  }

  @Override
  public ListPage list(String prefix, Optional<String> startAfter, int maxKeys) {
    StoreArgs.list(prefix, startAfter, maxKeys);
    String dirPart = prefix.substring(0, prefix.lastIndexOf('/') + 1);
    Path dir = root;
    if (!dirPart.isEmpty()) {
      Keys.check(dirPart.substring(0, dirPart.length() - 1));
      dir = root.resolve(dirPart).normalize();
      if (!dir.startsWith(root)) {
        throw new InvalidArgumentException("invalid prefix '" + prefix + "': it resolves outside " + location);
      }
    }
    Lister lister = new Lister(prefix, startAfter.orElse(null), maxKeys + 1);
    try {
      lister.visit(dir, dirPart);
    } catch (IOException e) {
      throw failure("list", dir, e);
    }
    List<ObjectInfo> found = lister.found;
    return found.size() > maxKeys ? new ListPage(found.subList(0, maxKeys), true) : new ListPage(found, false);
  }

  /**
   * Depth-first walk in key order that stops after {@code limit} keys. Siblings sort by name, with a
   * directory's name taken as {@code name + "/"} since all its keys start so. Types are learnt lazily:
   * an entry first enters the queue under its name (never after its true position) and is stat-ed
   * only when it reaches the head, so a page costs one directory read per level, not a stat per file.
   */
  private final class Lister {
    private final String prefix;
    private final String startAfter;
    private final int limit;
    private final List<ObjectInfo> found = new ArrayList<>();

    Lister(String prefix, String startAfter, int limit) {
      this.prefix = prefix;
      this.startAfter = startAfter;
      this.limit = limit;
    }

    private record Entry(String sortKey, Path path, BasicFileAttributes attrs) {}

    /** Visits directory {@code dir}, whose keys start with {@code keyPrefix} (empty or ending in '/'). */
    void visit(Path dir, String keyPrefix) throws IOException {
      PriorityQueue<Entry> queue = new PriorityQueue<>(Comparator.comparing(Entry::sortKey, Keys.ORDER));
      // One native call for all names (a DirectoryStream costs a JNI call and a Path per entry, which
      // dominated commits on tables with thousands of versions); Paths only for the candidates.
      String[] names = dir.toFile().list();
      if (names == null) {
        if (Files.exists(dir) && Files.isDirectory(dir)) {
          throw new IOException("cannot list directory " + dir);
        }
        return; // absent, or not a directory: nothing under this prefix
      }
      for (String name : names) {
        String key = keyPrefix + name;
        if (mayHold(key) || mayHold(key + "/")) {
          queue.add(new Entry(key, dir.resolve(name), null));
        }
      }
      while (!queue.isEmpty() && found.size() < limit) {
        Entry e = queue.poll();
        if (e.attrs() == null) {
          BasicFileAttributes attrs;
          try {
            attrs = Files.readAttributes(e.path(), BasicFileAttributes.class);
          } catch (NoSuchFileException gone) {
            continue;
          }
          if (attrs.isDirectory()) {
            if (mayHold(e.sortKey() + "/")) {
              queue.add(new Entry(e.sortKey() + "/", e.path(), attrs));
            }
          } else if (attrs.isRegularFile()
              && !e.path().getFileName().toString().startsWith(TEMP_PREFIX)
              && matches(e.sortKey())) {
            found.add(new ObjectInfo(e.sortKey(), attrs.size(), attrs.lastModifiedTime().toInstant()));
          }
        } else {
          visit(e.path(), e.sortKey());
        }
      }
    }

    /** Whether a key that is exactly {@code key}, or starts with it when it ends in '/', can be listed. */
    private boolean mayHold(String key) {
      boolean subtree = key.endsWith("/");
      boolean prefixOk = key.startsWith(prefix) || (subtree && prefix.startsWith(key));
      if (!prefixOk) {
        return false;
      }
      if (startAfter == null) {
        return true;
      }
      // A subtree holds keys after startAfter unless all of them sort before it.
      return subtree ? startAfter.startsWith(key) || Keys.compare(key, startAfter) > 0 : Keys.compare(key, startAfter) > 0;
    }

    private boolean matches(String key) {
      return key.startsWith(prefix) && (startAfter == null || Keys.compare(key, startAfter) > 0);
    }
  }

  @Override
  public void delete(String key) {
    Path path = pathOf(key);
    try {
      if (!Files.isDirectory(path)) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      if (!isAbsent(path, e)) {
        throw failure("delete", path, e);
      }
    }
  }

  /**
   * Whether a failure means "no such object": the file is missing, is a directory, or a parent is a
   * regular file (ENOTDIR), which no key can sit under.
   */
  private boolean isAbsent(Path path, IOException e) {
    if (e instanceof NoSuchFileException || Files.isDirectory(path)) {
      return true;
    }
    for (Path p = path.getParent(); p != null && p.startsWith(root) && !p.equals(root); p = p.getParent()) {
      if (Files.isRegularFile(p)) {
        return true;
      }
    }
    return false;
  }

  private RuntimeException readFailure(String key, Path path, IOException e) {
    return isAbsent(path, e) ? new ObjectNotFoundException(locationOf(key)) : failure("read", path, e);
  }

  /**
   * The store exception for a failed file system call: permission problems are {@link
   * Failure#ACCESS_DENIED}, anything else {@link Failure#PERMANENT} (a file system call either acted or
   * failed; none of them is left half done, so none leaves an unknown outcome).
   */
  static StoreException failure(String action, Path path, IOException e) {
    if (e instanceof AccessDeniedException) {
      return Failure.ACCESS_DENIED.storeException(Call.WRITE, action, path.toString(), null,
          "permission denied (" + e.getMessage() + ")",
          "check the permissions of the file and its directories for this user", e);
    }
    return Failure.PERMANENT.storeException(Call.WRITE, action, path.toString(), null, e.toString(), "", e);
  }

  // ---- the store's own temporaries

  /**
   * Temp files ({@value #TEMP_PREFIX}…) anywhere under the root last modified before {@code olderThan}:
   * those of writers that died. A live writer's file is modified as it is written, so it is young.
   */
  @Override
  public List<ObjectInfo> abandonedTemporaries(Instant olderThan) {
    StoreArgs.olderThan(olderThan);
    List<ObjectInfo> found = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return found;
    }
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (attrs.isRegularFile() && file.getFileName().toString().startsWith(TEMP_PREFIX)
              && attrs.lastModifiedTime().toInstant().isBefore(olderThan)) {
            found.add(new ObjectInfo(relative(file), attrs.size(), attrs.lastModifiedTime().toInstant()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE; // finished or removed while we walked
          }
          throw e;
        }
      });
    } catch (IOException e) {
      throw failure("look for abandoned temporary files under", root, e);
    }
    found.sort(Comparator.comparing(ObjectInfo::key, Keys.ORDER));
    return found;
  }

  /**
   * Deletes the abandoned temp files, each only if it is still older than {@code olderThan} when its turn
   * comes; one that cannot be deleted stays for the next cleanup.
   */
  @Override
  public List<ObjectInfo> deleteAbandonedTemporaries(Instant olderThan) {
    List<ObjectInfo> deleted = new ArrayList<>();
    for (ObjectInfo temporary : abandonedTemporaries(olderThan)) {
      Path file = root.resolve(temporary.key());
      try {
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
        if (attrs.lastModifiedTime().toInstant().isBefore(olderThan) && Files.deleteIfExists(file)) {
          deleted.add(temporary);
        }
      } catch (IOException e) {
        // Gone already (its writer finished it) or not deletable now: the next cleanup sees it again.
      }
    }
    return deleted;
  }

  /** The '/'-separated path of a file under the root. */
  private String relative(Path file) {
    StringBuilder b = new StringBuilder();
    for (Path part : root.relativize(file)) {
      if (b.length() > 0) {
        b.append('/');
      }
      b.append(part);
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return "LocalObjectStore[" + location + "]";
  }
}
