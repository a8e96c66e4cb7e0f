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
/** Default for how long a provider may take to start answering (its response's headers). */
export const DEFAULT_TIMEOUT_MS = 120_000;
/**
 * Default for how long a provider's answer may go quiet before it is given up: long enough for
 * a reasoning model that thinks without sending (keep-alives and thinking both count as sending).
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
/**
 * The same for the Claude Code CLI, which says nothing while it runs a tool of its own: as long
 * as its longest command may run (its Bash tool's 10-minute cap).
 */
export const DEFAULT_CLI_IDLE_TIMEOUT_MS = 600_000;
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
  /** How long the answer may go without a byte (an event, a keep-alive) before it fails. */
  idle_timeout_ms: number;
  max_retries: number;
  builtin: boolean;
}

type BuiltinProvider = Omit<
  ProviderConfig,
  "name" | "builtin" | "timeout_ms" | "idle_timeout_ms" | "max_retries" | "headers" | "models"
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
