import { assert, assertEquals, assertRejects } from "../helpers/assert.ts";
import { ConfigError, loadConfig } from "../../src/config/load.ts";
import { redactConfig, REDACTED } from "../../src/config/redact.ts";

async function withHome(yaml: string | null, fn: (home: string) => Promise<void>) {
  const home = await Deno.makeTempDir({ prefix: "hob-config-" });
  try {
    if (yaml !== null) await Deno.writeTextFile(`${home}/hob.yaml`, yaml);
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

async function configError(
  yaml: string | null,
  env: Record<string, string> = {},
): Promise<ConfigError> {
  let caught: Error | undefined;
  await withHome(yaml, async (home) => {
    caught = await assertRejects(() => loadConfig({ home, env }));
  });
  assert(caught instanceof ConfigError, String(caught));
  return caught;
}

Deno.test("loadConfig layers defaults, hob.yaml and the environment", async (t) => {
  await t.step("defaults without a file", async () => {
    await withHome(null, async (home) => {
      const { config, fileExists } = await loadConfig({ home, env: {} });
      assertEquals(fileExists, false);
      assertEquals(config.model, "ollama/llama3.2");
      assertEquals(config.server, {
        host: "127.0.0.1",
        port: 8484,
        max_body_bytes: 1_048_576,
        max_upload_bytes: 26_214_400,
        allowed_hosts: [],
        max_auth_failures: 20,
      });
      assertEquals(config.agent.max_tool_iterations, 10);
      assertEquals(Object.keys(config.providers).sort(), [
        "anthropic",
        "claude-cli",
        "lmstudio",
        "ollama",
        "openai",
        "openrouter",
      ]);
      assertEquals(config.providers.ollama.base_url, "http://localhost:11434/v1");
    });
  });
  await t.step("the file over the defaults, the environment over the file", async () => {
    const yaml = `model: myprov/some-model
server: { port: 9000 }
providers:
  myprov: { type: openai, base_url: "http://127.0.0.1:9000/v1", api_key: "x" }
  ollama: { base_url: "http://gpu-box:11434/v1" }
  openrouter: { api_key: "from-file" }
agent: { max_tool_iterations: 4 }
`;
    await withHome(yaml, async (home) => {
      const fileOnly = (await loadConfig({ home, env: {} })).config;
      assertEquals(fileOnly.model, "myprov/some-model");
      assertEquals(fileOnly.server.port, 9000);
      assertEquals(fileOnly.agent.max_tool_iterations, 4);
      assertEquals(fileOnly.agent.context_tokens, 32_000);
      const myprov = fileOnly.providers.myprov;
      assertEquals([myprov.type, myprov.base_url, myprov.api_key, myprov.builtin], [
        "openai",
        "http://127.0.0.1:9000/v1",
        "x",
        false,
      ]);
      assertEquals(fileOnly.providers.ollama.base_url, "http://gpu-box:11434/v1");
      assertEquals(fileOnly.providers.ollama.type, "openai");
      assertEquals(fileOnly.providers.openrouter.api_key, "from-file");

      const { config } = await loadConfig({
        home,
        env: {
          HOB_MODEL: "ollama/qwen3",
          HOB_PORT: "9100",
          HOB_HOST: "::1",
          OPENROUTER_API_KEY: "from-env",
        },
      });
      assertEquals(config.model, "ollama/qwen3");
      assertEquals(config.server.port, 9100);
      assertEquals(config.server.host, "::1");
      assertEquals(config.providers.openrouter.api_key, "from-env");
    });
  });
  await t.step("a provider's api_key_env names where its key comes from", async () => {
    await withHome(
      "providers:\n  corp: { type: anthropic, base_url: 'https://llm.corp', api_key_env: CORP_KEY }\n",
      async (home) => {
        const { config } = await loadConfig({ home, env: { CORP_KEY: "secret" } });
        assertEquals(config.providers.corp.api_key, "secret");
      },
    );
  });
});

Deno.test("loadConfig names the key, the source and what was expected", async (t) => {
  await t.step("a wrong type points at the file and line", async () => {
    const error = await configError("model: ollama/x\nserver:\n  port: eighty\n");
    assertEquals(error.key, "server.port");
    assert(error.source.endsWith("hob.yaml:3"), error.source);
    assert(/server\.port: .*expected number, received string/.test(error.message), error.message);
    assert(!error.message.includes("\n"));
  });
  await t.step("an unknown key", async () => {
    const error = await configError("model: ollama/x\nsever: { port: 1 }\n");
    assertEquals(error.key, "sever");
    assert(
      error.message.endsWith(
        "hob.yaml:2: sever: unknown key — check its spelling against docs/configuration.md",
      ),
      error.message,
    );
  });
  await t.step("a model id without a provider", async () => {
    const error = await configError("model: llama3\n");
    assert(
      error.message.endsWith(
        "hob.yaml:1: model: expected '<provider>/<model>', e.g. 'ollama/llama3.2'",
      ),
      error.message,
    );
  });
  await t.step("a custom provider without a type", async () => {
    const error = await configError("providers:\n  mine: { base_url: 'http://x:1/v1' }\n");
    assertEquals(error.key, "providers.mine.type");
    assert(/one of openai, anthropic, claude-cli/.test(error.message), error.message);
  });
  await t.step("an unknown provider type", async () => {
    const error = await configError(
      "providers:\n  mine: { type: gemini, base_url: 'http://x:1/v1' }\n",
    );
    assertEquals(error.key, "providers.mine.type");
  });
  await t.step("YAML that does not parse gives line and column", async () => {
    const error = await configError("model: [unclosed\n");
    assert(/hob\.yaml:\d+:\d+: invalid YAML/.test(error.message), error.message);
  });
  await t.step("a top level that is not a mapping", async () => {
    const error = await configError("- a\n- b\n");
    assert(error.message.endsWith("expected a mapping of keys at the top level"), error.message);
  });
  await t.step("a bad HOB_PORT names the environment variable", async () => {
    const error = await configError(null, { HOB_PORT: "http" });
    assertEquals(
      error.message,
      "environment variable HOB_PORT: server.port: expected a port number 0-65535, got 'http'",
    );
  });
  await t.step("a bad HOB_MODEL names the environment variable, not the file", async () => {
    const error = await configError("model: ollama/fine\n", { HOB_MODEL: "nomodel" });
    assertEquals(error.source, "environment variable HOB_MODEL");
  });
});

Deno.test("loadConfig names every problem at once, each with its key, line and rule", async (t) => {
  await t.step("three problems of the schema, in the order of their lines", async () => {
    const error = await configError(
      "model: llama3\nserver:\n  port: eighty\nsever: { port: 1 }\n",
    );
    assertEquals(error.problems.map((problem) => problem.key), ["model", "server.port", "sever"]);
    const lines = error.message.split("\n");
    assertEquals(lines.length, 3);
    assert(
      lines[0].endsWith("hob.yaml:1: model: expected '<provider>/<model>', e.g. 'ollama/llama3.2'"),
    );
    assert(
      /hob\.yaml:3: server\.port: .*expected number, received string$/.test(lines[1]),
      lines[1],
    );
    assert(
      lines[2].endsWith(
        "hob.yaml:4: sever: unknown key — check its spelling against docs/configuration.md",
      ),
    );
    // The first problem's key and source, for callers that name one.
    assertEquals(error.key, "model");
  });
  await t.step("several unknown keys of one mapping are each named", async () => {
    const error = await configError("agent: { colour: blue, mood: calm }\n");
    assertEquals(error.problems.map((problem) => problem.key), ["agent.colour", "agent.mood"]);
  });
  await t.step("a provider's problem with the schema's, and a variable's", async () => {
    const error = await configError(
      "agent: { max_tool_iterations: 0 }\nproviders:\n  mine: { base_url: 'http://x:1/v1' }\n",
      { HOB_PORT: "http" },
    );
    assertEquals(
      error.problems.map((problem) => [problem.source.replace(/^.*\//, ""), problem.key]),
      [
        ["environment variable HOB_PORT", "server.port"],
        ["hob.yaml:1", "agent.max_tool_iterations"],
        ["hob.yaml:3", "providers.mine.type"],
      ],
    );
  });
  await t.step("a variable's problem with a provider's, when the schema has none", async () => {
    const error = await configError("providers:\n  mine: { base_url: 'http://x:1/v1' }\n", {
      HOB_PORT: "http",
    });
    assertEquals(error.problems.map((problem) => problem.key), [
      "server.port",
      "providers.mine.type",
    ]);
  });
  await t.step("the providers' problems together when the schema has none", async () => {
    const error = await configError(
      "providers:\n  one: { base_url: 'http://x:1/v1' }\n  two: { type: openai }\n",
    );
    assertEquals(error.problems.map((problem) => problem.key), [
      "providers.one.type",
      "providers.two.base_url",
    ]);
  });
  await t.step("a key the schema refused is not blamed twice", async () => {
    const error = await configError(
      "providers:\n  mine: { type: gemini, base_url: 'http://x:1/v1' }\nmemory: { embedder: 'nobody/ x' }\n",
    );
    assertEquals(error.problems.map((problem) => problem.key), [
      "providers.mine.type",
      "memory.embedder",
    ]);
  });
  await t.step("every line of YAML that does not parse", async () => {
    const error = await configError("model: [unclosed\nserver: {port: 1\n");
    assert(error.problems.length >= 2, error.message);
    for (const problem of error.problems) {
      assert(/hob\.yaml:\d+:\d+: invalid YAML/.test(problem.message), problem.message);
    }
  });
});

Deno.test("redactConfig hides keys and every header value", async () => {
  await withHome(
    "providers:\n  corp: { type: openai, base_url: 'http://x:1/v1', api_key: sk-123, headers: { Authorization: 'Bearer t', X-Team: blue } }\n",
    async (home) => {
      const { config } = await loadConfig({ home, env: { ANTHROPIC_API_KEY: "sk-ant" } });
      const shown = redactConfig(config);
      assertEquals(shown.providers.corp.api_key, REDACTED);
      // Which headers are credentials is anyone's guess (X-Team could be one), so none is shown.
      assertEquals(shown.providers.corp.headers, { Authorization: REDACTED, "X-Team": REDACTED });
      assertEquals(shown.providers.anthropic.api_key, REDACTED);
      assertEquals(shown.providers.openrouter.api_key, undefined);
      assertEquals(config.providers.corp.api_key, "sk-123", "the original is untouched");
      assert(!JSON.stringify(shown).includes("sk-"));
    },
  );
});

Deno.test("tools.web.dns_server is unset by default and takes an IP:port", async (t) => {
  await t.step("unset by default", async () => {
    await withHome(null, async (home) => {
      const { config } = await loadConfig({ home, env: {} });
      assertEquals(config.tools.web.dns_server, undefined);
    });
  });
  await t.step("an IPv4 or bracketed IPv6 address with a port", async () => {
    for (const server of ["1.1.1.1:53", "[2606:4700:4700::1111]:53"]) {
      await withHome(`tools: { web: { dns_server: "${server}" } }\n`, async (home) => {
        const { config } = await loadConfig({ home, env: {} });
        assertEquals(config.tools.web.dns_server, server);
      });
    }
  });
  await t.step("a name, or no port, is refused", async () => {
    for (const server of ["dns.example:53", "1.1.1.1", "2606:4700::1111:53"]) {
      const error = await configError(`tools:\n  web:\n    dns_server: "${server}"\n`);
      assertEquals(error.key, "tools.web.dns_server", server);
      assert(error.message.includes("expected 'IP:port'"), error.message);
    }
  });
});

Deno.test("loadConfig reads hob.yaml afresh only when it or an override changed", async () => {
  await withHome("model: fake/one\nserver: { port: 9001 }\n", async (home) => {
    const first = await loadConfig({ home, env: { OPENAI_API_KEY: "key-1" } });
    const kept = JSON.parse(await Deno.readTextFile(`${home}/.cache/config.json`));
    assertEquals(kept.config.server.port, 9001);
    assertEquals((await Deno.stat(`${home}/.cache/config.json`)).mode! & 0o777, 0o600);
    assertEquals(
      JSON.stringify(kept).includes("key-1"),
      false,
      "keys from the environment are not kept",
    );

    // What the file says is kept; the environment's keys are read at every load.
    const again = await loadConfig({ home, env: { OPENAI_API_KEY: "key-2" } });
    assertEquals(again.config.providers.openai.api_key, "key-2");
    assertEquals({ ...again.config, providers: {} }, { ...first.config, providers: {} });

    // Proof that a kept configuration is used: tamper with it, keeping its key.
    kept.config.agent.max_tool_iterations = 7;
    await Deno.writeTextFile(`${home}/.cache/config.json`, JSON.stringify(kept));
    assertEquals((await loadConfig({ home, env: {} })).config.agent.max_tool_iterations, 7);

    // A change to the file, or to an overriding variable, reads it afresh.
    assertEquals(
      (await loadConfig({ home, env: { HOB_PORT: "9002" } })).config.agent.max_tool_iterations,
      10,
    );
    kept.config.agent.max_tool_iterations = 7;
    await Deno.writeTextFile(`${home}/.cache/config.json`, JSON.stringify(kept));
    await Deno.writeTextFile(`${home}/hob.yaml`, "model: fake/two\n");
    const changed = await loadConfig({ home, env: {} });
    assertEquals([changed.config.model, changed.config.agent.max_tool_iterations], [
      "fake/two",
      10,
    ]);

    // A broken file is an error with its line, whatever was kept before.
    await Deno.writeTextFile(`${home}/hob.yaml`, "model: fake/two\nserver:\n  port: eighty\n");
    const error = await assertRejects(() => loadConfig({ home, env: {} }));
    assert(error instanceof ConfigError && error.source.endsWith("hob.yaml:3"), String(error));

    // An unreadable kept copy is no error.
    await Deno.writeTextFile(`${home}/hob.yaml`, "model: fake/three\n");
    await Deno.writeTextFile(`${home}/.cache/config.json`, "{ not json");
    assertEquals((await loadConfig({ home, env: {} })).config.model, "fake/three");
  });
});

Deno.test("loadConfig on a directory that does not exist creates nothing", async () => {
  await withHome(null, async (parent) => {
    const home = `${parent}/not-a-home`;
    const { fileExists } = await loadConfig({ home, env: {} });
    assertEquals(fileExists, false);
    const error = await assertRejects(() => Deno.stat(home));
    assert(error instanceof Deno.errors.NotFound, String(error));
  });
});
