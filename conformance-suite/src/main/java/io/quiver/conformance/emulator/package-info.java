/**
 * Starting and stopping the store emulators the suites run against (S3Proxy, fake-gcs-server, Azurite) as
 * child processes on 127.0.0.1; a missing emulator is a failure, not a skip.
 */
package io.quiver.conformance.emulator;
