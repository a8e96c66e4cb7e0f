/**
 * Tool arguments as a confused or hostile model writes them, fed to every
 * tool of a real runtime's registry (the built-in ones and the example user
 * tools a new home has): invalid JSON, wrong types, missing and extra fields,
 * huge strings, deep nesting, NUL bytes, traversal and symlinks out of the
 * workspace. Every call must come back as a result — never a throw, never a
 * hang — and nothing outside the workspace may be read or written. Tools that
 * reach outside hob (commands, Python, mail, the web) are denied by policy, so
 * only their argument checks run.
 *
 * HOB_FUZZ_SEED and HOB_FUZZ_TOOL_CASES replay or widen a run.
 */

import { basename } from "node:path";
import type { JsonSchema } from "../../src/core/types.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { startFakeOpenAI } from "../fakes/openai_server.ts";
import {
  deepNesting,
  type Fuzzer,
  fuzzer,
  HOSTILE_STRINGS,
  hostileValue,
  MALFORMED_JSON,
} from "../helpers/fuzz.ts";
import { fakeProviderYaml, pathExists, tempRuntime } from "../helpers/home.ts";

const SEED = Number(Deno.env.get("HOB_FUZZ_SEED") ?? 0x0b0b_2026);
const CASES = Number(Deno.env.get("HOB_FUZZ_TOOL_CASES") ?? 300);
/** Calls in flight at once: each may start a Worker. */
const CONCURRENCY = 4;
/** Far beyond any tool's own timeout here; reaching it is a hang. */
const CALL_TIMEOUT_MS = 60_000;
/** Tools with effects outside hob: denied, so only their argument checks and reviews run. */
const EXTERNAL = ["run_command", "run_python", "email_file", "fetch_url", "web_search"];
/** Fields that name a file or directory. */
const PATH_FIELDS = new Set(["path", "cwd"]);

Deno.test("ToolRegistry.execute answers fuzzed arguments for every tool, inside the workspace", async () => {
  await using fake = startFakeOpenAI({ fallback: { text: "ok" } });
  // Out of bounds: a secret beside the home, reachable by `..`, an absolute path or a symlink.
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "hob-outside-" }));
  const secret = `SECRET-${crypto.randomUUID()}`;
  await Deno.writeTextFile(`${outside}/secret.txt`, secret);
  await using env = await tempRuntime(fakeProviderYaml(
    fake.url,
    `memory: { embedder: none }
scheduler: { enabled: false }
heartbeat: { enabled: false }
tasks: { workers: 0 }
tools:
  policies: { ${
      [...EXTERNAL.map((name) => `${name}: deny`), "build_tool: allow", "build_skill: allow"]
        .join(", ")
    } }
`,
  ));
  try {
    const { runtime } = env;
    const home = await Deno.realPath(env.home.home);
    const workspace = `${home}/workspace`;
    await Deno.mkdir(`${workspace}/dir`, { recursive: true });
    await Deno.writeTextFile(`${workspace}/notes.txt`, "hello\nworld\n");
    await Deno.writeTextFile(`${workspace}/data.csv`, "a,b\n1,2\n");
    await Deno.writeTextFile(`${workspace}/data.json`, '{"a": [1, 2]}');
    await Deno.symlink(outside, `${workspace}/link_out`);
    await Deno.symlink(`${outside}/secret.txt`, `${workspace}/link_secret`);
    await Deno.symlink(home, `${workspace}/link_home`);
    await Deno.symlink("/etc/passwd", `${workspace}/link_etc`);
    // The home's own files are out of bounds too: marked, so a read of one shows.
    const marker = `MARKER-${crypto.randomUUID()}`;
    await Deno.writeTextFile(`${home}/hob.yaml`, `# ${marker}\n`, { append: true });
    await Deno.writeTextFile(`${home}/identity/SOUL.md`, `\n<!-- ${marker} -->\n`, {
      append: true,
    });
    const guarded = [`${home}/token`, `${home}/hob.yaml`, `${home}/identity/SOUL.md`];
    const before = await snapshot(outside, guarded);
    const forbidden = [secret, env.home.token, marker, "root:x:0:0:"];

    await runtime.toolbox.ready;
    const registry = runtime.toolbox.registry;
    const specs = registry.specs().filter((spec) => !spec.name.includes("__"));
    assert(specs.length >= 30, `${specs.length} tools`);
    const f = fuzzer(SEED);
    const world = { f, outside: basename(outside), absoluteOutside: outside };

    const counts = new Map<string, { cases: number; errors: number; slowest: number }>();
    const problems: string[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < CASES) {
        const index = next++;
        const spec = specs[index % specs.length];
        const { kind, args } = fuzzArgs(world, spec.name, spec.parameters);
        const row = counts.get(spec.name) ?? { cases: 0, errors: 0, slowest: 0 };
        counts.set(spec.name, row);
        row.cases++;
        const label = `${spec.name} [${kind}] ${args.slice(0, 120)}`;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const started = performance.now();
        try {
          const result = await Promise.race([
            registry.execute({ id: `fuzz_${index}`, name: spec.name, arguments: args }, {
              conversation_id: null,
              emit: () => {},
            }),
            new Promise<"hang">((resolve) => {
              timer = setTimeout(() => resolve("hang"), CALL_TIMEOUT_MS);
            }),
          ]);
          if (result === "hang") {
            problems.push(`${label}: no result within ${CALL_TIMEOUT_MS} ms`);
            continue;
          }
          if (typeof result.content !== "string" || typeof result.is_error !== "boolean") {
            problems.push(`${label}: not a result: ${JSON.stringify(result).slice(0, 200)}`);
            continue;
          }
          if (result.is_error) row.errors++;
          const leak = forbidden.find((text) => result.content.includes(text));
          if (leak) problems.push(`${label}: the result shows '${leak.slice(0, 12)}…'`);
        } catch (error) {
          problems.push(`${label}: threw ${String(error).slice(0, 300)}`);
        } finally {
          clearTimeout(timer);
          row.slowest = Math.max(row.slowest, performance.now() - started);
        }
      }
    }));

    const lines = [...counts.entries()].map(([name, row]) =>
      `${name.padEnd(16)} ${String(row.cases).padStart(4)} cases ${
        String(row.errors).padStart(4)
      } is_error, slowest ${Math.round(row.slowest)} ms`
    );
    console.log(lines.join("\n"));
    const errors = [...counts.values()].reduce((sum, row) => sum + row.errors, 0);
    console.log(
      `tool fuzz: seed ${SEED}, ${CASES} cases over ${specs.length} tools, ${errors} is_error, ${
        CASES - errors
      } ok, ${problems.length} problems`,
    );
    assertEquals(problems, [], `seed ${SEED}`);
    assertEquals(counts.size, specs.length, "every tool was called");
    // Nothing beyond the workspace changed: the outside directory, the home's own files.
    assertEquals(await snapshot(outside, guarded), before);
    for (const path of [`${Deno.env.get("HOME")}/.hob-fuzz-pwned`, "/tmp/hob-fuzz-pwned"]) {
      assert(!(await pathExists(path)), `${path} was written`);
    }
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

interface World {
  f: Fuzzer;
  /** The outside directory's name, a sibling of the home. */
  outside: string;
  absoluteOutside: string;
}

/** One argument string for `tool`, and what it tries. */
function fuzzArgs(world: World, tool: string, schema: JsonSchema): { kind: string; args: string } {
  const { f } = world;
  const valid = sampleObject(f, schema);
  const kind = f.pick([
    "valid",
    "valid",
    "invalid_json",
    "not_object",
    "missing",
    "wrong_type",
    "wrong_type",
    "extra",
    "hostile",
    "hostile",
    "huge",
    "deep",
    "nul",
    "traversal",
    "traversal",
    "traversal",
  ]);
  const properties = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  const some = () => properties.length ? f.pick(properties) : "x";
  const json = (value: unknown) => JSON.stringify(value);
  switch (kind) {
    case "invalid_json":
      return { kind, args: f.pick(MALFORMED_JSON) };
    case "not_object":
      return { kind, args: json(f.pick<unknown>([[valid], "path", 42, null, true, []])) };
    case "missing": {
      const required = (schema.required ?? []) as string[];
      const copy = { ...valid };
      if (required.length) delete copy[f.pick(required)];
      return { kind, args: json(required.length ? copy : {}) };
    }
    case "wrong_type":
      return {
        kind,
        args: json({ ...valid, [some()]: f.pick<unknown>([42, -1.5, true, null, [], {}, "x"]) }),
      };
    case "extra":
      return { kind, args: json({ ...valid, [f.pick(["__proto__", "constructor", "zzz"])]: 1 }) };
    case "hostile":
      return { kind, args: json({ ...valid, [some()]: hostileValue(f) }) };
    case "huge":
      return { kind, args: json({ ...valid, [some()]: "x".repeat(f.pick([100_000, 1_100_000])) }) };
    case "deep":
      return {
        kind,
        args: f.chance(0.5)
          ? deepNesting(100_000)
          : `{${JSON.stringify(some())}:${
            deepNesting(20_000, f.pick(["array", "object"] as const))
          }}`,
      };
    case "nul":
      return {
        kind,
        args: json({ ...valid, [some()]: `notes.txt\u0000${f.pick(HOSTILE_STRINGS)}` }),
      };
    case "traversal": {
      const copy = { ...valid };
      const fields = properties.filter((name) => PATH_FIELDS.has(name));
      for (const field of fields.length ? fields : [some()]) copy[field] = escapeFor(world, tool);
      return { kind, args: json(copy) };
    }
    default:
      return { kind, args: json(valid) };
  }
}

/** A path out of the workspace. Tools that write get only targets that are safe to miss. */
function escapeFor(world: World, tool: string): string {
  const { f, outside, absoluteOutside } = world;
  const writable = [
    "../token",
    "../hob.yaml",
    "../identity/SOUL.md",
    `../../${outside}/pwned.txt`,
    `${absoluteOutside}/pwned.txt`,
    "link_out/pwned.txt",
    "link_secret",
    "link_home/token",
    "link_home/hob.yaml",
    "~/.hob-fuzz-pwned",
    "/tmp/hob-fuzz-pwned",
    "dir/../../token",
    "dir/../../../" + outside + "/pwned.txt",
    "notes.txt\u0000../../token",
    "\u0000",
    "..",
    "%2e%2e/token",
    "\u2025/token",
    "..\\..\\token",
    "x/".repeat(300) + "y",
    "a".repeat(5_000),
  ];
  if (["write_file", "edit_file"].includes(tool)) return f.pick(writable);
  return f.pick([
    ...writable,
    "/etc/passwd",
    "../../../../../../etc/passwd",
    "link_etc",
    `${absoluteOutside}/secret.txt`,
    `../../${outside}/secret.txt`,
    "link_out/secret.txt",
    "/proc/self/environ",
    "/dev/zero",
    "~/.ssh/id_rsa",
    "file:///etc/passwd",
    "/",
  ]);
}

/** A sample object for a tool's JSON schema, with values that mean something to the tools. */
function sampleObject(f: Fuzzer, schema: JsonSchema): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  for (const [name, property] of Object.entries(properties)) {
    if (required.includes(name) || f.chance(0.4)) object[name] = sampleValue(f, name, property);
  }
  return object;
}

function sampleValue(f: Fuzzer, name: string, schema: JsonSchema): unknown {
  const hints: Record<string, unknown[]> = {
    path: ["notes.txt", "data.csv", "data.json", "dir", ".", "MEMORY.md"],
    content: ["hello", "# Title\n"],
    old_text: ["hello"],
    new_text: ["hi"],
    pattern: ["*.txt", "**/*"],
    query: ["hello", ".a", "tea"],
    url: ["https://example.com/"],
    command: ["echo hi"],
    code: ["1 + 1", "'hi'.length"],
    task: ["Say ok"],
    name: ["fuzz_tool", "fuzz-skill", "x"],
    description: ["A tool the fuzzer built"],
    steps: ["Say hi"],
    text: ["The fuzzer likes tea."],
    section: ["Notes"],
    schedule: ["0 9 * * *", "every 10m"],
    timezone: ["UTC", "Europe/Oslo"],
    title: ["Fuzz"],
    prompt: ["Say ok"],
    to: ["someone@example.com"],
  };
  if (hints[name]) return f.pick(hints[name]);
  if (Array.isArray(schema.enum)) return f.pick(schema.enum as unknown[]);
  switch (schema.type) {
    case "integer":
    case "number": {
      const min = typeof schema.minimum === "number" ? schema.minimum : 1;
      const max = typeof schema.maximum === "number"
        ? Math.min(schema.maximum, min + 10)
        : min + 10;
      return f.int(Math.ceil(min), Math.floor(max));
    }
    case "boolean":
      return f.chance(0.5);
    case "array":
      return [];
    default:
      return f.word(10);
  }
}

/** Every file under `dir` with its bytes, and each guarded file's bytes. */
async function snapshot(dir: string, files: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const entry of Deno.readDir(dir)) {
    out[`${dir}/${entry.name}`] = entry.isFile
      ? await Deno.readTextFile(`${dir}/${entry.name}`)
      : entry.isDirectory
      ? "<dir>"
      : "<other>";
  }
  for (const file of files) out[file] = await Deno.readTextFile(file);
  return out;
}
