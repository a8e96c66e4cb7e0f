/**
 * The reference MCP server `@modelcontextprotocol/server-everything`, started
 * from the npm package (cached with the project's other dependencies, so
 * nothing is downloaded while a test runs): `deno run --allow-env
 * --allow-read tests/fakes/mcp_everything.ts stdio` (its settings, its own
 * files). Not a fake: a real server we did not write.
 */

import "@modelcontextprotocol/server-everything/dist/index.js";
