package io.quiver.internal.txn;

/** A transaction together with the version it was committed as. */
public record CommittedTransaction(long version, Transaction transaction) {}
