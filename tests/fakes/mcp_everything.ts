/**
 * The reference MCP server `@modelcontextprotocol/server-everything`, started
 * from the npm package (cached with the project's other dependencies, so
 * nothing is downloaded while a test runs): `deno run -A
 * tests/fakes/mcp_everything.ts stdio`. Not a fake: a real server we did not write.
 */

import "@modelcontextprotocol/server-everything/dist/index.js";
