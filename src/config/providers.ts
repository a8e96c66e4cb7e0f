/**
 * The providers hob knows without configuration and the defaults of a
 * provider's fields: plain data, free of the schema's library, so a command
 * that finds hob.yaml unchanged completes its providers without loading it.
 */

/** The kinds of provider hob can talk to. */
export const PROVIDER_TYPES = ["openai", "anthropic", "claude-cli"] as const;
export type ProviderType = typeof PROVIDER_TYPES[number];

/** Default for how many times a failed request (429, 5xx, network) is retried. */
export const DEFAULT_MAX_RETRIES = 2;
/** Default for how long one model request may take before it is abandoned. */
export const DEFAULT_TIMEOUT_MS = 120_000;
/** Default for the tokens reserved for a reply; also what a provider that needs a cap asks for when a request sets none. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;

/** A provider after defaults and the built-ins are applied. */
export interface ProviderConfig {
  name: string;
  type: ProviderType;
  base_url?: string;
  api_key?: string;
  /** The environment variable the key came from (or should come from). */
  api_key_env?: string;
  headers: Record<string, string>;
  models: string[];
  command?: string;
  timeout_ms: number;
  max_retries: number;
  builtin: boolean;
}

type BuiltinProvider = Omit<
  ProviderConfig,
  "name" | "builtin" | "timeout_ms" | "max_retries" | "headers" | "models"
>;

/** Providers that work without configuration; hob.yaml may override any field. */
export const BUILTIN_PROVIDERS: Record<string, BuiltinProvider> = {
  ollama: {
    type: "openai",
    base_url: "http://localhost:11434/v1",
    api_key: "ollama",
  },
  lmstudio: {
    type: "openai",
    base_url: "http://localhost:1234/v1",
    api_key: "lm-studio",
  },
  openrouter: {
    type: "openai",
    base_url: "https://openrouter.ai/api/v1",
    api_key_env: "OPENROUTER_API_KEY",
  },
  openai: {
    type: "openai",
    base_url: "https://api.openai.com/v1",
    api_key_env: "OPENAI_API_KEY",
  },
  anthropic: {
    type: "anthropic",
    base_url: "https://api.anthropic.com",
    api_key_env: "ANTHROPIC_API_KEY",
  },
  "claude-cli": { type: "claude-cli", command: "claude" },
};
