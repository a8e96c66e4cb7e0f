/**
 * What every provider adapter in this folder offers the router: streaming one
 * answer for a model of its own, and listing its models. The router, not the
 * adapters, knows model ids of the form `<provider>/<model>`.
 */

import type { LlmEvent, LlmRequest } from "../core/types.ts";

/** A model a provider offers. */
export interface ModelInfo {
  /** The hob model id: `<provider>/<model>`. */
  id: string;
  provider: string;
  /** The provider's own name for the model. */
  name: string;
}

/** One provider, configured. */
export interface ProviderAdapter {
  readonly name: string;
  /** Streams an answer from `model` (the provider's own model name). Never throws. */
  stream(model: string, request: LlmRequest): AsyncIterable<LlmEvent>;
  /** Lists the provider's models; throws a readable Error when it cannot. */
  listModels(signal: AbortSignal): Promise<ModelInfo[]>;
  /** Loads what the first answer needs (an SDK), so it is not loaded then. Never throws. */
  prepare?(): Promise<void>;
}
