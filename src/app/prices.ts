/**
 * What a model call costs: a price table per model (USD per million tokens),
 * hob's defaults for a few hosted models under the owner's own entries. Knows
 * no provider and no store; a model in no table costs 0 (local ones).
 */

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Prompt tokens read from the provider's cache; `input`'s price when unset. */
  cached?: number;
}

/** A price table: by `<provider>/<model>` or the model's own name. */
export type PriceTable = Record<string, ModelPrice>;

/**
 * List prices of a few well-known hosted models (USD per million tokens, as
 * published in 2026). The owner's `usage.prices` entries override them.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = {
  "gpt-4o": { input: 2.5, output: 10, cached: 1.25 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cached: 0.075 },
  "gpt-4.1": { input: 2, output: 8, cached: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cached: 0.1 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cached: 0.025 },
  "o4-mini": { input: 1.1, output: 4.4, cached: 0.275 },
  "claude-opus-4-1": { input: 15, output: 75, cached: 1.5 },
  "claude-sonnet-4-5": { input: 3, output: 15, cached: 0.3 },
  "claude-sonnet-4-0": { input: 3, output: 15, cached: 0.3 },
  "claude-haiku-4-5": { input: 1, output: 5, cached: 0.1 },
  "claude-3-5-haiku-latest": { input: 0.8, output: 4, cached: 0.08 },
};

/** Token counts to price. `input_tokens` includes the cached ones. */
export interface PricedTokens {
  input_tokens: number;
  output_tokens: number;
  cached_tokens?: number;
}

/**
 * The price of `model` (`<provider>/<model>`): the owner's entry for the full
 * id, then for the model's own name (also without a vendor prefix, as
 * OpenRouter spells `openai/gpt-4o`), then hob's default. Null when none.
 *
 * @example
 * ```ts
 * priceOf("openai/gpt-4o", {}); // { input: 2.5, output: 10, cached: 1.25 }
 * priceOf("ollama/llama3.2", {}); // null
 * ```
 */
export function priceOf(model: string, prices: PriceTable): ModelPrice | null {
  const name = model.slice(model.indexOf("/") + 1);
  const bare = name.slice(name.lastIndexOf("/") + 1);
  for (const table of [prices, DEFAULT_PRICES]) {
    const found = table[model] ?? table[name] ?? table[bare];
    if (found) return found;
  }
  return null;
}

/**
 * What the tokens of one call to `model` cost, in USD.
 *
 * @example
 * ```ts
 * costOf("openai/gpt-4o", { input_tokens: 1_000_000, output_tokens: 0 }, {}); // 2.5
 * ```
 */
export function costOf(model: string, tokens: PricedTokens, prices: PriceTable): number {
  const price = priceOf(model, prices);
  if (!price) return 0;
  const cached = Math.min(tokens.cached_tokens ?? 0, tokens.input_tokens);
  const usd = (tokens.input_tokens - cached) * price.input +
    cached * (price.cached ?? price.input) + tokens.output_tokens * price.output;
  return usd / 1_000_000;
}
