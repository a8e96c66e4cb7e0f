/**
 * Turning a provider's failure into an LlmFailure a person can act on: which
 * provider, what went wrong, what to try. Adapters classify their SDK's errors
 * into a FailureKind; the wording lives here once.
 */

import type { LlmEvent, LlmFailure } from "../core/types.ts";
import type { ProviderConfig } from "../config/schema.ts";
import { StreamIdleError } from "./idle.ts";

/** What went wrong, as far as an adapter could tell. */
export type FailureKind =
  | { kind: "connection"; detail?: string }
  | { kind: "timeout" }
  /** The answer began, then nothing more came for `idleMs`. */
  | { kind: "idle"; idleMs: number }
  | { kind: "http"; status: number; detail?: string }
  | { kind: "missing_command"; command: string }
  | { kind: "other"; detail: string };

// deno-lint-ignore no-explicit-any
type ErrorClass = abstract new (...args: any[]) => Error;

/** The error classes the official OpenAI and Anthropic SDKs both export (they are generated alike). */
export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIUserAbortError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
}

/**
 * Classifies an error thrown by either official SDK.
 *
 * @example
 * ```ts
 * describeFailure(provider, classifySdkError(await import("openai"), error));
 * ```
 */
export function classifySdkError(sdk: SdkErrorClasses, error: unknown): FailureKind {
  if (error instanceof sdk.APIConnectionTimeoutError) return { kind: "timeout" };
  if (error instanceof sdk.APIConnectionError) return { kind: "connection" };
  if (error instanceof sdk.APIError) {
    const { status, apiMessage, error: body } = error as Error & {
      status?: number;
      apiMessage?: string | null;
      error?: { message?: unknown };
    };
    // Anthropic's client parses the API's message; OpenAI's keeps the error body.
    const detail = apiMessage ??
      (typeof body?.message === "string" ? body.message : undefined);
    if (status) return { kind: "http", status, detail };
    return { kind: "other", detail: detail ?? error.message };
  }
  return { kind: "other", detail: (error as Error)?.message ?? String(error) };
}

/** How to start the local servers the built-in providers expect. */
const START_HINTS: Record<string, string> = {
  ollama: "is `ollama serve` running?",
  lmstudio: "is LM Studio's local server started?",
};

/**
 * Describes a failure of `provider`.
 *
 * @example
 * ```ts
 * describeFailure(ollama, { kind: "connection" }).message;
 * // "provider 'ollama' is not reachable at http://localhost:11434/v1 — is `ollama serve` running?"
 * ```
 */
export function describeFailure(
  provider: ProviderConfig,
  failure: FailureKind,
): LlmFailure {
  const name = `provider '${provider.name}'`;
  switch (failure.kind) {
    case "connection":
      return {
        code: "provider_unreachable",
        message: `${name} is not reachable at ${provider.base_url} — ${
          START_HINTS[provider.name] ??
            "is the server running and the base_url right?"
        }`,
      };
    case "timeout":
      return {
        code: "provider_timeout",
        message: `${name} did not answer within ${
          Math.round(provider.timeout_ms / 1000)
        } s — try again, or raise providers.${provider.name}.timeout_ms`,
      };
    case "idle":
      return {
        code: "provider_timeout",
        message: `${name} stopped sending mid-answer: nothing came for ${
          seconds(failure.idleMs)
        } s, so the answer ends here — try again, or raise providers.${provider.name}.idle_timeout_ms if its model pauses longer to think`,
      };
    case "missing_command":
      return {
        code: "provider_unreachable",
        message:
          `${name} needs the '${failure.command}' program, which was not found — install Claude Code or set providers.${provider.name}.command`,
      };
    case "other":
      return {
        code: "provider_error",
        message: `${name} failed: ${failure.detail}`,
      };
    case "http":
      return describeStatus(provider, failure.status, failure.detail);
  }
}

/** Milliseconds as seconds to show: whole when they are, else to a tenth. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(1);
}

function describeStatus(
  provider: ProviderConfig,
  status: number,
  detail: string | undefined,
): LlmFailure {
  const name = `provider '${provider.name}'`;
  const said = detail ? `: ${detail}` : "";
  if (status === 401 || status === 403) {
    const where = provider.api_key_env
      ? `set ${provider.api_key_env}`
      : `check providers.${provider.name}.api_key`;
    return {
      code: "auth_failed",
      status,
      message: provider.api_key
        ? `${name} rejected the API key (${status})${said} — ${where}`
        : `${name} needs an API key (${status}) — ${where}`,
    };
  }
  if (status === 404) {
    return {
      code: "model_not_found",
      status,
      message: `${name} does not know that model (404)${said} — 'hob models' lists what it offers`,
    };
  }
  if (status === 429) {
    return {
      code: "rate_limited",
      status,
      message:
        `${name} is rate limiting requests (429) and retries did not help${said} — wait a moment and try again`,
    };
  }
  if (status >= 500) {
    return {
      code: "provider_error",
      status,
      message: `${name} failed with ${status}${said} — try again shortly`,
    };
  }
  return {
    code: "bad_request",
    status,
    message: `${name} refused the request (${status})${said}`,
  };
}

/**
 * The event a stream ends with when an official SDK threw: none when the
 * caller stopped it (the SDK's abort, or the request's signal), otherwise an
 * `error` event worded for the person — also when the provider went quiet
 * (idle.ts ended the body).
 *
 * @example
 * ```ts
 * } catch (error) {
 *   const failed = sdkFailureEvent(provider, sdk, error, request.signal);
 *   if (failed) yield failed;
 * }
 * ```
 */
export function sdkFailureEvent(
  provider: ProviderConfig,
  sdk: SdkErrorClasses,
  error: unknown,
  signal?: AbortSignal,
): LlmEvent | null {
  if (error instanceof sdk.APIUserAbortError || signal?.aborted) return null;
  if (error instanceof StreamIdleError) {
    return {
      type: "error",
      error: describeFailure(provider, { kind: "idle", idleMs: error.idleMs }),
    };
  }
  return { type: "error", error: describeFailure(provider, classifySdkError(sdk, error)) };
}
