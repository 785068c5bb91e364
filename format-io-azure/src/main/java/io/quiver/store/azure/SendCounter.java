package io.quiver.store.azure;

import com.azure.core.http.HttpPipelineCallContext;
import com.azure.core.http.HttpPipelineNextPolicy;
import com.azure.core.http.HttpPipelineNextSyncPolicy;
import com.azure.core.http.HttpPipelinePosition;
import com.azure.core.http.HttpResponse;
import com.azure.core.http.policy.HttpPipelinePolicy;
import com.azure.core.util.Context;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * Counts how many times the SDK sent one call (its retry policy may resend), when the call's {@link
 * Context} carries a counter under {@link #KEY}. A conditional create that got "already exists" on its
 * first send lost the race; on a resend it may be answering to our own earlier, successful send.
 */
final class SendCounter implements HttpPipelinePolicy {
  static final String KEY = "quiver-send-counter";

  static Context context(AtomicInteger counter) {
    return new Context(KEY, counter);
  }

  private static void count(HttpPipelineCallContext context) {
    context.getData(KEY).ifPresent(c -> ((AtomicInteger) c).incrementAndGet());
  }

  @Override
  public Mono<HttpResponse> process(HttpPipelineCallContext context, HttpPipelineNextPolicy next) {
    count(context);
    return next.process();
  }

  @Override
  public HttpResponse processSync(HttpPipelineCallContext context, HttpPipelineNextSyncPolicy next) {
    count(context);
    return next.processSync();
  }

  @Override
  public HttpPipelinePosition getPipelinePosition() {
    return HttpPipelinePosition.PER_RETRY;
  }
}
