/**
 * Where a skill is installed from, read into memory before anything is
 * written: a folder holding a SKILL.md (a collection's folder holding one
 * skill folder is taken when it holds exactly one), an archive (`.zip`,
 * `.skill`, `.tar.gz`, `.tgz`; archive.ts), or a URL — to an archive, or to
 * a GitHub repository (`https://github.com/OWNER/REPO`, `…/tree/REF/PATH`,
 * `….git`), fetched as that ref's archive with PATH as the skill's folder.
 * URLs are fetched by the caller's `fetch` (hob's checked web access, within
 * `tools.web`); the files are read within the folder's limits (folder.ts)
 * and nothing is kept of the source.
 */

import { basename, join, resolve } from "node:path";
import { MAX_BYTES, readSkillFolder, type SkillFile } from "./folder.ts";
import { SKILL_FILE } from "./shelf.ts";
import { SkillSourceError } from "./source_error.ts";

export { SkillSourceError };

/** A skill read from its source: the folder's name and its files. */
export interface SourcedSkill {
  /** The name of the folder the skill came in, which the specification says its name must match. */
  folder: string;
  files: SkillFile[];
  /** The source as recorded: an absolute path, or the URL as given. */
  source: string;
}

/** What a GET of a URL gave back (after redirects). */
export interface FetchedArchive {
  url: URL;
  status: number;
  /** The `Content-Type` header in lower case, "" when there was none. */
  contentType: string;
  bytes: Uint8Array;
}

/**
 * GETs `url` through hob's checked web access, reading at most `maxBytes`;
 * throws a SkillSourceError when the address is refused.
 */
export type SkillFetch = (url: URL, maxBytes: number) => Promise<FetchedArchive>;

/** How URLs are read. */
export interface SourceOptions {
  /** Fetches a URL; without it a URL is refused. */
  fetch?: SkillFetch;
  /** The host read as GitHub ("github.com"; a test's fake server). */
  githubHost?: string;
}

/** The archives read, by the ends of their names. */
const ARCHIVE_NAME = /\.(zip|skill|tar\.gz|tgz)$/i;

/** What hob reads, for the errors that say it. */
export const SOURCE_FORMS =
  "a folder holding SKILL.md, a .zip/.skill/.tar.gz/.tgz archive (a path or an https URL), or a GitHub repository URL (https://github.com/OWNER/REPO, …/tree/REF/PATH or ….git)";

/**
 * Reads the skill at `source`: a path (relative to `cwd`) to a folder or an
 * archive, or a URL.
 *
 * @example
 * ```ts
 * const { folder, files } = await readSkillSource("./skills/pdf", Deno.cwd());
 * await readSkillSource("https://github.com/anthropics/skills/tree/main/skills/pdf", Deno.cwd(), {
 *   fetch,
 * });
 * ```
 */
export async function readSkillSource(
  source: string,
  cwd: string,
  options: SourceOptions = {},
): Promise<SourcedSkill> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[\w.-]+@[\w.-]+:/.test(source)) {
    return await readUrl(source, options);
  }
  const path = resolve(cwd, source);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new SkillSourceError(`${source} does not exist`);
    }
    // A name longer than the system allows names nothing there: the caller's input, not hob's fault.
    if ((error as { code?: string }).code === "ENAMETOOLONG") {
      throw new SkillSourceError(
        `${source} is not a path this system can have (a name is too long)`,
      );
    }
    throw error;
  }
  if (info.isFile && ARCHIVE_NAME.test(path)) {
    if (info.size > MAX_BYTES) {
      throw new SkillSourceError(`${source} is larger than ${MAX_BYTES / 1024 / 1024} MB`);
    }
    const { readSkillArchive } = await import("./archive.ts");
    const read = await readSkillArchive(await Deno.readFile(path), {
      source,
      rootName: basename(path).replace(ARCHIVE_NAME, ""),
    });
    return { ...read, source: path };
  }
  if (!info.isDirectory) {
    throw new SkillSourceError(`${source} is not ${SOURCE_FORMS}`);
  }
  const dir = await skillDir(path, source);
  const { files } = await readSkillFolder(dir);
  return { folder: basename(dir), files, source: dir };
}

/** A GitHub repository URL as the archive of its ref and the folder inside it. */
export interface GithubArchive {
  /** The `.tar.gz` of the ref: `https://github.com/OWNER/REPO/archive/REF.tar.gz`. */
  archive: URL;
  /** The path inside the repository ("" for its root). */
  inside: string;
  repo: string;
}

/**
 * The archive to fetch for a GitHub repository URL on `host`, or null for
 * any other URL: `/OWNER/REPO` (or `.git`) is the default branch (HEAD),
 * `/OWNER/REPO/tree/REF/PATH` the folder PATH at REF (a REF holding `/` is
 * not told apart from PATH: use its commit), `/blob/REF/PATH/SKILL.md` its folder.
 *
 * @example
 * ```ts
 * githubArchive(new URL("https://github.com/anthropics/skills/tree/main/skills/pdf"))?.archive.href;
 * // "https://github.com/anthropics/skills/archive/main.tar.gz" (inside: "skills/pdf")
 * ```
 */
export function githubArchive(url: URL, host = "github.com"): GithubArchive | null {
  if (url.hostname.toLowerCase() !== host && url.hostname.toLowerCase() !== `www.${host}`) {
    return null;
  }
  // The parts stay as the URL encodes them; only the path inside is decoded, to match names.
  const parts = url.pathname.split("/").filter(Boolean);
  if (parts.length < 2) return null;
  const [owner, name, kind, ref, ...path] = parts;
  const repo = name.replace(/\.git$/, "");
  const bare = parts.length === 2;
  const tree = (kind === "tree" || kind === "blob") && ref !== undefined;
  if (!bare && !tree) return null;
  let inside = tree ? decoded(path.join("/")) : "";
  if (kind === "blob") inside = inside.replace(new RegExp(`(^|/)${SKILL_FILE}$`), "");
  const archive = new URL(`/${owner}/${repo}/archive/${tree ? ref : "HEAD"}.tar.gz`, url.origin);
  return { archive, inside, repo: decoded(repo) };
}

/** Reads the skill a URL gives: an archive, or a GitHub repository's. */
async function readUrl(source: string, options: SourceOptions): Promise<SourcedSkill> {
  let url: URL | null = null;
  try {
    url = new URL(source);
  } catch {
    // An scp-like git address (git@host:owner/repo.git) is no URL.
  }
  const github = url && /^https?:$/.test(url.protocol)
    ? githubArchive(url, options.githubHost)
    : null;
  if (!url || (!github && /\.git\/?$/.test(url.pathname))) {
    throw new SkillSourceError(
      `${source} is a git repository hob cannot fetch; hob reads ${SOURCE_FORMS}`,
    );
  }
  if (!/^https?:$/.test(url.protocol)) {
    throw new SkillSourceError(
      `${source}: hob fetches skills over https; it reads ${SOURCE_FORMS}`,
    );
  }
  if (!options.fetch) throw new SkillSourceError(`${source}: this hob cannot fetch URLs`);
  const target = github?.archive ?? url;
  const fetched = await options.fetch(target, MAX_BYTES + 1);
  const asked = github ? `${source} (its archive ${target.href})` : source;
  if (fetched.status >= 400) {
    throw new SkillSourceError(
      `${asked} answered ${fetched.status}${
        fetched.status === 404 ? ": there is nothing there (check the address and the ref)" : ""
      }`,
    );
  }
  if (fetched.bytes.length > MAX_BYTES) {
    throw new SkillSourceError(`${asked} is larger than ${MAX_BYTES / 1024 / 1024} MB`);
  }
  const { archiveKind, readSkillArchive } = await import("./archive.ts");
  if (!archiveKind(fetched.bytes)) {
    throw new SkillSourceError(
      `${source} is not an archive (it answered ${
        fetched.contentType || "no content type"
      }); hob reads ${SOURCE_FORMS}`,
    );
  }
  const last = decoded(fetched.url.pathname.split("/").pop() ?? "");
  const read = await readSkillArchive(fetched.bytes, {
    source,
    rootName: github?.repo ?? (last.replace(ARCHIVE_NAME, "") || fetched.url.hostname),
    inside: github?.inside,
    dropTop: github !== null,
  });
  return { ...read, source };
}

/** A URL's percent-encoded text decoded, or as it is when it does not decode. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `path` when it holds a SKILL.md, else its one sub-folder that does. */
async function skillDir(path: string, source: string): Promise<string> {
  if (await exists(join(path, SKILL_FILE))) return path;
  const found: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    if (entry.isDirectory && await exists(join(path, entry.name, SKILL_FILE))) {
      found.push(entry.name);
    }
  }
  if (found.length === 1) return join(path, found[0]);
  if (found.length === 0) throw new SkillSourceError(`${source} holds no ${SKILL_FILE}`);
  throw new SkillSourceError(
    `${source} holds ${found.length} skills (${found.sort().join(", ")}); add one folder at a time`,
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
