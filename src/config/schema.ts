/**
 * The shape of hob.yaml, as one zod schema with every default in it, and the
 * built-in providers that need no configuration. Reading files and the
 * environment is load.ts's job, not this file's.
 */

import { z } from "zod";

import { DURATION_PATTERN, durationMs } from "./duration.ts";
import {
  DEFAULT_CLI_IDLE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  PROVIDER_TYPES,
  type ProviderConfig,
} from "./providers.ts";

export {
  BUILTIN_PROVIDERS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  PROVIDER_TYPES,
  type ProviderConfig,
  type ProviderType,
} from "./providers.ts";

/**
 * How much of a hob.yaml value may be shown (`hob config show`, `GET /api/status`,
 * `hob doctor`); redact.ts hides what these marks say (through marks.gen.ts,
 * written from them by `deno task gen:config`), so a key is
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

const providerSchema = z.strictObject({
  type: z.enum(PROVIDER_TYPES).optional().describe(
    "How hob talks to it: `openai` (any OpenAI-compatible server), `anthropic` (the Messages API) or `claude-cli` (the Claude Code program); required unless the name is a built-in's.",
  ),
  base_url: credentialUrl(z.url()).optional().describe(
    "The API's address, e.g. `http://127.0.0.1:9000/v1`; required for `openai` and `anthropic` unless built in. Shown without credentials.",
  ),
  api_key: secret(z.string()).optional().describe(
    "The API key; never shown. A key in the `api_key_env` variable wins over this one.",
  ),
  api_key_env: notSecret(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional().describe(
    "Read the key from this environment variable instead of the file; the name is no secret.",
  ),
  headers: z.record(z.string(), secret(z.string())).optional().describe(
    "Sent with every request; all values are secret, as most are credentials.",
  ),
  models: z.array(z.string().min(1)).optional().describe(
    "Models to list when the provider has no discovery endpoint.",
  ),
  command: z.string().min(1).optional().describe("The program to run, for `claude-cli`."),
  timeout_ms: z.number().int().min(1_000).max(3_600_000).optional().describe(
    `How long a provider may take to start answering (to send its response's headers), in milliseconds; by default ${DEFAULT_TIMEOUT_MS}.`,
  ),
  idle_timeout_ms: z.number().int().min(1_000).max(3_600_000).optional().describe(
    `How long an answer may go quiet once it has begun — nothing from the provider, not even a keep-alive or the model's thinking — before it ends as failed with the text so far, in milliseconds; by default ${DEFAULT_IDLE_TIMEOUT_MS} (${DEFAULT_CLI_IDLE_TIMEOUT_MS} for \`claude-cli\`, which is silent while it runs its own tools). Raise it for a model that thinks longer without sending.`,
  ),
  max_retries: z.number().int().min(0).max(10).optional().describe(
    `How many times a failed request (429, 5xx, network) is retried; by default ${DEFAULT_MAX_RETRIES}.`,
  ),
});

/** A speech program's argv; `{input}`, `{output}`, `{text}`, `{voice}`, `{language}` are filled in per request. */
const speechCommand = credentialArgs(z.array(z.string().min(1)).min(1));
const speechProvider = z.string().regex(/^[A-Za-z0-9][\w.-]*$/).describe(
  "`command` (the program in `command`), or the name of an OpenAI-compatible provider in `providers` (its `base_url`, key and headers).",
);
const needsCommand = {
  message: "needs `command` when `provider` is `command`",
  path: ["command"],
};

const transcribeSchema = z.strictObject({
  provider: speechProvider,
  model: z.string().min(1).default("whisper-1").describe(
    "The provider's transcription model (e.g. `whisper-1`, `whisper-large-v3`).",
  ),
  command: speechCommand.optional().describe(
    'The program and its arguments, run on a 16 kHz mono WAV file `{input}`; its output is the text (`{language}` is filled in too). E.g. `[whisper-cli, -m, /models/ggml-base.en.bin, -nt, -np, -f, "{input}"]`.',
  ),
  language: z.string().regex(/^[a-z]{2,3}$/).optional().describe(
    "The language spoken, as ISO 639-1 (`en`); by default the provider guesses.",
  ),
  timeout_s: z.number().int().min(1).max(3_600).default(120).describe(
    "How long one transcription may take.",
  ),
}).refine((speech) => speech.provider !== "command" || !!speech.command, needsCommand);

const speakSchema = z.strictObject({
  provider: speechProvider,
  model: z.string().min(1).default("tts-1").describe(
    "The provider's speech model (e.g. `tts-1`, `kokoro`).",
  ),
  voice: z.string().min(1).max(100).default("alloy").describe(
    "The voice, as the provider names it.",
  ),
  command: speechCommand.optional().describe(
    'The program and its arguments; it reads the text on stdin (or as `{text}`) and writes WAV to `{output}` (or stdout). E.g. `[espeak-ng, --stdin, -w, "{output}"]`.',
  ),
  timeout_s: z.number().int().min(1).max(3_600).default(60).describe(
    "How long speaking one reply may take.",
  ),
}).refine((speech) => speech.provider !== "command" || !!speech.command, needsCommand);

const speechSchema = z.strictObject({
  transcribe: transcribeSchema.optional().describe(
    "Speech to text: the page's microphone, `hob transcribe`, `/v1/audio/transcriptions`, audio sent with a message, voice notes on channels.",
  ),
  speak: speakSchema.optional().describe(
    "Text to speech: `hob say`, `/v1/audio/speech`, the page's voice mode (without it, the browser's own voice speaks).",
  ),
  voice_replies: z.boolean().default(true).describe(
    "On a channel, answer a voice note with a voice note too (with `speak` set).",
  ),
}).prefault({});

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
  roots: z.array(z.string().min(1)).default([]).describe(
    "Directories file tools may use besides `HOME/workspace`; `~/notes` works, a relative path is taken from the hob home.",
  ),
  output_cap: z.number().int().min(500).max(1_000_000).default(10_000).describe(
    "Longest tool output kept, in characters.",
  ),
  approval_timeout_s: z.number().int().min(1).max(86_400).default(300).describe(
    "How long a call waits for the user's decision, in seconds, before it is denied.",
  ),
  offer: z.enum(["all", "relevant"]).default("all").describe(
    "Which tools each turn offers the model: `all`, or `relevant` — the core tools (`get_time`, `search_memory`, `remember_this`), those called in the last turns and those whose name, category and description share words with the message, within `offer_tokens`, plus `find_tools` for the model to ask for more; Agent Skills are listed the same way, within what the tools left of the budget. `relevant` suits small local models, for which the tool schemas are most of each request.",
  ),
  offer_tokens: z.number().int().min(100).max(100_000).default(1_200).describe(
    "With `offer: relevant`, the most (estimated) tokens of tool schemas offered up front, core tools included; a budget for models with small context windows.",
  ),
  policies: z.record(z.string(), policy).default({}).describe(
    "Per-tool policy, `<tool>: allow`, `ask` or `deny`, over the tool's own default: tools with an external side effect (`email_file`), `build_tool` and `build_skill` ask; the rest run unasked.",
  ),
  taint: z.strictObject({
    enabled: z.boolean().default(true).describe(
      "Off: tools keep their policies after untrusted content too.",
    ),
    exempt: z.array(z.string().min(1)).default([]).describe(
      "Tools that keep their own policy in a tainted turn.",
    ),
  }).prefault({}).describe(
    "Once a turn has read untrusted content (a web page, a file, a command's output, an MCP result, an upload), tools with side effects ask first, whatever their policy says.",
  ),
  shell: z.strictObject({
    policy: z.enum(["deny", "allowlist", "ask"]).default("ask").describe(
      "`deny`: no commands; `allowlist`: only allowlisted programs run; `ask`: allowlisted commands run, anything else asks.",
    ),
    allowlist: z.array(z.string().min(1)).default(DEFAULT_SHELL_ALLOWLIST).describe(
      "Programs `run_command` may run without asking (with their safe options only): a bare name or an exact absolute path.",
    ),
  }).prefault({}).describe("How `run_command` decides what runs."),
  web: z.strictObject({
    allow_private: z.boolean().default(false).describe(
      "Let `fetch_url` reach loopback, private and link-local addresses.",
    ),
    allow_hosts: z.array(z.string().min(1)).default([]).describe(
      "Hosts `fetch_url` may reach even when they resolve to private addresses.",
    ),
    dns_server: z.string().regex(/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]):\d{1,5}$/, {
      message: "expected 'IP:port', e.g. '1.1.1.1:53' or '[2606:4700:4700::1111]:53'",
    }).optional().describe(
      "A DNS server (`IP:port`) `fetch_url` resolves names with instead of the system's resolver; unset, the system's.",
    ),
    search: z.strictObject({
      provider: z.enum(["duckduckgo", "searxng", "brave"]).default("duckduckgo").describe(
        "The engine `web_search` asks: DuckDuckGo, SearXNG (with `url`) or Brave (with `api_key`).",
      ),
      url: credentialUrl(z.url()).optional().describe(
        "The SearXNG instance, for `searxng`; shown without credentials.",
      ),
      api_key: secret(z.string()).optional().describe(
        "The Brave Search API key, for `brave`; never shown.",
      ),
    }).prefault({}).describe("The search engine of `web_search`."),
  }).prefault({}).describe("What `fetch_url` and `web_search` may reach."),
  user_tools: z.strictObject({
    read: pathList.default(["$WORKSPACE"]).describe(
      "Paths a user tool may read: absolute, or starting with `$WORKSPACE`, `$ROOTS` or `$HOME` (the hob home); `false` for none.",
    ),
    write: pathList.default(["$WORKSPACE"]).describe(
      "Paths a user tool may write, in the same form; `false` for none.",
    ),
    net: nameList.default(false).describe(
      "Hosts a user tool may reach (`*` for any); `false` for none.",
    ),
    env: nameList.default(false).describe(
      "Environment variables a user tool may read; `false` for none.",
    ),
    run: nameList.default(false).describe("Programs a user tool may run; `false` for none."),
  }).prefault({}).describe(
    "The most a user tool (`HOME/tools/*.ts`) may ask for; a tool that asks for more is refused.",
  ),
  python: z.string().min(1).default("python3").describe(
    "The Python interpreter `run_python` starts.",
  ),
}).prefault({}).describe("What the model's tools may do.");

const memorySchema = z.strictObject({
  embedder: z.string().regex(/^(use-lite|none|transformers:.+|[A-Za-z0-9][\w.-]*\/\S+)$/, {
    message: "expected use-lite, none, <provider>/<model> or transformers:<model>",
  }).default("use-lite").describe(
    "What embeds memory for search by meaning: `use-lite` (built in, offline), `<provider>/<model>` for an OpenAI-compatible `/v1/embeddings` (e.g. `ollama/nomic-embed-text`), `transformers:<model id or folder>`, or `none` for keyword search alone.",
  ),
  context_tokens: z.number().int().min(0).max(100_000).default(1_500).describe(
    "Tokens of memory the system prompt carries each turn.",
  ),
  context_hits: z.number().int().min(0).max(20).default(4).describe(
    "Search hits for the user's message in that section.",
  ),
  vector_weight: z.number().min(0).max(10).optional().describe(
    "How much the embedder's ranking counts against BM25's (1); by default 0.5 for use-lite, else 1.",
  ),
  index_threads: z.number().int().min(1).max(8).default(2).describe(
    "Model threads the built-in embedder (`use-lite`) embeds a backlog with, at most one per core; each past the first holds its own ~150 MB copy of the model while the backlog lasts. 1 keeps indexing to one core.",
  ),
  flush: z.strictObject({
    enabled: z.boolean().default(true).describe(
      "Off: no auto-flush; older turns only drop out of the prompt to fit `agent.context_tokens`.",
    ),
    threshold_tokens: z.number().int().min(1_000).max(10_000_000).default(16_000).describe(
      "A conversation's live history above this many tokens is summarised into the daily log.",
    ),
    keep_messages: z.number().int().min(2).max(1_000).default(10).describe(
      "The newest messages that stay live after a flush.",
    ),
  }).prefault({}).describe(
    "The auto-flush of long conversations: the model first saves what must last, then the older messages are summarised into today's log and leave the live context.",
  ),
}).prefault({}).describe("Memory search and the prompt's memory section.");

const emailSchema = z.strictObject({
  smtp: z.strictObject({
    host: z.string().min(1).describe("The SMTP server's host name."),
    port: z.number().int().min(1).max(65_535).default(587).describe("Its port."),
    secure: z.boolean().default(false).describe(
      "TLS from the start (port 465); otherwise STARTTLS when offered.",
    ),
    user: z.string().optional().describe("The user to log in as."),
    password: secret(z.string()).optional().describe("The password; never shown."),
  }).describe("The server `email_file` sends through (nodemailer)."),
  from: z.string().min(3).describe("The sender's address."),
  to: z.string().min(3).optional().describe(
    "Where `email_file` sends when the model names no recipient.",
  ),
});

/** Ids on a channel (numbers as Telegram gives them are taken as text). */
const channelIds = z.array(z.union([z.string().min(1), z.number().int()]).transform(String));

const telegramSchema = z.strictObject({
  enabled: z.boolean().default(true).describe("Off: configured but not started."),
  token: secret(
    z.string().regex(/^\d+:[\w-]{20,}$/, {
      message: "expected a bot token from @BotFather, like '123456:ABC-DEF…'",
    }),
  ).optional().describe("The bot's token from @BotFather (or set `token_env`)."),
  token_env: notSecret(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional().describe(
    "The environment variable holding the token.",
  ),
  api_root: credentialUrl(z.url()).default("https://api.telegram.org").describe(
    "The Bot API server: Telegram's, or a local `telegram-bot-api`.",
  ),
  allow_from: channelIds.default([]).describe(
    "Your Telegram user ids: answered, and trusted as you. Empty: nobody is answered (`hob channels pending` shows who wrote).",
  ),
  guests: channelIds.default([]).describe(
    "Other user ids hob answers; what they write is untrusted, so side effects need your approval.",
  ),
  poll_timeout_s: z.number().int().min(1).max(50).default(30).describe(
    "How long one long poll waits for news.",
  ),
  replies_per_minute: z.number().int().min(1).max(120).default(10).describe(
    "Replies to one sender in a minute, at most; more messages are not answered.",
  ),
}).refine((telegram) => !telegram.enabled || telegram.token || telegram.token_env, {
  message: "needs `token` or `token_env`",
  path: ["token"],
});

const mailServer = (defaultPort: number, what: string) =>
  z.strictObject({
    host: z.string().min(1).describe(`The ${what} server's host name.`),
    port: z.number().int().min(1).max(65_535).default(defaultPort).describe("Its port."),
    secure: z.boolean().default(defaultPort === 993 || defaultPort === 465).describe(
      "TLS from the start; otherwise STARTTLS when offered.",
    ),
    user: z.string().optional().describe("The user to log in as (default: `address`)."),
    password: secret(z.string()).optional().describe("The password; never shown."),
    password_env: notSecret(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional().describe(
      "The environment variable holding the password.",
    ),
  });

const emailChannelSchema = z.strictObject({
  enabled: z.boolean().default(true).describe("Off: configured but not started."),
  address: z.email().describe(
    "hob's own address: where you write to, and the From of its replies.",
  ),
  imap: mailServer(993, "IMAP").describe("Where hob reads its mail (IDLE, else polling)."),
  smtp: mailServer(587, "SMTP").describe("Where hob sends its replies through."),
  mailbox: z.string().min(1).default("INBOX").describe("The folder hob reads."),
  allow_from: z.array(z.email().transform((address) => address.toLowerCase())).default([])
    .describe(
      "Your addresses: answered. Trusted as you only when `authserv_id`'s results say the mail is really from there.",
    ),
  guests: z.array(z.email().transform((address) => address.toLowerCase())).default([]).describe(
    "Other addresses hob answers; what they write is untrusted.",
  ),
  authserv_id: notSecret(z.string().min(1)).optional().describe(
    "The id your receiving server writes in Authentication-Results (e.g. `mx.example.org`). A mail counts as yours only when that header says DMARC (or aligned DKIM or SPF) passed; without it, your mail is answered as untrusted.",
  ),
  poll_timeout_s: z.number().int().min(1).max(1_740).default(300).describe(
    "How long hob waits for news in one IDLE before it looks again.",
  ),
  replies_per_minute: z.number().int().min(1).max(60).default(5).describe(
    "Replies to one sender in a minute, at most; more mail is not answered.",
  ),
});

const matrixId = z.string().regex(/^@[^:\s]+:\S+$/, { message: "expected '@user:server'" });

const matrixSchema = z.strictObject({
  enabled: z.boolean().default(true).describe("Off: configured but not started."),
  homeserver: credentialUrl(z.url()).describe(
    "The homeserver's URL, e.g. `https://matrix.example.org`.",
  ),
  user_id: matrixId.describe("hob's account, e.g. `@hob:example.org`."),
  access_token: secret(z.string().min(1)).optional().describe(
    "The account's access token (or set `access_token_env`).",
  ),
  access_token_env: notSecret(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional().describe(
    "The environment variable holding the access token.",
  ),
  allow_from: z.array(matrixId).default([]).describe(
    "Your Matrix ids: answered, trusted as you, and allowed to invite hob into rooms.",
  ),
  guests: z.array(matrixId).default([]).describe(
    "Other ids hob answers; what they write is untrusted.",
  ),
  poll_timeout_s: z.number().int().min(1).max(120).default(30).describe(
    "How long one `/sync` waits for news.",
  ),
  replies_per_minute: z.number().int().min(1).max(120).default(10).describe(
    "Replies to one sender in a minute, at most; more messages are not answered.",
  ),
}).refine((matrix) => !matrix.enabled || matrix.access_token || matrix.access_token_env, {
  message: "needs `access_token` or `access_token_env`",
  path: ["access_token"],
});

const channelsSchema = z.strictObject({
  telegram: telegramSchema.optional().describe("Telegram: a bot that answers you."),
  email: emailChannelSchema.optional().describe(
    "Email: hob reads a mailbox and replies in thread.",
  ),
  matrix: matrixSchema.optional().describe(
    "Matrix: hob answers in direct chats, and in rooms when mentioned.",
  ),
  notify: z.enum(["telegram", "email", "matrix"]).optional().describe(
    "Also send every notification (the heartbeat's findings, finished tasks) to you on this channel.",
  ),
}).refine((channels) => !channels.notify || channels[channels.notify], {
  message: "names a channel that is not configured here",
  path: ["notify"],
}).prefault({});

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
  enabled: z.boolean().default(true).describe("Run scheduled jobs while `hob serve` runs."),
  timezone: timezone.optional().describe(
    "The zone of cron schedules that name none, e.g. `Europe/Berlin`; by default the machine's.",
  ),
}).prefault({}).describe("Scheduled jobs.");

const heartbeatSchema = z.strictObject({
  enabled: z.boolean().default(true).describe("Run the heartbeat while `hob serve` runs."),
  interval_minutes: z.number().min(1).max(10_080).default(30).describe(
    "Minutes between heartbeat ticks.",
  ),
  active_hours: z.string().regex(/^\d{1,2}:\d\d\s*-\s*\d{1,2}:\d\d$/, {
    message: "expected a range of hours such as '08:00-22:00'",
  }).optional().describe(
    "Only tick within these hours, e.g. `08:00-22:00` (may wrap midnight); by default always.",
  ),
  timezone: timezone.optional().describe(
    "The zone the active hours are in; by default the machine's.",
  ),
  model: modelId.optional().describe(
    "A model for the heartbeat (a cheaper one, say); by default the chat model.",
  ),
}).prefault({}).describe(
  "The heartbeat: `identity/HEARTBEAT.md` read to the agent at intervals.",
);

/** The longest time between scheduled backups: a year. */
const MAX_BACKUP_EVERY_MS = 366 * 86_400_000;

const backupSchema = z.strictObject({
  every: z.string().regex(DURATION_PATTERN, {
    message: "expected a duration such as '1d', '12h' or '30m'",
  }).refine((every) => (durationMs(every) ?? 0) <= MAX_BACKUP_EVERY_MS, {
    message: "at most a year (366d)",
  }).optional().describe(
    "How often `hob serve` backs up the home, as `1d`, `12h`, `30m`; by default never (run `hob backup` yourself).",
  ),
  keep: z.number().int().min(1).max(1_000).default(7).describe(
    "After each scheduled backup, the oldest `hob-backup-*.tar.gz` in `backup.dir` are deleted until this many remain.",
  ),
  dir: z.string().min(1).default("backups").describe(
    "The folder of scheduled backups and of `hob backup` without a file, relative to the home; put it on another disk to survive losing this one.",
  ),
  with_secrets: z.boolean().default(false).describe(
    "Put the API token and hob.yaml's secrets into scheduled backups too; by default they are left out.",
  ),
}).prefault({}).describe(
  "Backups of the home (`hob backup`, `hob restore`, docs/operations.md).",
);

const tasksSchema = z.strictObject({
  workers: z.number().int().min(0).max(32).default(1).describe(
    "Task workers inside `hob serve`; 0 leaves tasks to `hob worker` processes.",
  ),
  max_run_minutes: z.number().min(0.1).max(1_440).default(15).describe(
    "Longest one run of a task may take; claims held three times longer are reset.",
  ),
}).prefault({}).describe("Background tasks.");

const usd = z.number().min(0).max(1_000_000);
const budgetSchema = z.strictObject({
  daily_usd: usd.optional().describe("Dollars a day (UTC) at most."),
  monthly_usd: usd.optional().describe("Dollars a calendar month (UTC) at most."),
});
const usageSchema = z.strictObject({
  prices: z.record(
    z.string().min(1),
    z.strictObject({
      input: usd.describe("USD per million prompt tokens."),
      output: usd.describe("USD per million output tokens."),
      cached: usd.optional().describe(
        "USD per million prompt tokens read from the provider's cache; by default `input`'s.",
      ),
    }),
  ).default({}).describe(
    "Prices per model, as `<provider>/<model>` or the model's own name (`gpt-4o`), added to and overriding hob's built-in table of a few hosted models; a model in neither costs 0 (local ones).",
  ),
  budgets: z.strictObject({
    daily_usd: usd.optional().describe("All model calls: dollars a day (UTC) at most."),
    monthly_usd: usd.optional().describe("All model calls: dollars a calendar month at most."),
    heartbeat: budgetSchema.optional().describe("The heartbeat's own caps."),
    jobs: z.record(z.string().min(1), budgetSchema).default({}).describe(
      "Caps per scheduled job, by its name.",
    ),
  }).prefault({}).describe(
    "Caps on spend: a job or heartbeat run that would go over one is not run (and says why, with one notification) until the next day or month; a chat is warned at 80 %.",
  ),
}).prefault({}).describe("Counting model calls: prices and budgets (`hob usage`, `/api/usage`).");

/** What hob adds to an MCP server's entry: how long a call may take and who clears it. */
const mcpOptions = {
  timeout_s: z.number().min(1).max(3_600).default(30).describe(
    "How long one tool call may take, in seconds.",
  ),
  policy: policy.default("ask").describe(
    "The policy for the server's tools (per-tool `tools.policies` entries win).",
  ),
  allow_read_only: z.boolean().default(false).describe(
    "Let tools the server marks `readOnlyHint` run without asking.",
  ),
  enabled: z.boolean().default(true).describe("Off: configured but not started."),
};
/** One MCP server, in the `mcpServers` shape Claude Desktop uses: a command (stdio) or a URL. */
export const mcpServerSchema = z.union([
  z.strictObject({
    command: z.string().min(1).describe(
      "Stdio: the program hob starts. An entry has either `command` or `url`.",
    ),
    args: credentialArgs(z.array(z.string())).default([]).describe(
      "Its arguments; shown without the values of flags such as `--api-key` (keys belong in `env`).",
    ),
    env: z.record(z.string(), secret(z.string())).default({}).describe(
      "Environment variables for it; the values are never shown.",
    ),
    cwd: z.string().min(1).optional().describe("The directory it starts in."),
    ...mcpOptions,
  }),
  z.strictObject({
    // The description goes inside the mark: `.describe()` returns a copy, which the mark is not on.
    url: credentialUrl(
      z.url({ protocol: /^https?$/ }).describe(
        "Streamable HTTP: the server's `http` or `https` URL; shown without credentials.",
      ),
    ),
    headers: z.record(z.string(), secret(z.string())).default({}).describe(
      "Sent with every request; the values are never shown.",
    ),
    ...mcpOptions,
  }),
], { error: "expected {command, args?, env?} (stdio) or {url, headers?} (streamable HTTP)" });

/** The schema of hob.yaml. Every key has a default, so an empty file is valid. */
export const configSchema = z.strictObject({
  model: modelId.default("ollama/llama3.2").describe(
    "The model conversations use unless they pick another, as `<provider>/<model>`; env `HOB_MODEL`.",
  ),
  server: z.strictObject({
    host: z.string().min(1).default("127.0.0.1").describe(
      "The address to listen on; any but loopback prints a warning. Env `HOB_HOST`.",
    ),
    port: z.number().int().min(0).max(65_535).default(8484).describe(
      "The port to listen on. Env `HOB_PORT`.",
    ),
    max_body_bytes: z.number().int().min(1_024).max(1_073_741_824)
      .default(1_048_576).describe(
        "Largest request body accepted, in bytes; a larger one gets 413.",
      ),
    max_upload_bytes: z.number().int().min(1_024).max(1_073_741_824).default(26_214_400)
      .describe("Largest file sent with a message (`POST /api/uploads`), in bytes."),
    allowed_hosts: z.array(
      z.string().regex(/^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$/, { error: "expected a host name" }),
    ).default([]).describe(
      "Host names clients may use besides loopback and IP addresses (a LAN name, a proxy's name). Any other `Host` is refused, which stops DNS rebinding.",
    ),
    max_auth_failures: z.number().int().min(1).max(10_000).default(20).describe(
      "Wrong tokens one address may send per minute; then it gets 429 for wrong ones until the minute ends.",
    ),
  }).prefault({}).describe("The HTTP server: the page, `/api`, `/v1` and `/mcp`."),
  providers: z.record(
    z.string().regex(/^[A-Za-z0-9][\w.-]*$/, {
      message: "provider names use letters, digits, '.', '_' and '-'",
    }),
    providerSchema,
  ).default({}).describe(
    "Model providers by name, added to the built-ins; an entry named like a built-in overrides its fields.",
  ),
  tools: toolsSchema,
  memory: memorySchema,
  email: emailSchema.optional().describe(
    "Email for `email_file`; the tool is off until this is set.",
  ),
  channels: channelsSchema.describe(
    "Where else hob answers you: Telegram (email and Matrix to come).",
  ),
  speech: speechSchema.describe(
    "Voice: speech to text and text to speech, through an OpenAI-compatible provider or a local program.",
  ),
  scheduler: schedulerSchema,
  heartbeat: heartbeatSchema,
  tasks: tasksSchema,
  backup: backupSchema,
  usage: usageSchema,
  mcpServers: z.record(
    z.string().regex(/^[A-Za-z0-9][\w-]{0,30}$/, {
      message: "MCP server names use letters, digits, '_' and '-' (at most 31)",
    }),
    mcpServerSchema,
  ).default({}).describe(
    "MCP servers whose tools join hob's as `<server>__<tool>`, in the shape Claude Desktop uses: a command (stdio) or a URL (streamable HTTP). A tool is offered to models once you approved its definition (`hob mcp approve SERVER`, or the page's Tools panel), and again after each change.",
  ),
  agent: z.strictObject({
    max_tool_iterations: z.number().int().min(1).max(100).default(10).describe(
      "Model calls per turn.",
    ),
    context_tokens: z.number().int().min(1_024).max(10_000_000).default(
      32_000,
    ).describe(
      "The model's context window; older turns are dropped to fit, and the model is told.",
    ),
    max_output_tokens: z.number().int().min(16).max(1_000_000).default(
      DEFAULT_MAX_OUTPUT_TOKENS,
    ).describe(
      "Tokens reserved for the reply.",
    ),
    max_history_messages: z.number().int().min(2).max(100_000).default(200).describe(
      "Messages read per turn before fitting.",
    ),
    auto_title: z.boolean().default(true).describe(
      "Let the model title each new conversation from its first message.",
    ),
  }).prefault({}).describe("The agent loop."),
});

/** hob.yaml as written: what the schema accepts. */
export type ConfigFile = z.input<typeof configSchema>;

/** What the schema makes of hob.yaml: every key with its default, the providers as written. */
export type ParsedConfig = z.output<typeof configSchema>;

/** The effective configuration: hob.yaml's keys with defaults, the providers completed. */
export type HobConfig = Omit<z.output<typeof configSchema>, "providers"> & {
  providers: Record<string, ProviderConfig>;
};
