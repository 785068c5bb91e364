package io.quiver.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.quiver.store.FaultInjectingObjectStore.Fault;
import io.quiver.store.FaultInjectingObjectStore.Op;
import io.quiver.store.FaultInjectingObjectStore;
import io.quiver.store.ObjectStoreCommitStore;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exit codes and messages of store errors: a missing store or bucket, access denied, an unreachable
 * endpoint are the user's to fix (exit 1, one line, no stack trace); a commit whose outcome is unknown
 * exits 4 and says how to find out.
 */
class CliStoreErrorsTest {
  private static final Pattern TRANSACTION = Pattern.compile("--transaction ([0-9a-f-]{36})");

  @TempDir
  Path dir;

  Path people;

  @BeforeAll
  static void plainProgress() {
    Progress.forceTerminal = false;
  }

  @AfterAll
  static void resetProgress() {
    Progress.forceTerminal = null;
  }

  @BeforeEach
  void input() throws IOException {
    people = write("people.csv", "id,name\n1,ann\n2,bob\n");
  }

  Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p;
  }

  /** Exit {@code code}, nothing on stdout, a single line on stderr without a stack trace; returns the line. */
  static String oneLineError(int code, String... args) {
    CliRunner.Result r = CliRunner.run(args);
    assertThat(r.code()).as(r::toString).isEqualTo(code);
    assertThat(r.out()).isEmpty();
    List<String> lines = r.err().lines().filter(l -> !l.contains(": 1/1 done") && !l.contains(": 0/1")
        && !l.matches("import: \\d+% .*")).toList();
    assertThat(lines.size()).as(r::toString).isEqualTo(1);
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("internal error");
    return lines.get(0);
  }

  static CliRunner.Result ok(String... args) {
    CliRunner.Result r = CliRunner.run(args);
    assertThat(r.code()).as(r::toString).isEqualTo(0);
    return r;
  }

  // ------------------------------------------------------------------ missing store, bucket, directory

  @Test
  void aTableUnderAMissingLocalDirectoryIsAUserError() {
    String missing = dir.resolve("no/such/dir/t").toUri().toString();
    assertThat(oneLineError(1, "scan", missing)).startsWith("error: no Quiver table at " + missing);
    assertThat(oneLineError(1, "info", dir.resolve("gone").toString())).contains("no Quiver table at");
  }

  @Test
  void aTableWhoseDirectoryCannotBeCreatedIsAUserErrorNotAnInternalOne() {
    // A regular file where the table's parent directory should be: the store fails, Quiver did not.
    String under = people.resolve("t").toUri().toString();
    assertThat(oneLineError(1, "import", under, people.toString())).startsWith("error: could not ")
        .contains(people.toString());
  }

  @Test
  void aMissingMemoryTableIsAUserError() {
    assertThat(oneLineError(1, "log", "memory://cli-store-errors/none")).contains("no Quiver table at memory://");
  }

  // ------------------------------------------------------------------ S3: no bucket, denied, unreachable

  /** A stand-in for S3 that answers every request with one error, as S3 does for a missing bucket or a bad key. */
  static final class FakeS3 implements AutoCloseable {
    final HttpServer server;

    FakeS3(int status, String code, String message) throws IOException {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + message
          + "</Message><RequestId>REQ-1</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
      server.createContext("/", exchange -> {
        exchange.getRequestBody().readAllBytes();
        exchange.getResponseHeaders().add("Content-Type", "application/xml");
        exchange.getResponseHeaders().add("x-amz-request-id", "REQ-1");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        }
        exchange.close();
      });
      server.start();
    }

    String endpoint() {
      return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  static List<String> s3Args(String command, String uri, String endpoint, String... more) {
    List<String> args = new ArrayList<>(List.of(command, uri, "-o", "s3.endpoint=" + endpoint,
        "-o", "s3.path-style-access=true", "-o", "s3.region=us-east-1", "-o", "s3.access-key-id=AKIDEXAMPLE",
        "-o", "s3.secret-access-key=not-a-real-secret", "-o", "s3.max-retries=0",
        "-o", "s3.connection-timeout-ms=500", "-o", "s3.socket-timeout-ms=2000"));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void aNonexistentBucketIsAUserErrorNamingTheBucket() throws Exception {
    try (FakeS3 s3 = new FakeS3(404, "NoSuchBucket", "The specified bucket does not exist")) {
      for (String command : List.of("scan", "info", "log")) {
        String line = oneLineError(1, s3Args(command, "s3://no-such-bucket/t", s3.endpoint()).toArray(String[]::new));
        assertThat(line).startsWith("error: could not ").contains("s3://no-such-bucket/t")
            .contains("the bucket does not exist").contains("NoSuchBucket").contains("check the bucket in the store URI");
      }
      String create = oneLineError(1,
          s3Args("import", "s3://no-such-bucket/t", s3.endpoint(), people.toString()).toArray(String[]::new));
      assertThat(create).contains("the bucket does not exist");
    }
  }

  @Test
  void wrongCredentialsAreAUserErrorThatKeepsTheSecretOut() throws Exception {
    try (FakeS3 s3 = new FakeS3(403, "InvalidAccessKeyId",
        "The AWS Access Key Id you provided does not exist in our records.")) {
      String line = oneLineError(1, s3Args("scan", "s3://bucket/t", s3.endpoint()).toArray(String[]::new));
      assertThat(line).contains("S3 denied access").contains("InvalidAccessKeyId").contains("check the credentials")
          .contains("s3.access-key-id").doesNotContain("not-a-real-secret");
    }
    try (FakeS3 s3 = new FakeS3(403, "AccessDenied", "Access Denied")) {
      String line = oneLineError(1,
          s3Args("import", "s3://bucket/t", s3.endpoint(), people.toString()).toArray(String[]::new));
      assertThat(line).contains("S3 denied access").contains("AccessDenied").contains("bucket policy");
    }
  }

  static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    }
  }

  @Test
  void anUnreachableS3EndpointIsAUserErrorReportedQuickly() throws Exception {
    String endpoint = "http://127.0.0.1:" + closedPort();
    long start = System.nanoTime();
    String line = oneLineError(1, s3Args("scan", "s3://bucket/t", endpoint).toArray(String[]::new));
    assertThat(line).contains("could not connect to S3").contains("Connection refused").contains("check s3.endpoint");
    String write = oneLineError(1, s3Args("import", "s3://bucket/t", endpoint, people.toString()).toArray(String[]::new));
    assertThat(write).contains("could not connect to S3");
    assertThat((System.nanoTime() - start) / 1_000_000).as("milliseconds").isLessThan(20_000);
  }

  @Test
  void anUnreachableGcsOrAzureEndpointIsAUserError() throws Exception {
    String endpoint = "http://127.0.0.1:" + closedPort();
    long start = System.nanoTime();
    String gcs = oneLineError(1, "scan", "gs://bucket/t", "-o", "gcs.endpoint=" + endpoint, "-o", "gcs.no-auth=true",
        "-o", "gcs.max-attempts=1", "-o", "gcs.connect-timeout-ms=500");
    assertThat(gcs).contains("could not connect").contains("gcs.endpoint");
    String key = Base64.getEncoder().encodeToString("not-a-real-key".getBytes(StandardCharsets.UTF_8));
    String azure = oneLineError(1, "scan", "az://account/container/t", "-o", "azure.endpoint=" + endpoint + "/account",
        "-o", "azure.account-name=account", "-o", "azure.account-key=" + key, "-o", "azure.max-retries=0",
        "-o", "azure.connect-timeout-ms=500");
    assertThat(azure).contains("could not connect").contains("azure.endpoint").doesNotContain(key);
    assertThat((System.nanoTime() - start) / 1_000_000).as("milliseconds").isLessThan(20_000);
  }

  // ------------------------------------------------------------------ injected store failures

  @Test
  void anyOtherStoreFailureIsAUserError() {
    String name = "denied-" + UUID.randomUUID();
    String uri = "faulty://" + name;
    ok("import", uri, people.toString());
    FaultInjectingObjectStore store = FaultyStores.store(name);
    store.arm(Op.LIST, k -> true, Fault.FAIL_BEFORE, 1);
    // FAIL_BEFORE throws a plain StoreException: a store failure that is not Quiver's bug is the user's too.
    assertThat(oneLineError(1, "scan", uri)).startsWith("error: injected FAIL_BEFORE on LIST");
    store.disarmAll();
  }

  // ------------------------------------------------------------------ unknown outcome

  /** Arms version 2's claim to fail (after or before acting) and its read-back to fail, then appends. */
  String unknownOutcome(String uri, FaultInjectingObjectStore store, Fault claim) throws IOException {
    store.armOnce(Op.PUT_IF_ABSENT, ObjectStoreCommitStore.manifestKey(2), claim);
    store.armOnce(Op.READ, ObjectStoreCommitStore.manifestKey(2), Fault.FAIL_BEFORE);
    CliRunner.Result r = CliRunner.run("import", uri, write("more.csv", "id,name\n3,cy\n").toString());
    assertThat(r.code()).as(r::toString).isEqualTo(4);
    assertThat(store.pendingFaults()).isEqualTo(0);
    List<String> lines = r.err().lines().filter(l -> !l.startsWith("import: ")).toList();
    assertThat(lines.size()).as(r::toString).isEqualTo(1);
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("internal error");
    String line = lines.get(0);
    assertThat(line).startsWith("outcome unknown: the outcome of the commit of transaction ")
        .contains("as version 2 of " + uri).contains("is unknown")
        .contains("Before retrying, look for transaction").contains("Do not delete the files it wrote")
        .contains("To find out: quiver log " + uri + " --transaction ");
    Matcher m = TRANSACTION.matcher(line);
    assertThat(m.find()).as(line).isTrue();
    return m.group(1);
  }

  @Test
  void aCommitWhoseOutcomeIsUnknownExitsFourAndTheLogTellsWhetherItCommitted() throws Exception {
    String name = "unknown-" + UUID.randomUUID();
    String uri = "faulty://" + name;
    FaultInjectingObjectStore store = FaultyStores.store(name);
    ok("import", uri, people.toString());

    // The claim took effect, its acknowledgement was lost, and the read-back failed: it did commit.
    String landed = unknownOutcome(uri, store, Fault.FAIL_AFTER);
    String log = ok("log", uri, "--transaction", landed).out();
    assertThat(log.lines().toList()).hasSize(3);
    assertThat(log.lines().toList().get(2)).startsWith("2 ").contains("append");
    assertThat(ok("scan", uri, "-f", "csv").out().lines().toList()).containsExactly("id,name", "1,ann", "2,bob", "3,cy");
  }

  @Test
  void aCommitRefusedBeforeActingIsStillReportedUnknownAndTheLogSaysItDidNotCommit() throws Exception {
    String name = "refused-" + UUID.randomUUID();
    String uri = "faulty://" + name;
    FaultInjectingObjectStore store = FaultyStores.store(name);
    ok("import", uri, people.toString());

    String lost = unknownOutcome(uri, store, Fault.FAIL_BEFORE);
    assertThat(oneLineError(1, "log", uri, "--transaction", lost))
        .isEqualTo("error: no version of " + uri + " holds transaction " + lost
            + ": it did not commit (or a cleanup has removed its version since)");
    assertThat(ok("info", uri).out()).contains("version:   1");
  }

  @Test
  void verbosePrintsTheStackTraceOfAStoreError() {
    String name = "verbose-" + UUID.randomUUID();
    String uri = "faulty://" + name;
    ok("import", uri, people.toString());
    FaultyStores.store(name).arm(Op.LIST, k -> true, Fault.FAIL_BEFORE, 1);
    CliRunner.Result r = CliRunner.run("--verbose", "info", uri);
    assertThat(r.code()).as(r::toString).isEqualTo(1);
    assertThat(r.err()).startsWith("error: injected FAIL_BEFORE on LIST").contains("\tat ")
        .doesNotContain("internal error");
  }

  @Test
  void theExceptionHierarchyMapsToExitCodesInOnePlace() {
    Throwable cause = new RuntimeException("sdk");
    assertThat(Main.exitCode(new io.quiver.exceptions.StoreNotFoundException("no bucket", cause))).isEqualTo(1);
    assertThat(Main.exitCode(new io.quiver.exceptions.StoreAccessDeniedException("denied", cause))).isEqualTo(1);
    assertThat(Main.exitCode(new io.quiver.exceptions.StoreUnreachableException("refused", cause))).isEqualTo(1);
    assertThat(Main.exitCode(new io.quiver.exceptions.StoreException("HTTP 500", cause, true))).isEqualTo(1);
    assertThat(Main.exitCode(new io.quiver.exceptions.TableNotFoundException("no table"))).isEqualTo(1);
    assertThat(Main.exitCode(new UserException("bad flag"))).isEqualTo(1);
    assertThat(Main.exitCode(new io.quiver.exceptions.IncompatibleTransactionException("conflict"))).isEqualTo(2);
    assertThat(Main.exitCode(new io.quiver.exceptions.CommitRetriesExhaustedException("lost every race"))).isEqualTo(2);
    assertThat(Main.exitCode(new io.quiver.exceptions.CorruptFileException("data/x.arrow", "bad footer"))).isEqualTo(3);
    assertThat(Main.exitCode(new IllegalStateException("bug"))).isEqualTo(3);
    assertThat(Main.exitCode(new RuntimeException("an SDK exception an adapter let escape"))).isEqualTo(3);
    assertThat(Main.exitCode(new io.quiver.exceptions.CommitStateUnknownException(
        "memory://t", 2, UUID.randomUUID().toString(), null, "claim and read-back failed", cause))).isEqualTo(4);
    // An adapter's unsettled conditional create is the same type, so the same code.
    assertThat(Main.exitCode(new io.quiver.exceptions.CommitStateUnknownException(
        "s3://b/t", "_versions/0000000000000000001.manifest", "HTTP 500 three times", cause))).isEqualTo(4);
  }

  @Test
  void helpListsTheExitCodes() {
    assertThat(ok("--help").out()).contains("Exit codes:").contains("1   user error")
        .contains("4   commit outcome unknown");
  }
}
