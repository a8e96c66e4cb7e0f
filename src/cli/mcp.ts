/**
 * `hob mcp`: the MCP servers hob uses (list, tools, call), hob itself as an
 * MCP server over stdio (serve), and a one-off client run against a URL
 * (probe), which the conformance suite drives.
 */

import { mcpServerSchema } from "../config/schema.ts";
import { McpHub, type McpToolInfo } from "../mcp/client.ts";
import type { JsonSchema } from "../core/types.ts";
import { type Command, CommandError, EXIT, jsonObjectFlag, UsageError } from "./command.ts";
import { openHome } from "./open.ts";
import { dim, err, green, out, outJson, red } from "./output.ts";

const ACTIONS = ["list", "tools", "call", "serve", "probe"];

export const mcp: Command = {
  name: "mcp",
  summary: "MCP servers hob uses (list, tools, call) and hob as an MCP server (serve)",
  help: `Usage: hob mcp list [--json]
       hob mcp tools [SERVER] [--json]
       hob mcp call SERVER TOOL [--args JSON] [--json]
       hob mcp serve
       hob mcp probe URL [--json]

'list' connects to the servers in hob.yaml's mcpServers and says how each is
doing; 'tools' lists their tools by the names the model sees
(<server>__<tool>); 'call' calls a tool by its server's own name, as you, the
owner (no approval asked). 'serve' runs hob as an MCP server on stdin/stdout
for another agent (its tools: search_memory, memory_get, remember_this,
log_note, ask_hob, create_task). 'probe' connects to the streamable-HTTP MCP
server at URL, lists its tools and calls each with arguments made from its
schema.

Options:
  --args JSON    the tool's arguments as a JSON object (default {})
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { args: { type: "string" }, json: { type: "boolean" } },
  positionals: [1, 3],
  async run(parsed) {
    const [action, first, second] = parsed.positionals;
    if (!ACTIONS.includes(action)) {
      throw new UsageError(
        `hob mcp: unknown action '${action}' — use ${ACTIONS.map((a) => `'${a}'`).join(", ")}`,
      );
    }
    const json = parsed.values.json === true;
    if (action === "call" && (!first || !second)) {
      throw new UsageError("hob mcp call: name the server and the tool: hob mcp call SERVER TOOL");
    }
    if (action === "probe" && !first) throw new UsageError("hob mcp probe: missing the URL");
    if (action === "probe" && !URL.canParse(first)) {
      throw new UsageError(`hob mcp probe: '${first}' is not a URL`);
    }
    const args = jsonObjectFlag(parsed.values.args, "hob mcp call");

    if (action === "serve") return await serveStdio(parsed);
    const runtime = await openHome(parsed);
    try {
      if (action === "probe") return await probe(runtime.toolbox.registry, first, json);
      const hub = runtime.mcp;
      if (action === "call" && !hub.has(first)) {
        throw new CommandError(`No MCP server named '${first}' in hob.yaml (mcpServers)`);
      }
      await Promise.all([runtime.toolbox.ready, hub.start()]);
      if (action === "list") {
        const servers = hub.status();
        if (json) outJson({ servers });
        else if (servers.length === 0) {
          out("No MCP servers configured. Add them to hob.yaml under mcpServers:\n");
          out(
            dim(
              "  mcpServers:\n    everything:\n      command: npx\n      args: [-y, @modelcontextprotocol/server-everything]\n",
            ),
          );
        } else {
          for (const s of servers) {
            const state = s.state === "connected" ? green(s.state) : red(s.state);
            out(
              `${s.name.padEnd(16)} ${state.padEnd(9)} ${
                dim(`${s.transport}, ${s.tools.length} tools`)
              }${s.error ? ` ${red(s.error)}` : ""}\n`,
            );
          }
        }
        return servers.some((s) => s.state === "failed") ? EXIT.failure : EXIT.ok;
      }
      if (action === "tools") {
        if (first && !hub.has(first)) {
          throw new CommandError(`No MCP server named '${first}' in hob.yaml (mcpServers)`);
        }
        const tools = hub.tools(first);
        if (json) outJson({ tools });
        else {
          for (const t of tools) {
            out(
              `${t.name.padEnd(32)} ${t.read_only ? dim("read-only ") : ""}${
                dim(t.description.split("\n")[0].slice(0, 80))
              }\n`,
            );
          }
        }
        return EXIT.ok;
      }
      try {
        const result = await hub.call(first, second, args);
        if (json) outJson(result);
        else if (result.is_error) err(`${red("error:")} ${result.content}\n`);
        else out(`${result.content}\n`);
        return result.is_error ? EXIT.failure : EXIT.ok;
      } catch (error) {
        throw new CommandError((error as Error).message);
      }
    } finally {
      await runtime.close();
    }
  },
};

/** hob's MCP server on stdin/stdout, until the client hangs up. */
async function serveStdio(parsed: Parameters<Command["run"]>[0]): Promise<number> {
  // stdout carries the protocol: everything else goes to stderr.
  const runtime = await openHome(parsed, (line) => err(`${line}\n`));
  try {
    const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
      import("../http/mcp_server.ts"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
    ]);
    const server = createMcpServer(runtime);
    const closed = new Promise<void>((resolve) => server.onclose = resolve);
    await server.connect(new StdioServerTransport());
    await closed;
    return EXIT.ok;
  } finally {
    await runtime.close();
  }
}

/** Connects to `url` with hob's MCP client, lists the tools and calls each. */
async function probe(
  registry: ConstructorParameters<typeof McpHub>[1],
  url: string,
  json: boolean,
): Promise<number> {
  const config = mcpServerSchema.parse({ url, policy: "allow", timeout_s: 60 });
  const hub = new McpHub({ probe: config }, registry, { reconnect: false });
  try {
    await hub.start();
    const [status] = hub.status();
    if (status.state !== "connected") throw new CommandError(`could not connect: ${status.error}`);
    const calls = [];
    for (const tool of hub.tools()) {
      const result = await hub.call("probe", tool.tool, exampleArgs(tool));
      calls.push({ tool: tool.tool, ...result });
    }
    if (json) outJson({ server: status.server, tools: hub.tools().map((t) => t.tool), calls });
    else {
      out(`${status.server?.name ?? "server"}: ${calls.length} tools\n`);
      for (const call of calls) {
        out(
          `${call.tool}: ${call.is_error ? red("error") : green("ok")} ${
            dim(call.content.slice(0, 200))
          }\n`,
        );
      }
    }
    return calls.some((c) => c.is_error) ? EXIT.failure : EXIT.ok;
  } finally {
    await hub.close();
  }
}

/** Arguments that satisfy a tool's schema's required fields, with plain sample values. */
function exampleArgs(tool: McpToolInfo): Record<string, unknown> {
  const properties = (tool.parameters.properties ?? {}) as Record<string, JsonSchema>;
  const required = (tool.parameters.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const name of required) {
    const schema = properties[name] ?? {};
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    args[name] = Array.isArray(schema.enum)
      ? schema.enum[0]
      : type === "number" || type === "integer"
      ? 1
      : type === "boolean"
      ? true
      : type === "array"
      ? []
      : type === "object"
      ? {}
      : "hob";
  }
  return args;
}
