/**
 * The version actions of the files that shape the agent — list the versions
 * of memory, identity, skill and tool files, show one, diff two, revert to
 * one, undo one write — each defined once: one zod schema for its input (the
 * one the OpenAPI document shows), its defaults, and its refusals as
 * {@linkcode ActionError}s. Part of the memory actions (memory.ts), which load
 * this module with the first version call: no start and no turn needs it.
 * It knows the home's memory and its files' versions, nothing of any wire format.
 * The CLI's `hob memory history` and REST's `/api/memory/history` call `versions`.
 */

import { z } from "zod";
import { isVersioned, UndoConflict, type VersionDiff } from "../memory/versions.ts";
import type { Memory } from "../memory/memory.ts";
import type { FileVersion, WrittenBy } from "../store/versions.ts";
import { ActionError, checkInput } from "./errors.ts";

/** Which versions to list, newest first: one file's (`path` relative to the home or to memory/). */
export const listVersionsInput = z.object({
  path: z.string().trim().min(1).max(1_000).optional(),
  tainted: z.union([z.boolean(), z.enum(["true", "false", "1", "0"])])
    .transform((value) => value === true || value === "true" || value === "1")
    .optional(),
  before: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
/** A version's number, as digits or a number. */
const versionNumber = z.coerce.number({ error: "must be a version number" }).int().min(1);
/** A version, by its number. */
export const versionInput = z.object({ id: versionNumber });
/** Two versions of one file; without `to`, what the write `from` changed. */
export const diffInput = z.object({ from: versionNumber, to: versionNumber.optional() });

export type ListVersionsInput = z.input<typeof listVersionsInput>;
export type VersionInput = z.input<typeof versionInput>;
export type DiffInput = z.input<typeof diffInput>;

/** A version with what the file held then (null: the write deleted it). */
export type FileVersionWithContent = FileVersion & { content: string | null };
/** What a revert (or an undo) did: the version put back (or undone) and the new one it made (null: nothing changed). */
export interface RevertResult {
  reverted: FileVersion;
  version: FileVersion | null;
}

/** The version actions, part of the memory actions. */
export interface VersionActions {
  /** Versions of memory, identity, skill and tool files, newest first. */
  versions(input?: ListVersionsInput): Promise<FileVersion[]>;
  /** One version and its content; `not_found` naming `id`. */
  version(input: VersionInput): Promise<FileVersionWithContent>;
  /** The unified diff between two versions of one file, or of one write. */
  diff(input: DiffInput): Promise<VersionDiff>;
  /** Puts a file back as it was at a version, as a new version. */
  revert(input: VersionInput, by: WrittenBy): Promise<RevertResult>;
  /**
   * Takes back what one write changed, keeping later writes, as a new
   * version; `conflict` when later writes changed the same lines.
   */
  undo(input: VersionInput, by: WrittenBy): Promise<RevertResult>;
}

/**
 * The version actions over a home's memory.
 *
 * @example
 * ```ts
 * const actions = createVersionActions(memory);
 * const [latest] = await actions.versions({ path: "MEMORY.md", limit: 1 });
 * await actions.revert({ id: latest.id }, { author: "owner", via: "cli" });
 * ```
 */
export function createVersionActions(memory: Memory): VersionActions {
  return {
    async versions(input = {}) {
      const { path, tainted, before, limit } = checkInput(listVersionsInput, input);
      await memory.scanned;
      return memory.versions.list({
        path: path === undefined ? undefined : versionedPath(path),
        tainted,
        before,
        limit,
      });
    },
    async version(input) {
      const { id } = checkInput(versionInput, input);
      await memory.scanned;
      const version = findVersion(memory, id, "id");
      return { ...version, content: memory.versions.content(version) };
    },
    async diff(input) {
      const { from, to } = checkInput(diffInput, input);
      await memory.scanned;
      const older = findVersion(memory, from, "from");
      const newer = to === undefined ? undefined : findVersion(memory, to, "to");
      if (newer && newer.path !== older.path) {
        throw new ActionError(
          "invalid",
          `Versions ${from} and ${to} are of different files (${older.path}, ${newer.path})`,
          { field: "to" },
        );
      }
      return await memory.versions.diff(older, newer);
    },
    async revert(input, by) {
      const { id } = checkInput(versionInput, input);
      await memory.scanned;
      const reverted = findVersion(memory, id, "id");
      return { reverted, version: await memory.revert(reverted, by) };
    },
    async undo(input, by) {
      const { id } = checkInput(versionInput, input);
      await memory.scanned;
      const undone = findVersion(memory, id, "id");
      try {
        return { reverted: undone, version: await memory.undo(undone, by) };
      } catch (error) {
        if (!(error instanceof UndoConflict)) throw error;
        throw new ActionError("conflict", error.message, { field: "id", cause: error });
      }
    },
  };
}

/**
 * A path as versions name it (relative to the home): `identity/…`,
 * `skills/…`, `tools/…` and `memory/…` as they are, anything else taken as
 * relative to memory/ (`MEMORY.md`). `invalid` naming `path` when hob keeps
 * no versions of it.
 */
function versionedPath(path: string): string {
  const clean = path.replace(/^\.\//, "");
  const homePath = /^(memory|identity|skills|tools)\//.test(clean) ? clean : `memory/${clean}`;
  if (!isVersioned(homePath)) {
    throw new ActionError(
      "invalid",
      `hob keeps no versions of '${path}': only Markdown in memory/ and identity/, and files in skills/ and tools/`,
      { field: "path" },
    );
  }
  return homePath;
}

function findVersion(memory: Memory, id: number, field: string): FileVersion {
  const version = memory.versions.get(id);
  if (!version) throw new ActionError("not_found", `No version ${id}`, { field });
  return version;
}
