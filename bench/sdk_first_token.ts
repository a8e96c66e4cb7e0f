// A bound of the start-up figure "first token" (bench/startup.ts): a script that only
// imports the openai SDK and streams one reply from the provider at Deno.args[0] until
// its first token. hob's first chat after a cold start does this and more, so its
// ratio to the floor cannot be lower than this script's while it talks through the SDK.
const { default: OpenAI } = await import("openai");
const client = new OpenAI({ baseURL: Deno.args[0], apiKey: "bench", maxRetries: 0 });
const stream = await client.chat.completions.create({
  model: "fake-model",
  messages: [{ role: "user", content: "Hello" }],
  stream: true,
});
for await (const chunk of stream) {
  if (chunk.choices[0]?.delta?.content) break;
}
