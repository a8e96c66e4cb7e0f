/**
 * What to do when hob's model does not answer, in one wording for every place
 * that says it: `hob serve` as it starts, the page's banner and any client
 * (through `GET /api/models`).
 */

import type { HobConfig } from "../config/schema.ts";
import { scrubSecrets, secretValues } from "../config/redact.ts";
import type { DiscoveryReport, LlmRouter } from "../llm/router.ts";

/**
 * Advice when the provider of `model` did not answer discovery, or null when
 * it did: how to start it or point hob elsewhere, `hob onboard`, and (for a
 * built-in provider) the API-key variables hob reads.
 *
 * @example
 * ```ts
 * modelAdvice("ollama/llama3.2", await runtime.discover()); // "The model ollama/llama3.2 is not reachable … 'hob onboard' …"
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

/**
 * The advice for hob.yaml's model as `hob serve` starts, or null when its
 * provider answers: a missing key is known without asking, else the provider
 * is asked for its models once (one request, as discovery makes). Never throws.
 *
 * @example
 * ```ts
 * const advice = await startAdvice(runtime.llm, runtime.config, stopping.signal);
 * if (advice) console.error(`hob: ${advice}`);
 * ```
 */
export async function startAdvice(
  llm: Pick<LlmRouter, "reach" | "checkModel">,
  config: HobConfig,
  signal?: AbortSignal,
): Promise<string | null> {
  try {
    const unknown = llm.checkModel(config.model);
    if (unknown) {
      return `The ${unknown}: correct model in hob.yaml and restart hob, or run 'hob onboard' to choose one.`;
    }
    const status = await llm.reach(config.model, signal);
    if (!status) return null;
    // A provider's error may quote its URL with a password in it: never shown.
    const shown = scrubSecrets(status, secretValues(config));
    return modelAdvice(config.model, { models: [], providers: [shown] });
  } catch {
    return null;
  }
}
