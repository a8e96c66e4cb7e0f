/**
 * An MCP server a test can change while hob runs (tests/fakes/mcp_changing.ts):
 * its hob.yaml entry, and a way to give it new tools, as a server that changes
 * its descriptions after they were approved would.
 */

/** A tool as an MCP server lists it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

const SERVER = new URL("../fakes/mcp_changing.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** A changing server's tools file in `dir`, its hob.yaml entry, and the way to change it. */
export interface ChangingServer {
  /** The `mcpServers` entry named `name`, with `extra` lines of YAML under it. */
  yaml(name: string, extra?: string): string;
  /** Replaces the tools it lists (by a rename: the server never reads half a file). */
  setTools(tools: ListedTool[]): Promise<void>;
}

/**
 * A changing server whose tools file lives in `dir`, listing `tools` to start with.
 *
 * @example
 * ```ts
 * const server = await changingServer(home, [{ name: "notes", description: "Keeps notes.", inputSchema: { type: "object" } }]);
 * await Deno.writeTextFile(`${home}/hob.yaml`, `mcpServers:\n${server.yaml("notes")}`);
 * ```
 */
export async function changingServer(dir: string, tools: ListedTool[]): Promise<ChangingServer> {
  // A directory of its own: the server watches it, and nothing else writes there.
  const own = await Deno.makeTempDir({ dir, prefix: "mcp-changing-" });
  const file = `${own}/tools.json`;
  const setTools = async (next: ListedTool[]) => {
    await Deno.writeTextFile(`${file}.tmp`, JSON.stringify({ tools: next }));
    await Deno.rename(`${file}.tmp`, file);
  };
  await setTools(tools);
  return {
    yaml: (name, extra = "") =>
      `  ${name}:
    command: ${JSON.stringify(Deno.execPath())}
    args: [run, ${JSON.stringify(`--allow-read=${own}`)}, --config, ${JSON.stringify(CONFIG)}, ${
        JSON.stringify(SERVER)
      }, ${JSON.stringify(file)}]
${extra.split("\n").filter(Boolean).map((line) => `    ${line}`).join("\n")}
`,
    setTools,
  };
}
