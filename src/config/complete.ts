/**
 * Completing what the schema read: the providers filled in from the built-ins
 * and the environment, the embedder checked against them. Loading (load.ts)
 * completes a reading; parsing (parse.ts) asks what completing would find
 * wrong, so every problem of hob.yaml is told at once.
 */

import {
  BUILTIN_PROVIDERS,
  DEFAULT_CLI_IDLE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  PROVIDER_TYPES,
  type ProviderConfig,
} from "./providers.ts";
import { type Blame, ConfigError } from "./errors.ts";
import type { HobConfig, ParsedConfig } from "./schema.ts";

/**
 * The schema's output with the providers completed from the built-ins and the
 * environment; throws a ConfigError with every problem completing found.
 */
export function complete(
  parsed: ParsedConfig,
  env: Record<string, string | undefined>,
  blame: Blame,
): HobConfig {
  const problems: ConfigError[] = [];
  const providers = completeProviders(parsed.providers, env, blame, problems);
  checkEmbedder(parsed.memory.embedder, providers, blame, problems);
  if (problems.length > 0) throw ConfigError.of(problems);
  return { ...parsed, providers };
}

/**
 * What completing would find wrong in hob.yaml's mapping as it was read, for
 * when the schema refused it too: every problem is told at once, not the
 * schema's first and the providers' after they are fixed.
 */
export function completionProblems(
  data: Record<string, unknown>,
  env: Record<string, string | undefined>,
  blame: Blame,
): ConfigError[] {
  const mapping = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  const own = Object.fromEntries(
    Object.entries(mapping(data.providers) ? data.providers : {})
      .filter(([, provider]) => mapping(provider)),
  ) as ParsedConfig["providers"];
  const problems: ConfigError[] = [];
  const providers = completeProviders(own, env, blame, problems);
  const embedder = mapping(data.memory) ? data.memory.embedder : undefined;
  if (typeof embedder === "string") checkEmbedder(embedder, providers, blame, problems);
  return problems;
}

/**
 * The built-in providers and hob.yaml's, each with every field filled in; a
 * provider that cannot be completed is left out, its problem added to `problems`.
 */
function completeProviders(
  own: ParsedConfig["providers"],
  env: Record<string, string | undefined>,
  blame: Blame,
  problems: ConfigError[],
): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = {};
  const names = new Set([
    ...Object.keys(BUILTIN_PROVIDERS),
    ...Object.keys(own),
  ]);
  for (const name of names) {
    const provider = completeProvider(name, own[name] ?? {}, env, blame);
    if (provider instanceof ConfigError) problems.push(provider);
    else providers[name] = provider;
  }
  return providers;
}

/** One provider: hob.yaml's fields over the built-in's, then the defaults; or what it lacks. */
function completeProvider(
  name: string,
  own: ParsedConfig["providers"][string],
  env: Record<string, string | undefined>,
  blame: Blame,
): ProviderConfig | ConfigError {
  const builtin = BUILTIN_PROVIDERS[name];
  const type = own.type ?? builtin?.type;
  if (!type) {
    return blame(
      `providers.${name}.type`,
      ["providers", name],
      `required for a provider that is not built in: one of ${PROVIDER_TYPES.join(", ")}`,
    );
  }
  const keyEnv = own.api_key_env ?? builtin?.api_key_env;
  const provider: ProviderConfig = {
    name,
    type,
    base_url: own.base_url ?? builtin?.base_url,
    api_key: (keyEnv ? env[keyEnv] : undefined) || own.api_key ||
      builtin?.api_key,
    api_key_env: keyEnv,
    headers: own.headers ?? {},
    models: own.models ?? [],
    command: own.command ?? builtin?.command,
    timeout_ms: own.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    idle_timeout_ms: own.idle_timeout_ms ??
      (type === "claude-cli" ? DEFAULT_CLI_IDLE_TIMEOUT_MS : DEFAULT_IDLE_TIMEOUT_MS),
    max_retries: own.max_retries ?? DEFAULT_MAX_RETRIES,
    builtin: builtin !== undefined,
  };
  if (type !== "claude-cli" && !provider.base_url) {
    return blame(
      `providers.${name}.base_url`,
      ["providers", name],
      "required for an openai or anthropic provider, e.g. 'http://127.0.0.1:9000/v1'",
    );
  }
  return provider;
}

/** An embedder served by a provider must name an OpenAI-compatible one. */
function checkEmbedder(
  embedder: string,
  providers: Record<string, ProviderConfig>,
  blame: Blame,
  problems: ConfigError[],
): void {
  if (!/^[^:]+\/./.test(embedder) || embedder.startsWith("transformers:")) return;
  const provider = embedder.slice(0, embedder.indexOf("/"));
  if (!providers[provider] || providers[provider].type !== "openai") {
    problems.push(blame(
      "memory.embedder",
      ["memory", "embedder"],
      `'${provider}' is not an OpenAI-compatible provider in providers:`,
    ));
  }
}
