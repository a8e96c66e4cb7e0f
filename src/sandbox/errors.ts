/** The sandbox's error: a Worker or tool process that cannot be started or is shut down. */

/** Raised when a Worker cannot be started or dies; the message says why. */
export class SandboxError extends Error {
  override name = "SandboxError";
}
