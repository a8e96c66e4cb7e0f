/**
 * The shape of hob.yaml, as one zod schema with every default in it, and the
 * built-in providers that need no configuration. Reading files and the
 * environment is load.ts's job, not this file's.
 */

import { z } from "zod";

/** The kinds of provider hob can talk to. */
export const PROVIDER_TYPES = ["openai", "anthropic", "claude-cli"] as const;
export type ProviderType = typeof PROVIDER_TYPES[number];

/**
 * How much of a hob.yaml value may be shown (`hob config show`, `GET /api/status`,
 * `hob doctor`); redact.ts walks the schema for these marks, so a key is
 * declared secret where it is defined and nowhere else.
 *
 * - `secret`: none of it — a key, a password, a credential header, an environment value.
 * - `url`: a URL without the credentials it may carry (`user:password@`, query values, fragment).
 * - `argv`: a command line without the values of secret-looking flags.
 * - `public`: all of it, though its name looks secret (it names an environment variable).
 */
export type Sensitivity = "secret" | "url" | "argv" | "public";

/** The marks of {@linkcode Sensitivity}: each marked schema, and what it holds. */
export const sensitivity = z.registry<{ sensitivity: Sensitivity }>();

/** Marks `schema` itself (not a copy, as `.meta()` would make) with `kind`. */
function marked<T extends z.ZodType>(schema: T, kind: Sensitivity): T {
  sensitivity.add(schema as z.ZodType, { sensitivity: kind });
  return schema;
}

/** Marks a schema's value as a secret, never shown. */
function secret<T extends z.ZodType>(schema: T): T {
  return marked(schema, "secret");
}

/** Marks a URL that may carry credentials, shown without them. */
function credentialUrl<T extends z.ZodType>(schema: T): T {
  return marked(schema, "url");
}

/** Marks a command line whose flags may carry secrets, shown without their values. */
function credentialArgs<T extends z.ZodType>(schema: T): T {
  return marked(schema, "argv");
}

/** Marks a value whose name looks secret but which holds none (the redaction test asks). */
function notSecret<T extends z.ZodType>(schema: T): T {
  return marked(schema, "public");
}

/** Default for how many times a failed request (429, 5xx, network) is retried. */
const DEFAULT_MAX_RETRIES = 2;
/** Default for how long one model request may take before it is abandoned. */
const DEFAULT_TIMEOUT_MS = 120_000;

const providerSchema = z.strictObject({
  type: z.enum(PROVIDER_TYPES).optional(),
  base_url: credentialUrl(z.url()).optional(),
  api_key: secret(z.string()).optional(),
  /** Read the key from this environment variable instead of the file; the name is no secret. */
  api_key_env: notSecret(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional(),
  /** Sent with every request; all values are secret, as most are credentials. */
  headers: z.record(z.string(), secret(z.string())).optional(),
  /** Models to list when the provider has no discovery endpoint. */
  models: z.array(z.string().min(1)).optional(),
  /** The program to run, for `claude-cli`. */
  command: z.string().min(1).optional(),
  timeout_ms: z.number().int().min(1_000).max(3_600_000).optional(),
  max_retries: z.number().int().min(0).max(10).optional(),
});

const policy = z.enum(["allow", "ask", "deny"]);
const pathList = z.union([z.literal(false), z.array(z.string().min(1))]);
const nameList = z.union([z.literal(false), z.array(z.string().min(1))]);

/** Commands `run_command` may run without asking, under the `ask` and `allowlist` shell policies. */
export const DEFAULT_SHELL_ALLOWLIST = [
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "pwd",
  "echo",
  "date",
  "sort",
  "uniq",
  "diff",
  "du",
  "df",
  "whoami",
  "uname",
  "which",
  "file",
  "stat",
  "tree",
  "find",
  "git",
  "true",
  "false",
];

const toolsSchema = z.strictObject({
  /** Directories file tools may use besides HOME/workspace. */
  roots: z.array(z.string().min(1)).default([]),
  /** Longest tool output kept, in characters. */
  output_cap: z.number().int().min(500).max(1_000_000).default(10_000),
  /** How long a call waits for the user's decision before it is denied. */
  approval_timeout_s: z.number().int().min(1).max(86_400).default(300),
  /** Per-tool policy: allow, ask or deny. */
  policies: z.record(z.string(), policy).default({}),
  /**
   * Once a turn has read untrusted content (a web page, a file, a command's output, an MCP
   * result, an upload), tools with side effects ask first, whatever their policy says.
   */
  taint: z.strictObject({
    enabled: z.boolean().default(true),
    /** Tools that keep their own policy in a tainted turn. */
    exempt: z.array(z.string().min(1)).default([]),
  }).prefault({}),
  shell: z.strictObject({
    policy: z.enum(["deny", "allowlist", "ask"]).default("ask"),
    allowlist: z.array(z.string().min(1)).default(DEFAULT_SHELL_ALLOWLIST),
  }).prefault({}),
  web: z.strictObject({
    /** Let fetch_url reach loopback, private and link-local addresses. */
    allow_private: z.boolean().default(false),
    /** Hosts fetch_url may reach even when they resolve to private addresses. */
    allow_hosts: z.array(z.string().min(1)).default([]),
    /**
     * A DNS server ("IP:port") fetch_url resolves names with instead of the system's
     * resolver; unset, the system's.
     */
    dns_server: z.string().regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/, {
      message: "expected 'IP:port', e.g. '1.1.1.1:53' or '[2606:4700:4700::1111]:53'",
    }).optional(),
    search: z.strictObject({
      provider: z.enum(["duckduckgo", "searxng", "brave"]).default("duckduckgo"),
      url: credentialUrl(z.url()).optional(),
      api_key: secret(z.string()).optional(),
    }).prefault({}),
  }).prefault({}),
  /** The most a user tool (HOME/tools/*.ts) may ask for; more is refused. */
  user_tools: z.strictObject({
    read: pathList.default(["$WORKSPACE"]),
    write: pathList.default(["$WORKSPACE"]),
    net: nameList.default(false),
    env: nameList.default(false),
    run: nameList.default(false),
  }).prefault({}),
  /** The Python interpreter run_python starts. */
  python: z.string().min(1).default("python3"),
}).prefault({});

const memorySchema = z.strictObject({
  /**
   * What embeds memory for search by meaning: `use-lite` (built in, offline),
   * `<provider>/<model>` for an OpenAI-compatible /v1/embeddings (e.g.
   * `ollama/nomic-embed-text`), `transformers:<model id or folder>`, or `none`
   * for keyword search alone.
   */
  embedder: z.string().regex(/^(use-lite|none|transformers:.+|[A-Za-z0-9][\w.-]*\/\S+)$/, {
    message: "expected use-lite, none, <provider>/<model> or transformers:<model>",
  }).default("use-lite"),
  /** Tokens of memory the system prompt carries each turn. */
  context_tokens: z.number().int().min(0).max(100_000).default(1_500),
  /** Search hits for the user's message in that section. */
  context_hits: z.number().int().min(0).max(20).default(4),
  /** How much the embedder's ranking counts against BM25's (1); by default 0.5 for use-lite, else 1. */
  vector_weight: z.number().min(0).max(10).optional(),
  flush: z.strictObject({
    enabled: z.boolean().default(true),
    /** A conversation's live history above this many tokens is summarised into the daily log. */
    threshold_tokens: z.number().int().min(1_000).max(10_000_000).default(16_000),
    /** The newest messages that stay live after a flush. */
    keep_messages: z.number().int().min(2).max(1_000).default(10),
  }).prefault({}),
}).prefault({});

const emailSchema = z.strictObject({
  smtp: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65_535).default(587),
    /** TLS from the start (port 465); otherwise STARTTLS when offered. */
    secure: z.boolean().default(false),
    user: z.string().optional(),
    password: secret(z.string()).optional(),
  }),
  from: z.string().min(3),
  /** Where email_file sends when the model names no recipient. */
  to: z.string().min(3).optional(),
});

const modelId = z.string().regex(/^[A-Za-z0-9][\w.-]*\/\S+$/, {
  message: "expected '<provider>/<model>', e.g. 'ollama/llama3.2'",
});
const timezone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, { message: "expected an IANA time zone such as 'Europe/Berlin'" });

const schedulerSchema = z.strictObject({
  /** Run scheduled jobs while `hob serve` runs. */
  enabled: z.boolean().default(true),
  /** The zone of cron schedules that name none; by default the machine's. */
  timezone: timezone.optional(),
}).prefault({});

const heartbeatSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** Minutes between heartbeat ticks. */
  interval_minutes: z.number().min(1).max(10_080).default(30),
  /** Only tick within these hours, e.g. "08:00-22:00" (may wrap midnight). */
  active_hours: z.string().regex(/^\d{1,2}:\d\d\s*-\s*\d{1,2}:\d\d$/, {
    message: "expected a range of hours such as '08:00-22:00'",
  }).optional(),
  /** The zone the active hours are in; by default the machine's. */
  timezone: timezone.optional(),
  /** A model for the heartbeat (a cheaper one, say); by default the chat model. */
  model: modelId.optional(),
}).prefault({});

const tasksSchema = z.strictObject({
  /** Task workers inside `hob serve`; 0 leaves tasks to `hob worker` processes. */
  workers: z.number().int().min(0).max(32).default(1),
  /** Longest one run of a task may take; claims held three times longer are reset. */
  max_run_minutes: z.number().min(0.1).max(1_440).default(15),
}).prefault({});

/** What hob adds to an MCP server's entry: how long a call may take and who clears it. */
const mcpOptions = {
  /** How long one tool call may take. */
  timeout_s: z.number().min(1).max(3_600).default(30),
  /** The policy for the server's tools (per-tool `tools.policies` entries win). */
  policy: policy.default("ask"),
  /** Let tools the server marks `readOnlyHint` run without asking. */
  allow_read_only: z.boolean().default(false),
  /** Off: configured but not started. */
  enabled: z.boolean().default(true),
};
/** One MCP server, in the `mcpServers` shape Claude Desktop uses: a command (stdio) or a URL. */
export const mcpServerSchema = z.union([
  z.strictObject({
    command: z.string().min(1),
    /** Shown without the values of flags such as `--api-key` (keys belong in `env`). */
    args: credentialArgs(z.array(z.string())).default([]),
    env: z.record(z.string(), secret(z.string())).default({}),
    cwd: z.string().min(1).optional(),
    ...mcpOptions,
  }),
  z.strictObject({
    url: credentialUrl(z.url({ protocol: /^https?$/ })),
    headers: z.record(z.string(), secret(z.string())).default({}),
    ...mcpOptions,
  }),
], { error: "expected {command, args?, env?} (stdio) or {url, headers?} (streamable HTTP)" });

/** The schema of hob.yaml. Every key has a default, so an empty file is valid. */
export const configSchema = z.strictObject({
  model: modelId.default("ollama/llama3.2"),
  server: z.strictObject({
    host: z.string().min(1).default("127.0.0.1"),
    port: z.number().int().min(0).max(65_535).default(8484),
    /** Largest request body accepted, in bytes. */
    max_body_bytes: z.number().int().min(1_024).max(1_073_741_824)
      .default(1_048_576),
    /** Largest file sent with a message (POST /api/uploads), in bytes. */
    max_upload_bytes: z.number().int().min(1_024).max(1_073_741_824).default(26_214_400),
    /**
     * Host names clients may use besides loopback and IP addresses (a LAN name, a proxy's name).
     * Any other `Host` is refused, which stops DNS rebinding.
     */
    allowed_hosts: z.array(
      z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$/, { error: "expected a host name" }),
    ).default([]),
    /** Wrong tokens one address may send per minute before it must wait out the minute. */
    max_auth_failures: z.number().int().min(1).max(10_000).default(20),
  }).prefault({}),
  providers: z.record(
    z.string().regex(/^[A-Za-z0-9][\w.-]*$/, {
      message: "provider names use letters, digits, '.', '_' and '-'",
    }),
    providerSchema,
  ).default({}),
  tools: toolsSchema,
  memory: memorySchema,
  email: emailSchema.optional(),
  scheduler: schedulerSchema,
  heartbeat: heartbeatSchema,
  tasks: tasksSchema,
  /** MCP servers whose tools join hob's as `<server>__<tool>`. */
  mcpServers: z.record(
    z.string().regex(/^[A-Za-z0-9][\w-]{0,30}$/, {
      message: "MCP server names use letters, digits, '_' and '-' (at most 31)",
    }),
    mcpServerSchema,
  ).default({}),
  agent: z.strictObject({
    max_tool_iterations: z.number().int().min(1).max(100).default(10),
    context_tokens: z.number().int().min(1_024).max(10_000_000).default(
      32_000,
    ),
    max_output_tokens: z.number().int().min(16).max(1_000_000).default(4_096),
    max_history_messages: z.number().int().min(2).max(100_000).default(200),
    /** Let the model title each new conversation from its first message. */
    auto_title: z.boolean().default(true),
  }).prefault({}),
});

/** hob.yaml as written: what the schema accepts. */
export type ConfigFile = z.input<typeof configSchema>;

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

/** The effective configuration: hob.yaml's keys with defaults, the providers completed. */
export type HobConfig = Omit<z.output<typeof configSchema>, "providers"> & {
  providers: Record<string, ProviderConfig>;
};

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

export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS };
