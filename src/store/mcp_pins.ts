/**
 * The MCP tools the owner approved, each pinned by the hash of its definition
 * (hob.db's `mcp_pins`). The MCP client offers a tool to models only while
 * its server lists it with the pinned hash. Knows rows, not servers, nor how
 * a definition is hashed.
 */

import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";
import { timestamp } from "./timestamp.ts";

/** One approved tool: its server, its own name, the hash and the definition approved. */
export interface McpPinRow<D> {
  server: string;
  tool: string;
  hash: string;
  definition: D;
  approved_at: string;
}

interface Row {
  server: string;
  tool: string;
  hash: string;
  definition: string;
  approved_at: string;
}

/**
 * The pins, by server and tool; `D` is the definition's shape, kept as JSON.
 *
 * @example
 * ```ts
 * const pins = new SqliteMcpPins<McpDefinition>(db);
 * pins.set({ server: "fs", tool: "read", hash, definition });
 * pins.get("fs", "read")?.hash === hash; // true
 * ```
 */
export class SqliteMcpPins<D> {
  readonly #sql: Sql;

  constructor(db: DatabaseSync) {
    this.#sql = statements(db);
  }

  /** The pin of a server's tool, or undefined when the owner approved none. */
  get(server: string, tool: string): McpPinRow<D> | undefined {
    const row = this.#sql<Row>("SELECT * FROM mcp_pins WHERE server = ? AND tool = ?")
      .get(server, tool);
    return row ? rowToPin<D>(row) : undefined;
  }

  /** Pins a definition, replacing the one pinned before; returns the pin as stored. */
  set(pin: Omit<McpPinRow<D>, "approved_at">): McpPinRow<D> {
    const approved_at = timestamp();
    this.#sql(
      `INSERT INTO mcp_pins (server, tool, hash, definition, approved_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (server, tool) DO UPDATE SET hash = excluded.hash,
         definition = excluded.definition, approved_at = excluded.approved_at`,
    ).run(pin.server, pin.tool, pin.hash, JSON.stringify(pin.definition), approved_at);
    return { ...pin, approved_at };
  }
}

function rowToPin<D>(row: Row): McpPinRow<D> {
  return { ...row, definition: JSON.parse(row.definition) as D };
}
