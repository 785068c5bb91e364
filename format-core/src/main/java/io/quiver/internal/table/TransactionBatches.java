package io.quiver.internal.table;

import com.google.protobuf.ByteString;
import io.quiver.internal.codec.MetadataCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transaction batch files (docs/format.md, section 11.4): the transactions of 64 consecutive versions in one
 * object, so that a committer catching up on N versions reads about N / 64 files instead of N. Versions are
 * grouped in fixed blocks, {@code 64k+1 .. 64k+64}; the committer of a block's last version writes the block's
 * batch after its commit, copying each version file's transaction bytes. A batch is optional: when it is
 * missing or does not decode, readers read the version files. A batch's transactions are those versions'
 * transactions whether or not the version files are still there; cleanup removes a batch before (and again
 * after) removing any of its versions, so a completed cleanup leaves no batch over a removed version.
 */
public final class TransactionBatches {
  private static final Logger LOG = LoggerFactory.getLogger(TransactionBatches.class);

  /** Where batch files live in a table's store. */
  public static final String PREFIX = "_txlog/";

  /** Versions per batch (a format constant: readers derive a block's file name from it). */
  public static final int SIZE = 64;

  private static final String SUFFIX = ".txlog";

  /**
   * The most transaction bytes one batch holds (8 MiB); a block whose transactions together are more gets no
   * batch. A batch saves one read per version, which matters for small transactions: copying a large commit's
   * transaction (the creation of a million-fragment table carries them all, 123 MB) would save one read of a
   * file that size and store it twice.
   */
  public static final long MAX_BYTES = 8L << 20;

  private TransactionBatches() {}

  /** The first version of the block holding {@code version} (versions start at 1). */
  public static long firstOf(long version) {
    return ((version - 1) / SIZE) * SIZE + 1;
  }

  /** The key of the batch whose first version is {@code first}. */
  public static String path(long first) {
    return PREFIX + String.format("%020d-%020d", first, first + SIZE - 1) + SUFFIX;
  }

  /** The first version of the batch at {@code key}, or empty when the key is not a batch file's name. */
  public static OptionalLong firstOfPath(String key) {
    if (!key.startsWith(PREFIX) || !key.endsWith(SUFFIX) || key.length() != PREFIX.length() + 41 + SUFFIX.length()) {
      return OptionalLong.empty();
    }
    String name = key.substring(PREFIX.length(), key.length() - SUFFIX.length());
    try {
      long first = Long.parseLong(name.substring(0, 20));
      long last = Long.parseLong(name.substring(21));
      if (name.charAt(20) != '-' || first < 1 || firstOf(first) != first || last != first + SIZE - 1) {
        return OptionalLong.empty();
      }
      return OptionalLong.of(first);
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /** True when committing {@code version} completes a block, whose batch its committer then writes. */
  public static boolean completes(long version) {
    return version >= SIZE && version % SIZE == 0;
  }

  /**
   * Writes the batch of the block that {@code version} (just claimed, with file {@code versionFile}) completes.
   * Best effort: the commit has happened, so a failure here (a version removed by a cleanup meanwhile, a store
   * error) only means readers of this block read its version files; it is logged, never thrown.
   */
  static void writeAfterCommit(TableIo io, long version, byte[] versionFile) {
    long first = firstOf(version);
    try {
      List<Optional<byte[]>> files = io.readVersionFiles(first, version - 1);
      List<ByteString> transactions = new ArrayList<>(SIZE);
      long bytes = 0;
      for (int i = 0; i <= files.size(); i++) {
        ByteString transaction;
        if (i == files.size()) {
          transaction = MetadataCodec.transactionBytes(versionFile, io.commitStore().locationOf(version));
        } else if (files.get(i).isEmpty()) {
          LOG.debug("no transaction batch for versions {}..{} of {}: version {} was removed", first, version,
              io.location(), first + i);
          return;
        } else {
          transaction = MetadataCodec.transactionBytes(files.get(i).get(), io.commitStore().locationOf(first + i));
        }
        bytes += transaction.size();
        if (bytes > MAX_BYTES) {
          LOG.debug("no transaction batch for versions {}..{} of {}: their transactions exceed {} bytes", first,
              version, io.location(), MAX_BYTES);
          return;
        }
        transactions.add(transaction);
      }
      io.store().write(path(first), MetadataCodec.encodeTransactionBatch(first, transactions));
    } catch (RuntimeException e) {
      LOG.warn("committed version {} of {} but could not write the transaction batch of versions {}..{} (readers"
          + " read those versions' files instead): {}", version, io.location(), first, version, e.toString());
    }
  }
}
