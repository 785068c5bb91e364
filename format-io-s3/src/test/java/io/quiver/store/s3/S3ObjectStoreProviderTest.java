package io.quiver.store.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.exceptions.InvalidArgumentException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.FetchTuning;
import io.quiver.store.ObjectStore.ObjectWriter;
import io.quiver.store.ObjectStore;
import io.quiver.store.ObjectStores;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the adapter decides without reaching S3; the rest is in conformance-tests' S3 ITs. */
class S3ObjectStoreProviderTest {
  private static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  private final S3ObjectStoreProvider provider = new S3ObjectStoreProvider();

  private static Map<String, String> options(String endpoint) {
    return Map.of(
        "s3.endpoint", endpoint,
        "s3.path-style-access", "true",
        "s3.access-key-id", "AKIDEXAMPLE",
        "s3.secret-access-key", SECRET,
        "s3.max-retries", "0",
        "s3.connection-timeout-ms", "2000");
  }

  private S3ObjectStore open(String uri) {
    return (S3ObjectStore) provider.open(URI.create(uri), options("http://127.0.0.1:9"));
  }

  @Test
  void registeredForTheS3Scheme() {
    assertThat(ObjectStores.defaultRegistry().schemes()).contains("s3");
    try (ObjectStore s = ObjectStores.defaultRegistry().open("S3://bucket/t", options("http://127.0.0.1:9"))) {
      assertThat(s).isInstanceOf(S3ObjectStore.class);
      assertThat(s.location()).isEqualTo("s3://bucket/t");
    }
  }

  @Test
  void asksScansForCloudRequestShapes() {
    try (S3ObjectStore s = open("s3://bucket/t")) {
      assertThat(s.fetchTuning()).as("a GET costs a round trip: 1 MiB gap, 8 in flight").isEqualTo(FetchTuning.CLOUD);
    }
  }

  @Test
  void uriNamesBucketAndRootPrefix() {
    try (S3ObjectStore s = open("s3://my-bucket/warehouse/db/table/")) {
      assertThat(s.bucket()).isEqualTo("my-bucket");
      assertThat(s.rootPrefix()).isEqualTo("warehouse/db/table/");
      assertThat(s.location()).isEqualTo("s3://my-bucket/warehouse/db/table");
      assertThat(s.locationOf("_versions/x")).isEqualTo("s3://my-bucket/warehouse/db/table/_versions/x");
      assertThat(s.objectKey("data/f.arrow")).isEqualTo("warehouse/db/table/data/f.arrow");
    }
    try (S3ObjectStore s = open("s3://my-bucket")) {
      assertThat(s.rootPrefix()).isEmpty();
      assertThat(s.location()).isEqualTo("s3://my-bucket");
      assertThat(s.objectKey("k")).isEqualTo("k");
    }
    try (S3ObjectStore s = open("s3://my-bucket/")) {
      assertThat(s.rootPrefix()).isEmpty();
    }
  }

  @Test
  void badUrisAreRefused() {
    for (String uri : new String[] {"s3:///path", "s3://bucket/a//b", "s3://bucket/a/../b", "s3://bucket/t?x=1"}) {
      assertThatThrownBy(() -> open(uri)).as(uri).isInstanceOf(InvalidArgumentException.class);
    }
    assertThatThrownBy(() -> open("s3://AKID:" + SECRET.replace("/", "") + "@bucket/t"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageNotContaining(SECRET.replace("/", ""));
  }

  @Test
  void invalidKeysAreRefusedBeforeAnyRequest() {
    try (S3ObjectStore s = open("s3://bucket/t")) {
      assertThatThrownBy(() -> s.read("../x")).isInstanceOf(InvalidArgumentException.class);
      assertThatThrownBy(() -> s.deleteAll(java.util.List.of("ok", "a//b"))).isInstanceOf(InvalidArgumentException.class);
    }
  }

  @Test
  void toStringShowsWhereButNoCredentials() {
    try (S3ObjectStore s = open("s3://bucket/t")) {
      assertThat(s.toString()).contains("s3://bucket/t").contains("127.0.0.1:9")
          .doesNotContain(SECRET).doesNotContain("AKIDEXAMPLE");
    }
  }

  @Test
  void smallWriterAbortedSendsNothing() throws Exception {
    try (S3ObjectStore s = open("s3://bucket/t")) {
      ObjectWriter w = s.openWriter("k");
      w.write(new byte[1000]);
      w.write(7);
      assertThat(w.position()).isEqualTo(1001);
      w.abort();
      w.close();
      assertThatThrownBy(() -> w.write(1)).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void refusedConnectionIsTransientAndKeepsSecretsOut() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      port = socket.getLocalPort();
    }
    try (ObjectStore s = provider.open(URI.create("s3://bucket/t"), options("http://127.0.0.1:" + port))) {
      StoreException read = (StoreException) catchThrowable(() -> s.read("k"));
      assertThat(read.isTransient()).isTrue();
      assertThat(read.getMessage()).contains("s3://bucket/t/k").contains("s3.endpoint");
      assertThat(read).isInstanceOf(io.quiver.exceptions.StoreUnreachableException.class);
      assertNoSecret(read);
      StoreException put = (StoreException) catchThrowable(() -> s.putIfAbsent("k", new byte[1]));
      assertThat(put.isTransient()).as("nothing was sent, so nothing was created").isTrue();
      assertNoSecret(put);
      assertNoSecret((StoreException) catchThrowable(() -> s.list("", Optional.empty(), 1)));
      assertThat(s.deleteAll(java.util.List.of("a", "b"))).containsExactly("a", "b");
    }
  }

  private static Throwable catchThrowable(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
    Throwable t = org.assertj.core.api.Assertions.catchThrowable(call);
    assertThat(t).isInstanceOf(StoreException.class);
    return t;
  }

  private static void assertNoSecret(Throwable e) {
    StringWriter text = new StringWriter();
    e.printStackTrace(new PrintWriter(text));
    assertThat(text.toString()).doesNotContain(SECRET);
  }
}
