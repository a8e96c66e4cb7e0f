/** Provider configs and event collection for adapter tests. */

import type { ProviderConfig } from "../../src/config/schema.ts";
import type { LlmEvent, LlmRequest } from "../../src/core/types.ts";

/** A provider config with test-friendly defaults (no retries, short timeout). */
export function providerConfig(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    name: "fake",
    type: "openai",
    base_url: "http://127.0.0.1:9/v1",
    api_key: "test-key",
    headers: {},
    models: [],
    timeout_ms: 10_000,
    idle_timeout_ms: 10_000,
    max_retries: 0,
    builtin: false,
    ...overrides,
  };
}

/** A minimal request. */
export function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: "fake/fake-model",
    system: "You are a test.",
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    ...overrides,
  };
}

/** Collects every event of a stream. */
export async function collect(stream: AsyncIterable<LlmEvent>): Promise<LlmEvent[]> {
  const events: LlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The concatenated text of some events. */
export function textOf(events: LlmEvent[]): string {
  return events.map((e) => (e.type === "text" ? e.text : "")).join("");
}

/** A port nothing listens on. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** The failure of an `error` event; throws when the event is anything else. */
export function failureOf(event: LlmEvent | undefined) {
  if (event?.type !== "error") {
    throw new Error(`expected an error event, got ${JSON.stringify(event)}`);
  }
  return event.error;
}
