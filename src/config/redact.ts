/**
 * The configuration as it may be shown: API keys and header values replaced,
 * so `hob config show` output can be pasted into a bug report.
 */

import type { HobConfig } from "./schema.ts";

/** What a secret is shown as. */
export const REDACTED = "<redacted>";

/** Headers whose values are credentials. */
const SECRET_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|cookie)$/i;

/**
 * A deep copy of `config` with every secret replaced by {@linkcode REDACTED}.
 * Keys of local servers that need none (Ollama's "ollama") are secrets too: a
 * rule with no exceptions is the one that never leaks.
 *
 * @example
 * ```ts
 * console.log(YAML.stringify(redactConfig(config)));
 * ```
 */
export function redactConfig(config: HobConfig): HobConfig {
  const providers: HobConfig["providers"] = {};
  for (const [name, provider] of Object.entries(config.providers)) {
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(provider.headers)) {
      headers[header] = SECRET_HEADER.test(header) ? REDACTED : value;
    }
    providers[name] = {
      ...provider,
      ...(provider.api_key ? { api_key: REDACTED } : {}),
      headers,
    };
  }
  return structuredClone({ ...config, providers });
}
