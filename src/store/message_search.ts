/**
 * Full-text search over stored messages (the `messages_fts` index of schema
 * 10): a query cut into terms, matched all together first and any of them
 * when that finds nothing, ranked by FTS5's BM25, each hit with where it is
 * and a snippet cut around the query's words. Knows the messages and
 * conversations tables; nothing of who may read a hit or how it is shown.
 */

import type { Sql } from "./statements.ts";
import { excerpt } from "../core/untrusted.ts";
import type { ConversationKind, Role } from "../core/types.ts";

/** Terms a query matches at most: a question, not a pasted page (each term costs a posting list). */
const MAX_QUERY_TERMS = 24;
/** Characters of a message shown as a hit's snippet: enough to tell whether it is the one. */
const SNIPPET_CHARS = 300;
/** Most hits one search returns. */
export const MAX_MESSAGE_HITS = 50;

/**
 * Words too common to narrow a search; the list stays short (see the
 * memory's keyword search), BM25 weighs the rest.
 */
const STOPWORDS = new Set(
  `a an and are as at be but by did do does for from had has have how i if in into is it its me my no not of on
  or our so than that the their them then there these they this to was we were what when where which who why
  will with you your`.split(/\s+/),
);

/** A message that matched a search, and where it is. */
export interface MessageHit {
  conversation_id: string;
  /** The conversation's title, as stored. */
  title: string;
  kind: ConversationKind;
  message_id: number;
  /** The message's place in its conversation, from 1. */
  position: number;
  role: Role;
  /** The tool whose result it is (role `tool`). */
  tool_name: string | null;
  created_at: string;
  /** Set when the message was written in a turn that had read untrusted content. */
  taint: string | null;
  /** The message around the query's words, labels of untrusted text kept whole. */
  snippet: string;
}

/** Options for {@linkcode searchMessages}. */
export interface SearchMessagesOptions {
  /** @default {10} */
  limit?: number;
  /** Only this conversation's messages. */
  conversationId?: string;
  /** Leave this conversation's messages out (the one asking). */
  excludeConversationId?: string;
  /** Only messages of this role. */
  role?: "user" | "assistant" | "tool";
}

interface HitRow {
  id: number;
  conversation_id: string;
  role: Role;
  tool_name: string | null;
  content: string;
  taint: string | null;
  created_at: string;
  title: string;
  kind: ConversationKind;
  position: number;
}

/**
 * The words of a query worth matching: lower-cased, deduplicated, without
 * stop words or single letters (a single digit stays), at most
 * {@linkcode MAX_QUERY_TERMS}.
 *
 * @example
 * ```ts
 * searchTerms("What did we say about the Kyoto hotel?"); // ["say", "about", "kyoto", "hotel"]
 * ```
 */
export function searchTerms(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])]
    .filter((term) => !STOPWORDS.has(term) && (term.length > 1 || /\d/.test(term)))
    .slice(0, MAX_QUERY_TERMS);
}

/**
 * The best messages for `query`, best first: those with every term if any
 * has them all, else those with any. What is searched: the user's messages,
 * hob's replies and tool results (what hob read is often what is asked for
 * later); not a reply still streaming (its text is not final; it is found by
 * its final text once it ends), not tool calls' arguments (the reply around
 * them says what they were for), and not a deleted conversation's messages
 * (gone with it, from the index too).
 *
 * @example
 * ```ts
 * searchMessages(sql, "kyoto hotel", { excludeConversationId: current });
 * ```
 */
export function searchMessages(
  sql: Sql,
  query: string,
  options: SearchMessagesOptions = {},
): MessageHit[] {
  const { limit = 10, conversationId = null, excludeConversationId = null, role = null } = options;
  const terms = searchTerms(query);
  if (terms.length === 0) return [];
  const quoted = terms.map((term) => `"${term}"`);
  const statement = sql<HitRow>(
    `SELECT m.id, m.conversation_id, m.role, m.tool_name, m.content, m.taint, m.created_at,
            c.title, c.kind,
            (SELECT COUNT(*) FROM messages p
              WHERE p.conversation_id = m.conversation_id AND p.id <= m.id) AS position
       FROM messages_fts f
       JOIN messages m ON m.id = f.rowid
       JOIN conversations c ON c.id = m.conversation_id
      WHERE messages_fts MATCH ?
        AND m.status <> 'streaming' AND m.role <> 'system'
        AND (? IS NULL OR m.conversation_id = ?)
        AND (? IS NULL OR m.conversation_id <> ?)
        AND (? IS NULL OR m.role = ?)
      ORDER BY f.rank, m.id DESC
      LIMIT ?`,
  );
  const run = (match: string) =>
    statement.all(
      match,
      conversationId,
      conversationId,
      excludeConversationId,
      excludeConversationId,
      role,
      role,
      Math.min(Math.max(1, limit), MAX_MESSAGE_HITS),
    );
  let rows = run(quoted.join(" AND "));
  if (rows.length === 0 && quoted.length > 1) rows = run(quoted.join(" OR "));
  return rows.map((row) => ({
    conversation_id: row.conversation_id,
    title: row.title,
    kind: row.kind,
    message_id: row.id,
    position: row.position,
    role: row.role,
    tool_name: row.tool_name,
    created_at: row.created_at,
    taint: row.taint,
    snippet: snippetOf(row.content, terms),
  }));
}

/**
 * The part of a message around the first of `terms` it holds, whitespace
 * folded, labels of untrusted text kept whole (a snippet of a labelled tool
 * result is still labelled).
 *
 * @example
 * ```ts
 * snippetOf(longReply, ["kyoto"]); // "…we stayed at a small hotel in Kyoto near…"
 * ```
 */
export function snippetOf(text: string, terms: string[]): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  const lower = flat.toLowerCase();
  // The index matched stems ("hotels" for "hotel"): look for the term, then its start.
  const at = terms.flatMap((term) => [term, term.slice(0, Math.max(4, term.length - 3))])
    .map((word) => lower.indexOf(word)).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, Math.min(at - SNIPPET_CHARS / 4, flat.length - SNIPPET_CHARS));
  const end = start + SNIPPET_CHARS;
  return `${start > 0 ? "…" : ""}${excerpt(flat, start, end)}${end < flat.length ? "…" : ""}`;
}
