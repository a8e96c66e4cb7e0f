/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint — Ollama's
 * `nomic-embed-text`, LM Studio, OpenAI — through the configured provider.
 */

import type { ProviderConfig } from "../config/schema.ts";
import { type Embedder, normalize } from "./embedder.ts";

/** Texts per request. */
const BATCH = 64;

/**
 * Creates the embedder for `model` at `provider`.
 *
 * @example
 * ```ts
 * const embedder = createOpenAiEmbedder(config.providers.ollama, "nomic-embed-text");
 * ```
 */
export function createOpenAiEmbedder(provider: ProviderConfig, model: string): Embedder {
  const base = (provider.base_url ?? "").replace(/\/+$/, "");
  // nomic-embed-text is trained with task prefixes; without them its rankings suffer.
  const prefixes = /nomic/i.test(model)
    ? { document: "search_document: ", query: "search_query: " }
    : { document: "", query: "" };
  let checked: Promise<void> | undefined;
  let ready = false;

  const request = async (input: string[]): Promise<Float32Array[]> => {
    let response: Response;
    try {
      response = await fetch(`${base}/embeddings`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...provider.headers,
          ...(provider.api_key ? { authorization: `Bearer ${provider.api_key}` } : {}),
        },
        body: JSON.stringify({ model, input }),
        signal: AbortSignal.timeout(provider.timeout_ms),
      });
    } catch {
      throw new Error(`embedding provider '${provider.name}' is not reachable at ${base}`);
    }
    if (!response.ok) {
      const detail = await response.text().catch(() => "");
      throw new Error(
        `embedding provider '${provider.name}' answered ${response.status} for model '${model}': ${
          detail.slice(0, 200)
        }`,
      );
    }
    const body = await response.json() as { data?: { embedding: number[]; index?: number }[] };
    const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    if (data.length !== input.length) {
      throw new Error(
        `embedding provider '${provider.name}' returned ${data.length} vectors for ${input.length} texts`,
      );
    }
    return data.map((d) => normalize(d.embedding));
  };

  return {
    id: `openai:${provider.name}/${model}`,
    maxChars: 8_000,
    isReady: () => ready,
    load() {
      checked ??= request(["hob"]).then(() => {
        ready = true;
      });
      return checked;
    },
    async embed(texts, kind) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        out.push(...await request(texts.slice(i, i + BATCH).map((t) => prefixes[kind] + t)));
      }
      ready = true;
      return out;
    },
    close() {},
  };
}
