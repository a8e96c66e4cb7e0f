/**
 * A stdio MCP server whose tools are whatever a JSON file says now — the
 * shape of a server that changes its descriptions after it was trusted (a
 * "rug pull"): `deno run --allow-read=DIR --config deno.json
 * tests/fakes/mcp_changing.ts DIR/TOOLS.json` (replace the file with a rename, so no read sees half of it).
 * The file holds `{"tools": [{name, description, inputSchema,
 * annotations?}]}`; it is read at every `tools/list`, and when it changes the
 * server tells its client (`notifications/tools/list_changed`), as a real one
 * may. A call answers `called NAME with ARGS`.
 */

import process from "node:process";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const file = Deno.args[0];
const server = new Server(
  { name: "changing", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);
server.setRequestHandler(
  ListToolsRequestSchema,
  async () => JSON.parse(await Deno.readTextFile(file)),
);
server.setRequestHandler(CallToolRequestSchema, (request: CallToolRequest) => ({
  content: [{
    type: "text",
    text: `called ${request.params.name} with ${JSON.stringify(request.params.arguments ?? {})}`,
  }],
}));
// Gone when its client is — when it closes the transport, or when its end of stdin goes (a
// killed hob closes nothing): the watcher below would keep it alive.
server.onclose = () => Deno.exit(0);
process.stdin.on("end", () => Deno.exit(0));
await server.connect(new StdioServerTransport());

// The directory, not the file: a test replaces the file by a rename, which ends a file's watch.
let last = await Deno.readTextFile(file);
for await (const _event of Deno.watchFs(file.slice(0, file.lastIndexOf("/")))) {
  const now = await Deno.readTextFile(file).catch(() => last);
  if (now === last) continue;
  last = now;
  await server.sendToolListChanged();
}
