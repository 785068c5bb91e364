package io.quiver.exceptions;

import java.util.List;

/**
 * Validation of a table version found problems: files missing or not matching the manifest, or
 * manifest invariants broken. The message lists them; {@link #problems()} has one line per problem.
 */
public class ValidationException extends QuiverException {
  private static final long serialVersionUID = 1L;
  private final List<String> problems;

  public ValidationException(String message, List<String> problems) {
    super(message);
    this.problems = List.copyOf(problems);
  }

  /** One line per problem: kind, location and detail. */
  public List<String> problems() {
    return problems;
  }
}
