/**
 * What to do when hob's model does not answer, in one wording for every place
 * that says it: the page's banner and any client (through `GET /api/models`).
 */

import type { DiscoveryReport } from "../llm/router.ts";

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
  const why = provider?.error ? ` (${provider.error})` : "";
  if (provider && !provider.builtin) {
    return `The model ${model} comes from your provider ${name}${
      provider.base_url ? ` at ${provider.base_url}` : ""
    }, which did not answer${why}. Start that server, or correct providers.${name} in hob.yaml and restart hob, or run 'hob onboard' to choose another model.`;
  }
  return `The model ${model} is not reachable${why}. Start Ollama (ollama serve) or LM Studio, run 'hob onboard' to choose a model, or set OPENAI_API_KEY, OPENROUTER_API_KEY or ANTHROPIC_API_KEY and restart hob.`;
}
