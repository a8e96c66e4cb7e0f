/**
 * `hob mcp`: the MCP servers hob uses (list, tools, approve, call), hob
 * itself as an MCP server over stdio (serve), and a one-off client run
 * against a URL (probe), which the conformance suite drives. `list`, `tools`
 * and `approve` are translators over the app's MCP actions (src/app/mcp.ts):
 * through a running `hob serve` when there is one (its tools change at once),
 * else on the home opened here.
 */

import { ActionError } from "../app/errors.ts";
import type { McpActions, McpServerStatus, McpToolInfo } from "../app/mcp.ts";
import type { McpProbeReport } from "../app/mcp_probe.ts";
import { type Command, CommandError, EXIT, jsonObjectFlag, UsageError } from "./command.ts";
import { existingHome, openHome } from "./open.ts";
import { type RunningServer, runningServer, seenBy } from "./running.ts";
import { dim, err, green, out, outJson, red } from "./output.ts";
import { approvalHint, describeTools } from "./mcp_render.ts";

/** Each action, and the most words it takes (itself included). */
const ACTIONS: Record<string, number> = {
  list: 1,
  tools: 2,
  approve: Infinity,
  call: 3,
  serve: 1,
  probe: 2,
};

export const mcp: Command = {
  name: "mcp",
  summary: "MCP servers hob uses (list, tools, approve, call) and hob as an MCP server (serve)",
  help: `Usage: hob mcp list [--json]
       hob mcp tools [SERVER] [--json]
       hob mcp approve SERVER [TOOL...] [--yes] [--json]
       hob mcp call SERVER TOOL [--args JSON] [--json]
       hob mcp serve
       hob mcp probe URL [--json]

'list' connects to the servers in hob.yaml's mcpServers and says how each is
doing; 'tools' lists their tools by the names the model sees
(<server>__<tool>): those you approved are offered to models, the others
wait, shown whole (and, when changed, beside what you approved).

A server's tool descriptions are its words, which the model reads: hob
offers a tool only once you approved its definition (name, description,
schema), pinned by its hash. 'approve' shows the tools of SERVER that wait
(or the TOOLs named) and, with --yes, approves them; a tool whose definition
changes later waits for you again.

'call' calls a tool by its server's own name, as you, the owner (no approval
asked). 'serve' runs hob as an MCP server on stdin/stdout for another agent
(its tools: search_memory, memory_get, remember_this, log_note, ask_hob,
create_task). 'probe' connects to the streamable-HTTP MCP server at URL,
lists its tools and calls each with arguments made from its schema.

Options:
  --args JSON    the tool's arguments as a JSON object (default {})
  --yes          really approve
  --json         print machine-readable output
  --home DIR     hob home (default: $HOB_HOME or ~/.hob)
  -h, --help     show this help`,
  options: { args: { type: "string" }, json: { type: "boolean" }, yes: { type: "boolean" } },
  positionals: [1, 1_000],
  async run(parsed) {
    const [action, first, second] = parsed.positionals;
    checkUsage(parsed.positionals);
    const json = parsed.values.json === true;
    const args = jsonObjectFlag(parsed.values.args, "hob mcp call");
    if (action === "serve") return await serveStdio(parsed);
    if (action === "list" || action === "tools" || action === "approve") {
      const source = await mcpSource(parsed);
      try {
        if (action === "list") return listServers(await source.actions.servers(), json, source);
        if (action === "tools") return listTools(await source.tools(first), first, json, source);
        const tools = parsed.positionals.slice(2);
        return await approve(source, {
          server: first,
          tools,
          yes: parsed.values.yes === true,
          json,
        });
      } finally {
        await source.close();
      }
    }
    const hob = await openHome(parsed);
    try {
      if (action === "probe") return showProbe(await hob.app.mcp.probe({ url: first }), json);
      const result = await hob.app.mcp.call({ server: first, tool: second, args });
      if (json) outJson(result);
      else if (result.is_error) err(`${red("error:")} ${result.content}\n`);
      else out(`${result.content}\n`);
      return result.is_error ? EXIT.failure : EXIT.ok;
    } catch (error) {
      throw new CommandError((error as Error).message);
    } finally {
      await hob.close();
    }
  },
};

/** Bad usage, refused (exit 2) before anything is opened. */
function checkUsage(positionals: string[]): void {
  const [action, first, second] = positionals;
  const most = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : 0;
  if (!most) {
    throw new UsageError(
      `hob mcp: unknown action '${action}' — use ${
        Object.keys(ACTIONS).map((a) => `'${a}'`).join(", ")
      }`,
    );
  }
  if (positionals.length > most) {
    throw new UsageError(`hob mcp ${action}: unexpected argument '${positionals[most]}'`);
  }
  if (action === "probe" && !first) throw new UsageError("hob mcp probe: missing the URL");
  if (action === "probe" && !URL.canParse(first)) {
    throw new UsageError(`hob mcp probe: '${first}' is not a URL`);
  }
  if (action === "call" && (!first || !second)) {
    throw new UsageError("hob mcp call: name the server and the tool: hob mcp call SERVER TOOL");
  }
  if (action === "approve" && !first) {
    throw new UsageError("hob mcp approve: name the server: hob mcp approve SERVER [TOOL...]");
  }
}

/** Where `list`, `tools` and `approve` are answered: a running `hob serve`, or the home opened here. */
interface McpSource {
  actions: Pick<McpActions, "servers" | "approve">;
  tools(server?: string): Promise<McpToolInfo[]>;
  /** The server that answered, when one did. */
  server?: RunningServer;
  close(): Promise<void>;
}

/** A running server of this version, asked over the API; else the home, opened. */
async function mcpSource(parsed: Parameters<Command["run"]>[0]): Promise<McpSource> {
  const server = await runningServer(await existingHome(parsed));
  if (server) return serverSource(server);
  const hob = await openHome(parsed);
  const { mcp } = hob.app;
  // The home is open for this command alone: each server has had its whole chance to connect
  // (or fail) before it is listed, where a request to `hob serve` waits only briefly.
  const connected = mcp.connect();
  return {
    actions: {
      servers: async () => {
        await connected;
        return await mcp.servers();
      },
      approve: (input) => refusalsAsErrors(() => mcp.approve(input)),
    },
    tools: async (name) => {
      await connected;
      return await refusalsAsErrors(() => mcp.tools(name ? { server: name } : {}));
    },
    close: async () => {
      await connected.catch(() => {});
      await hob.close();
    },
  };
}

/** The MCP actions of a running `hob serve`, over its API; its refusals as command errors. */
function serverSource(server: RunningServer): McpSource {
  const answer = async <T>(got: Promise<T | undefined>): Promise<T> => {
    const body = await got;
    if (body === undefined) throw new CommandError(`hob serve (pid ${server.pid}) did not answer`);
    return body;
  };
  const servers = async () =>
    (await answer(server.get<{ servers: McpServerStatus[] }>("/api/mcp/servers"))).servers;
  return {
    server,
    actions: {
      servers,
      async approve({ server: name, ...body }) {
        const path = `/api/mcp/servers/${encodeURIComponent(name)}/approve`;
        const sent = await server.post<Awaited<ReturnType<McpActions["approve"]>>>(path, body);
        if (!sent) throw new CommandError(`hob serve (pid ${server.pid}) did not answer`);
        if (!sent.ok) throw new CommandError(sent.message);
        return sent.body;
      },
    },
    async tools(name) {
      const known = name ? await servers() : [];
      if (name && !known.some((each) => each.name === name)) {
        throw new CommandError(`No MCP server named '${name}' in hob.yaml (mcpServers)`);
      }
      const query = name ? `?server=${encodeURIComponent(name)}` : "";
      return (await answer(server.get<{ tools: McpToolInfo[] }>(`/api/mcp/tools${query}`))).tools;
    },
    close: () => Promise.resolve(),
  };
}

/** An app action's refusal as the command's one line (exit 1). */
async function refusalsAsErrors<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ActionError) throw new CommandError(error.message);
    throw error;
  }
}

function listServers(servers: McpServerStatus[], json: boolean, source: McpSource): number {
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
      const waiting = s.pending.length
        ? `, ${red(`${s.pending.length} waiting for approval`)}`
        : "";
      out(
        `${s.name.padEnd(16)} ${state.padEnd(9)} ${
          dim(`${s.transport}, ${s.tools.length} tools offered`)
        }${waiting}${s.error ? ` ${red(s.error)}` : ""}\n`,
      );
    }
    const hint = approvalHint(servers);
    if (hint) out(`${hint}\n`);
    if (source.server) out(dim(seenBy(source.server)));
  }
  return servers.some((s) => s.state === "failed") ? EXIT.failure : EXIT.ok;
}

function listTools(
  tools: McpToolInfo[],
  server: string | undefined,
  json: boolean,
  source: McpSource,
): number {
  if (json) {
    outJson({ tools });
    return EXIT.ok;
  }
  out(describeTools(tools));
  const waiting = new Set(tools.filter((t) => t.approval !== "approved").map((t) => t.server));
  for (const name of waiting) {
    out(`Approve ${server ? "them" : `those of '${name}'`} with 'hob mcp approve ${name}'.\n`);
  }
  if (source.server) out(dim(seenBy(source.server)));
  return EXIT.ok;
}

/**
 * Shows what would be approved and, with `yes` or the owner's yes at a
 * terminal, approves exactly that: the hashes of the definitions shown go
 * with the approval, so a server that changes a tool in between is refused.
 */
async function approve(
  source: McpSource,
  request: { server: string; tools: string[]; yes: boolean; json: boolean },
): Promise<number> {
  const { server, tools, yes, json } = request;
  const shown = await source.actions.approve({
    server,
    ...(tools.length ? { tools } : {}),
    apply: false,
  });
  if (shown.tools.length === 0) {
    if (json) outJson(shown);
    else out(`Nothing of '${server}' waits for your approval.\n`);
    return EXIT.ok;
  }
  if (!json) out(describeTools(shown.tools));
  const names = tools.length ? ` ${tools.join(" ")}` : "";
  if (
    !yes &&
    !(await (await import("./prompter.ts")).confirmed(
      `Approve these ${shown.tools.length} tool(s)? [y/N] `,
    ))
  ) {
    if (json) outJson(shown);
    else {
      out(red(
        `Nothing was approved. Read the above: it is what models will read. Run 'hob mcp approve ${server}${names} --yes' to approve ${shown.tools.length} tool(s).\n`,
      ));
    }
    return EXIT.ok;
  }
  const result = await source.actions.approve({
    server,
    hashes: Object.fromEntries(shown.tools.map((tool) => [tool.name, tool.hash])),
  });
  if (json) outJson(result);
  else {
    out(
      `${
        green("Approved")
      } ${result.tools.length} tool(s) of '${server}'; models are offered them now:\n`,
    );
    for (const tool of result.tools) out(`  ${tool.name} ${dim(tool.hash.slice(0, 16))}\n`);
  }
  return EXIT.ok;
}

/** hob's MCP server on stdin/stdout, until the client hangs up. */
async function serveStdio(parsed: Parameters<Command["run"]>[0]): Promise<number> {
  // stdout carries the protocol: everything else goes to stderr.
  const hob = await openHome(parsed, (line) => err(`${line}\n`));
  try {
    const [{ createMcpServer }, { StdioServerTransport }] = await Promise.all([
      import("../http/mcp_server.ts"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
    ]);
    const server = createMcpServer(hob);
    const closed = new Promise<void>((resolve) => server.onclose = resolve);
    await server.connect(new StdioServerTransport());
    await closed;
    return EXIT.ok;
  } finally {
    await hob.close();
  }
}

/** What a probe found, as `hob mcp probe` prints it; exit 1 when a call failed. */
function showProbe(report: McpProbeReport, json: boolean): number {
  const { server, tools, calls } = report;
  if (json) outJson({ server, tools, calls });
  else {
    out(`${server?.name ?? "server"}: ${calls.length} tools\n`);
    for (const call of calls) {
      out(
        `${call.tool}: ${call.is_error ? red("error") : green("ok")} ${
          dim(call.content.slice(0, 200))
        }\n`,
      );
    }
  }
  return calls.some((c) => c.is_error) ? EXIT.failure : EXIT.ok;
}
