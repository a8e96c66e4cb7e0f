import { configWithoutSecrets } from "../../src/backup/config_secrets.ts";
import { assert, assertEquals, assertStringIncludes } from "../helpers/assert.ts";

Deno.test("configWithoutSecrets takes out what the schema marks secret and keeps the rest", async (t) => {
  const text = `# my hob
model: fake/m # the model
providers:
  fake:
    base_url: "http://ada:pw-123456@127.0.0.1:9/v1"
    api_key: sk-live-123456789   # the key
channels:
  telegram: { token: "123456:ABCDEF", allow_from: [42] }
mcpServers:
  web: { command: mcp-web, args: ["--api-key", "key-987654321"], env: { TOKEN: t-1234567 } }
`;
  const result = configWithoutSecrets(text)!;

  await t.step("every secret gone, each key named", () => {
    for (
      const secret of [
        "pw-123456",
        "sk-live-123456789",
        "123456:ABCDEF",
        "key-987654321",
        "t-1234567",
      ]
    ) {
      assert(!result.text.includes(secret), `${secret} is still in:\n${result.text}`);
    }
    assertEquals(result.redacted, [
      "providers.fake.base_url",
      "providers.fake.api_key",
      "channels.telegram.token",
      "mcpServers.web.args",
      "mcpServers.web.env.TOKEN",
    ]);
  });

  await t.step("comments and other values kept", () => {
    for (
      const kept of [
        "# my hob",
        "# the model",
        "# the key",
        "127.0.0.1:9/v1",
        "allow_from",
        "mcp-web",
      ]
    ) {
      assertStringIncludes(result.text, kept);
    }
  });

  await t.step("a file with no secret is kept byte for byte", () => {
    const plain = "# nothing secret\nmodel: ollama/llama3.2\n";
    assertEquals(configWithoutSecrets(plain), { text: plain, redacted: [] });
  });

  await t.step("YAML that cannot be read cannot be told apart: undefined", () => {
    assertEquals(configWithoutSecrets("providers: [unclosed"), undefined);
  });
});
