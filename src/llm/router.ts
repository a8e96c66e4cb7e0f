/**
 * The LlmPort the agent sees: routes a model id `<provider>/<model>` to the
 * configured provider's adapter, and discovers the models of all providers at
 * once. Tool calls a model wrote as text become tool calls here, for every
 * provider, and a reply in gpt-oss's harmony markup becomes its final text.
 * The only file in src/llm that knows every adapter.
 */

import type { LlmPort } from "../core/ports.ts";
import type { LlmEvent, LlmRequest } from "../core/types.ts";
import type { HobConfig, ProviderConfig } from "../config/schema.ts";
import { createAnthropicProvider } from "./anthropic.ts";
import { createClaudeCliProvider } from "./claude_cli.ts";
import { withHarmony } from "./harmony.ts";
import { createOpenAiCompatProvider } from "./openai_compat.ts";
import type { ModelInfo, ProviderAdapter } from "./provider.ts";
import { withTextCalls } from "./text_call_stream.ts";

/** How one provider answered model discovery. */
export interface ProviderStatus {
  name: string;
  type: ProviderConfig["type"];
  base_url?: string;
  /** One hob knows without configuration (ollama, lmstudio, openrouter, …), not one hob.yaml defines. */
  builtin: boolean;
  ok: boolean;
  models: number;
  error?: string;
  /** The variable to set, when the provider needs a key and has none (known without asking it). */
  missing_key?: string;
}

/** Every model found, and how each provider answered. */
export interface DiscoveryReport {
  models: ModelInfo[];
  providers: ProviderStatus[];
}

/** The router: an LlmPort plus discovery and model-id checks. */
export interface LlmRouter extends LlmPort {
  /** Asks every provider for its models, concurrently, each with a short timeout. */
  discover(signal?: AbortSignal): Promise<DiscoveryReport>;
  /**
   * How the provider of `model` answers, asked as discovery asks it — and
   * not asked at all when it has no key; null when no provider has its name.
   */
  reach(model: string, signal?: AbortSignal): Promise<ProviderStatus | null>;
  /** Why `model` cannot be used, or null when it names a configured provider. */
  checkModel(model: string): string | null;
  /** Loads what `model`'s first answer needs, ahead of it. Never throws. */
  prepare(model: string): Promise<void>;
}

/**
 * Creates the router over the configured providers. Adapters are built on
 * first use, so providers that are never used cost nothing.
 *
 * @example
 * ```ts
 * const llm = createLlmRouter(config);
 * llm.checkModel("ollama/llama3.2"); // null
 * ```
 */
export function createLlmRouter(config: HobConfig): LlmRouter {
  const adapters = new Map<string, ProviderAdapter>();
  const adapterFor = (provider: ProviderConfig): ProviderAdapter => {
    let adapter = adapters.get(provider.name);
    if (!adapter) {
      adapter = createAdapter(provider);
      adapters.set(provider.name, adapter);
    }
    return adapter;
  };
  const split = (model: string) => {
    const slash = model.indexOf("/");
    return slash > 0
      ? { provider: model.slice(0, slash), name: model.slice(slash + 1) }
      : { provider: "", name: model };
  };

  const checkModel = (model: string): string | null => {
    const { provider, name } = split(model);
    if (!provider || !name) {
      return `model '${model}' is not of the form '<provider>/<model>', e.g. 'ollama/llama3.2'`;
    }
    if (!config.providers[provider]) {
      return `model '${model}' names an unknown provider '${provider}' — known: ${
        Object.keys(config.providers).join(", ")
      }`;
    }
    return null;
  };

  return {
    checkModel,
    prepare: async (model) => {
      const { provider } = split(model);
      if (!checkModel(model)) await adapterFor(config.providers[provider]).prepare?.();
    },

    async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
      const problem = checkModel(request.model);
      if (problem) {
        yield {
          type: "error",
          error: { code: "unknown_model", message: problem },
        };
        return;
      }
      const { provider, name } = split(request.model);
      // Every provider's reply, so a model that writes its calls as text can use tools too.
      const answer = withHarmony(adapterFor(config.providers[provider]).stream(name, request));
      yield* withTextCalls(request, answer);
    },

    async discover(signal = new AbortController().signal) {
      const answers = await Promise.all(
        Object.values(config.providers).map((provider) => probe(provider, adapterFor, signal)),
      );
      return {
        models: answers.flatMap((a) => a.models),
        providers: answers.map((a) => a.status),
      };
    },

    async reach(model, signal = new AbortController().signal) {
      const provider = config.providers[split(model).provider];
      return provider ? (await probe(provider, adapterFor, signal)).status : null;
    },
  };
}

/** One provider's models and status: asked for its list, unless it has no key to ask with. */
async function probe(
  provider: ProviderConfig,
  adapterFor: (provider: ProviderConfig) => ProviderAdapter,
  signal: AbortSignal,
): Promise<{ status: ProviderStatus; models: ModelInfo[] }> {
  const status: ProviderStatus = {
    name: provider.name,
    type: provider.type,
    base_url: provider.base_url,
    builtin: provider.builtin,
    ok: false,
    models: 0,
  };
  if (provider.type !== "claude-cli" && needsKey(provider) && !provider.api_key) {
    status.error = `no API key${provider.api_key_env ? ` — set ${provider.api_key_env}` : ""}`;
    status.missing_key = provider.api_key_env;
    return { status, models: [] };
  }
  try {
    const found = await adapterFor(provider).listModels(signal);
    const listed = provider.models
      .map((name) => ({ id: `${provider.name}/${name}`, provider: provider.name, name }))
      .filter((m) => !found.some((f) => f.id === m.id));
    const models = [...found, ...listed];
    status.ok = true;
    status.models = models.length;
    return { status, models };
  } catch (error) {
    status.error = (error as Error).message;
    return { status, models: [] };
  }
}

/** Remote services need a key; local servers and custom endpoints may not. */
function needsKey(provider: ProviderConfig): boolean {
  return provider.builtin && provider.api_key_env !== undefined;
}

function createAdapter(provider: ProviderConfig): ProviderAdapter {
  switch (provider.type) {
    case "openai":
      return createOpenAiCompatProvider(provider);
    case "anthropic":
      return createAnthropicProvider(provider);
    case "claude-cli":
      return createClaudeCliProvider(provider);
  }
}
