/**
 * The model actions — which models the providers offer, whether hob.yaml's
 * model can be used, whether it calls tools — each defined once: `GET
 * /api/models`, `/v1/models`, `hob models` and `hob doctor` are translators
 * over these. It is handed the router's discovery (cached, secrets taken out),
 * its check of a model id and a one-off call; it knows no provider. What to
 * do when the model does not answer is worded here, once, for every place
 * that says it: `hob serve` as it starts, the page's banner, any client.
 */

import type { DiscoveryReport } from "../llm/router.ts";

export type { DiscoveryReport };

/** How a model answered the doctor's request to call a tool. */
export interface ToolCallProbe {
  /** Whether it called the tool it was asked to. */
  called: boolean;
  /** Why not, when the request failed or timed out. */
  error?: string;
}

/** What the model actions work on (the runtime's router). */
export interface ModelDeps {
  /** Model discovery, reused briefly; `refresh` asks the providers again. */
  discover(refresh?: boolean): Promise<DiscoveryReport>;
  /** Why `model` cannot be used, or null when it names a configured provider. */
  checkModel(model: string): string | null;
  /** Asks `model` once, with hob's `get_time` tool, to call it. */
  probeToolCall(model: string): Promise<ToolCallProbe>;
}

/** The model actions. */
export interface ModelActions {
  /** Every model found and how each provider answered; `refresh` skips the short cache. */
  discover(input?: { refresh?: boolean }): Promise<DiscoveryReport>;
  /** Why `model` cannot be used (no such provider, no key), or null. */
  check(model: string): string | null;
  /** Whether `model` calls a tool when asked to. */
  probeToolCall(model: string): Promise<ToolCallProbe>;
}

/**
 * Builds the model actions.
 *
 * @example
 * ```ts
 * const models = createModelActions({ discover, checkModel, probeToolCall });
 * const { models: found } = await models.discover({ refresh: true });
 * ```
 */
export function createModelActions(deps: ModelDeps): ModelActions {
  return {
    discover: (input = {}) => deps.discover(input.refresh === true),
    check: (model) => deps.checkModel(model),
    probeToolCall: (model) => deps.probeToolCall(model),
  };
}

/**
 * Advice when the provider of `model` did not answer discovery, or null when
 * it did: how to start it or point hob elsewhere, `hob onboard`, and (for a
 * built-in provider) the API-key variables hob reads.
 *
 * @example
 * ```ts
 * modelAdvice("ollama/llama3.2", await hob.app.models.discover()); // "The model ollama/llama3.2 is not reachable … 'hob onboard' …"
 * ```
 */
export function modelAdvice(model: string, report: DiscoveryReport): string | null {
  const name = model.split("/")[0];
  const provider = report.providers.find((each) => each.name === name);
  if (provider?.ok) return null;
  if (provider?.missing_key) {
    return `The model ${model} needs an API key: set ${provider.missing_key} and restart hob, or run 'hob onboard' to choose another model.`;
  }
  const why = provider?.error ? ` (${provider.error})` : "";
  if (provider && !provider.builtin) {
    return `The model ${model} comes from your provider ${name}${
      provider.base_url ? ` at ${provider.base_url}` : ""
    }, which did not answer${why}. Start that server, or correct providers.${name} in hob.yaml and restart hob, or run 'hob onboard' to choose another model.`;
  }
  return `The model ${model} is not reachable${why}. Start Ollama (ollama serve) or LM Studio, run 'hob onboard' to choose a model, or set OPENAI_API_KEY, OPENROUTER_API_KEY or ANTHROPIC_API_KEY and restart hob.`;
}
