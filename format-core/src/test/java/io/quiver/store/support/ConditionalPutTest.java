package io.quiver.store.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.quiver.exceptions.CommitStateUnknownException;
import io.quiver.exceptions.QuiverException;
import io.quiver.exceptions.StoreAccessDeniedException;
import io.quiver.exceptions.StoreException;
import io.quiver.store.ObjectStore.PutResult;
import io.quiver.store.support.ConditionalPut.Answer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The retry-and-settle loop against a scripted store: every path of the decision, no I/O. */
class ConditionalPutTest {
  private static final String TOKEN = "our-token";

  /** A failure the script classifies by its message. */
  private static final class Scripted extends RuntimeException {
    final Failure kind;

    Scripted(Failure kind) {
      super(kind.name());
      this.kind = kind;
    }
  }

  /** Each send and each read-back takes the next scripted step; a RuntimeException step is thrown. */
  private static final class Script implements ConditionalPut.Store {
    final Deque<Object> sends = new ArrayDeque<>();
    final Deque<Object> reads = new ArrayDeque<>();
    final List<String> calls = new ArrayList<>();

    Script send(Object... steps) {
      sends.addAll(List.of(steps));
      return this;
    }

    Script read(Object... steps) {
      reads.addAll(List.of(steps));
      return this;
    }

    @Override
    public Answer send(String token) {
      assertThat(token).as("every send carries the call's one token").isEqualTo(TOKEN);
      calls.add("send");
      Object step = sends.removeFirst();
      if (step instanceof RuntimeException e) {
        throw e;
      }
      return (Answer) step;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Optional<String> liveToken() {
      calls.add("read");
      Object step = reads.removeFirst();
      if (step instanceof RuntimeException e) {
        throw e;
      }
      return (Optional<String>) step;
    }

    @Override
    public Failure classify(RuntimeException failure) {
      return ((Scripted) failure).kind;
    }

    @Override
    public QuiverException toException(RuntimeException failure) {
      Failure kind = classify(failure);
      return kind.exception(Failure.Call.CREATE, "create (if absent)", "mem://s", "k", kind.name(), "", failure);
    }

    @Override
    public String describe(RuntimeException failure) {
      return failure.getMessage();
    }
  }

  private static PutResult run(Script script, int attempts) {
    return new ConditionalPut("mem://s", "k", attempts, Backoff.NONE).run(script, TOKEN);
  }

  private static Scripted fail(Failure kind) {
    return new Scripted(kind);
  }

  @Test
  void createdAndALostRaceAreAnsweredAtOnce() {
    assertThat(run(new Script().send(Answer.CREATED), 3)).isEqualTo(PutResult.CREATED);
    Script lost = new Script().send(Answer.EXISTS);
    assertThat(run(lost, 3)).isEqualTo(PutResult.ALREADY_EXISTS);
    assertThat(lost.calls).as("no read-back without doubt").isEqualTo(List.of("send"));
  }

  @Test
  void aLostAcknowledgementIsSettledByTheTokenWhenTheResendAnswersExists() {
    Script ours = new Script().send(fail(Failure.TRANSIENT), Answer.EXISTS).read(Optional.of(TOKEN));
    assertThat(run(ours, 3)).isEqualTo(PutResult.CREATED);
    assertThat(ours.calls).isEqualTo(List.of("send", "send", "read"));
    Script rival = new Script().send(fail(Failure.TRANSIENT), Answer.EXISTS).read(Optional.of("their-token"));
    assertThat(run(rival, 3)).isEqualTo(PutResult.ALREADY_EXISTS);
    Script written = new Script().send(fail(Failure.TRANSIENT), Answer.EXISTS).read(Optional.of(""));
    assertThat(run(written, 3)).as("an object without a token is another writer's").isEqualTo(PutResult.ALREADY_EXISTS);
  }

  @Test
  void nothingCreatedAfterDoubtIsSimplyCreatedByTheResend() {
    Script retried = new Script().send(fail(Failure.TRANSIENT), Answer.CREATED);
    assertThat(run(retried, 3)).isEqualTo(PutResult.CREATED);
    assertThat(retried.calls).as("nothing is read when nothing says exists").isEqualTo(List.of("send", "send"));
  }

  @Test
  void existsAnsweredToAResendIsSettledByToken() {
    assertThat(run(new Script().send(Answer.EXISTS_AFTER_RESEND).read(Optional.of(TOKEN)), 3)).isEqualTo(PutResult.CREATED);
    assertThat(run(new Script().send(Answer.EXISTS_AFTER_RESEND).read(Optional.of("x")), 3)).isEqualTo(PutResult.ALREADY_EXISTS);
  }

  @Test
  void anObjectGoneWhenReadIsSentAgain() {
    Script script = new Script().send(fail(Failure.TRANSIENT), Answer.EXISTS, Answer.CREATED).read(Optional.empty());
    assertThat(run(script, 3)).isEqualTo(PutResult.CREATED);
  }

  @Test
  void refusalsAreRetriedAndTheLastIsReportedTransient() {
    assertThat(run(new Script().send(fail(Failure.REFUSED), fail(Failure.UNREACHABLE), Answer.CREATED), 3)).isEqualTo(PutResult.CREATED);
    StoreException e = assertThatExceptionOfType(StoreException.class).isThrownBy(() -> run(new Script().send(fail(Failure.REFUSED), fail(Failure.REFUSED)), 2)).actual();
    assertThat(e).isNotInstanceOf(CommitStateUnknownException.class);
    assertThat(e.isTransient()).as("nothing was created").isTrue();
  }

  @Test
  void aFinalFailureWithoutDoubtIsTheAdaptersException() {
    Script denied = new Script().send(fail(Failure.REFUSED), fail(Failure.ACCESS_DENIED));
    assertThatExceptionOfType(StoreAccessDeniedException.class).isThrownBy(() -> run(denied, 3));
    assertThat(denied.calls).isEqualTo(List.of("send", "send"));
  }

  @Test
  void aFinalFailureAfterDoubtIsAnUnknownOutcome() {
    Script script = new Script().send(fail(Failure.TRANSIENT), fail(Failure.PERMANENT));
    CommitStateUnknownException e = assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(() -> run(script, 3)).actual();
    assertThat(e.key()).contains("k");
    assertThat(e.getCause()).hasMessage("PERMANENT");
    assertThat(e.getSuppressed()).hasSize(1);
  }

  @Test
  void oneAttemptThatMayHaveActedIsAnUnknownOutcome() {
    Script script = new Script().send(fail(Failure.TRANSIENT));
    CommitStateUnknownException e = assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(() -> run(script, 1)).actual();
    assertThat(script.calls).as("one attempt: nothing is sent again, nothing is read").isEqualTo(List.of("send"));
    assertThat(e.location()).isEqualTo("mem://s");
    assertThat(e.key()).contains("k");
    assertThat(e.version()).isEmpty();
    assertThat(e.transactionUuid()).isEmpty();
    assertThat(e.isTransient()).isFalse();
    assertThat(e.getMessage()).contains("mem://s/k").contains("outcome is unknown").contains("1 attempt");
  }

  @Test
  void doubtLeftWhenAttemptsRunOutNamesTheFailedReadBack() {
    Script script = new Script().send(fail(Failure.TRANSIENT), Answer.EXISTS).read(fail(Failure.TRANSIENT));
    CommitStateUnknownException e = assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(() -> run(script, 2)).actual();
    assertThat(e.getMessage()).contains("2 attempts").contains("reading the object's token back failed");
  }

  @Test
  void anObjectThatKeepsAppearingAndVanishingIsAnUnknownOutcome() {
    Script script = new Script().send(Answer.EXISTS_AFTER_RESEND, Answer.EXISTS).read(Optional.empty(), Optional.empty());
    CommitStateUnknownException e = assertThatExceptionOfType(CommitStateUnknownException.class).isThrownBy(() -> run(script, 2)).actual();
    assertThat(e.getMessage()).contains("there and gone again");
  }

  @Test
  void onlyOneMetadataKeyIsValidEverywhere() {
    assertThat(ConditionalPut.TOKEN_METADATA_KEY).matches("[a-z]+");
  }
}
