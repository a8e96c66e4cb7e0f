/**
 * git, judged as a small read-only subset. git runs programs named in its
 * configuration — aliases, pagers, `core.fsmonitor`, hooks, diff and
 * textconv drivers, filters, `core.sshCommand` — and a repository inside the
 * workspace is one the agent could have written. So:
 *
 * - Only read-only subcommands run unasked (status, log, show, diff, …), each
 *   with a table of its options; everything else (commit, fetch, aliases,
 *   external `git-foo` commands) asks.
 * - Global options that change what git runs (`-c`, `--config-env`,
 *   `--exec-path`, `-p`) ask; `-C`, `--git-dir` and `--work-tree` must stay
 *   inside the allowed directories.
 * - The repository git will use is found the way git finds it, and when its
 *   configuration lives inside the allowed directories it may set only keys
 *   known to run nothing; hooks (other than samples) and submodules ask.
 *   Configuration outside the allowed directories (~/.gitconfig) is the
 *   user's own and is trusted. A repository outside the allowed directories
 *   is reading outside them, and asks.
 *
 * Every look-up on disk is charged to the line's budget, and configuration is
 * read only from regular files of a bounded size: a FIFO would block the
 * judge, a huge file would fill its memory.
 */

import { dirname, isAbsolute, resolve } from "node:path";
import type { Budget } from "./budget.ts";
import type { Field } from "./expand.ts";
import { type OptionTable, optionTable, parseArgs } from "./options.ts";
import type { CommandJudge } from "./command_judge.ts";
import { isInside } from "../sandbox/paths.ts";
import { isMissing } from "./paths.ts";

const DIFF = `p u patch s no-patch U= unified= output=write output-indicator-new=
  output-indicator-old= output-indicator-context= raw patch-with-raw t indent-heuristic
  no-indent-heuristic minimal patience histogram anchored= diff-algorithm= stat?= compact-summary
  numstat shortstat X?= dirstat?= cumulative dirstat-by-file?= summary patch-with-stat z name-only
  name-status submodule?=ask color?= no-color color-moved?= no-color-moved color-moved-ws=
  no-color-moved-ws word-diff?= word-diff-regex= color-words?= no-renames rename-empty
  no-rename-empty check ws-error-highlight= full-index binary abbrev?= B?= break-rewrites?= M?=
  find-renames?= C?= find-copies?= find-copies-harder D irreversible-delete l= diff-filter= S= G=
  find-object= pickaxe-all pickaxe-regex O=read R relative?= no-relative a text ignore-cr-at-eol
  ignore-space-at-eol b ignore-space-change w ignore-all-space ignore-blank-lines
  I= ignore-matching-lines= inter-hunk-context= W function-context exit-code quiet
  ext-diff!exec no-ext-diff textconv no-textconv ignore-submodules?= src-prefix= dst-prefix=
  no-prefix default-prefix line-prefix= ita-invisible-in-index ita-visible-in-index`;

const LOG = `n|max-count= skip= since= after= until= before= author= committer= grep-reflog= grep=
  all-match invert-grep i|regexp-ignore-case basic-regexp E|extended-regexp F|fixed-strings
  P|perl-regexp remove-empty merges no-merges min-parents= max-parents= no-min-parents
  no-max-parents first-parent exclude-first-parent-only not all branches?= tags?= remotes?= glob=
  exclude= reflog alternate-refs single-worktree ignore-missing bisect cherry-mark cherry-pick
  left-only right-only cherry g|walk-reflogs merge boundary simplify-by-decoration full-history
  dense sparse simplify-merges ancestry-path?= show-pulls date-order author-date-order
  topo-order reverse no-walk?= do-walk pretty?= format= abbrev-commit no-abbrev-commit oneline
  encoding= expand-tabs?= no-expand-tabs notes?= no-notes show-notes?= standard-notes
  no-standard-notes show-signature!exec relative-date date= parents children left-right graph
  show-linear-break?= c cc dd m r diff-merges= no-diff-merges combined-all-paths follow
  decorate?= no-decorate decorate-refs= decorate-refs-exclude= clear-decorations source
  use-mailmap mailmap no-use-mailmap no-mailmap full-diff log-size L=ask max-age= min-age=`;

/** The subset of git that runs unasked, with the options each may use. */
const SUBCOMMANDS: Record<string, { options: OptionTable; numeric?: boolean; listOnly?: boolean }> =
  {
    status: {
      options: optionTable(
        `s|short b|branch show-stash porcelain?= long v|verbose u|untracked-files?=
       ignore-submodules?= ignored?= z column?= no-column ahead-behind no-ahead-behind renames
       no-renames find-renames?=`,
      ),
    },
    log: { options: optionTable(`${LOG} ${DIFF}`), numeric: true },
    show: { options: optionTable(`${LOG} ${DIFF}`), numeric: true },
    diff: { options: optionTable(`${DIFF} cached staged merge-base no-index!ask`) },
    shortlog: {
      options: optionTable(`${LOG} n|numbered s|summary e|email committer group= w?=`),
      numeric: true,
    },
    "rev-parse": {
      options: optionTable(
        `sq-quote keep-dashdash stop-at-non-option stuck-long revs-only no-revs flags no-flags
       default= prefix= verify q|quiet sq short?= not abbrev-ref?= symbolic symbolic-full-name
       all branches?= tags?= remotes?= glob= exclude= disambiguate= local-env-vars path-format=
       git-dir git-common-dir git-path= show-toplevel show-superproject-working-tree
       shared-index-path absolute-git-dir is-inside-git-dir is-inside-work-tree
       is-bare-repository is-shallow-repository show-cdup show-prefix show-object-format?=
       since= after= until= before= show-ref-format`,
      ),
    },
    "ls-files": {
      options: optionTable(
        `c|cached d|deleted m|modified o|others i|ignored s|stage u|unmerged k|killed directory
       no-empty-directory eol z t v f full-name abbrev?= x|exclude= X|exclude-from=read
       exclude-per-directory= exclude-standard error-unmatch with-tree= debug deduplicate sparse
       format=`,
      ),
    },
    "ls-tree": {
      options: optionTable(
        `d r t l|long z name-only name-status object-only full-name full-tree abbrev?= format=`,
      ),
    },
    branch: {
      options: optionTable(
        `a|all r|remotes v|verbose list l contains?= no-contains?= merged?= no-merged?= sort=
       format= show-current column?= no-column color?= no-color points-at= i|ignore-case
       abbrev?= no-abbrev q|quiet`,
      ),
      listOnly: true,
    },
    tag: {
      options: optionTable(
        `l|list n?= sort= contains?= no-contains?= merged?= no-merged?= points-at= format=
       column?= no-column color?= i|ignore-case`,
      ),
      listOnly: true,
    },
    describe: {
      options: optionTable(
        `contains dirty?= broken?= all tags long abbrev= candidates= exact-match debug match=
       exclude= always first-parent`,
      ),
    },
    blame: {
      options: optionTable(
        `b root show-stats f|show-name n|show-number p|porcelain line-porcelain incremental l t s
       e|show-email w L= M?= C?= c date= progress no-progress contents=read S=read reverse=
       first-parent abbrev= ignore-rev= ignore-revs-file=read color-lines color-by-age
       encoding= minimal`,
      ),
    },
    remote: { options: optionTable("v|verbose"), listOnly: true },
    version: { options: optionTable("build-options") },
  };

/** Subcommands that talk to the network (and run transport helpers from the config). */
const NETWORK = new Set([
  "fetch",
  "pull",
  "push",
  "clone",
  "ls-remote",
  "submodule",
  "remote",
  "archive",
  "request-pull",
  "send-email",
]);

/** Configuration keys known to run nothing, by section; any other key in a writable config asks. */
const SAFE_CONFIG: Record<string, Set<string> | "any"> = {
  core: new Set([
    "repositoryformatversion",
    "filemode",
    "bare",
    "logallrefupdates",
    "ignorecase",
    "precomposeunicode",
    "symlinks",
    "autocrlf",
    "safecrlf",
    "quotepath",
    "eol",
    "checkstat",
    "trustctime",
    "abbrev",
    "compression",
    "loosecompression",
  ]),
  remote: new Set(["url", "pushurl", "fetch", "push", "tagopt", "prune", "mirror"]),
  branch: new Set(["remote", "merge", "rebase", "pushremote", "description"]),
  user: new Set(["name", "email"]),
  init: new Set(["defaultbranch"]),
  extensions: new Set(["objectformat", "worktreeconfig"]),
  pull: new Set(["rebase", "ff"]),
  i18n: new Set(["commitencoding", "logoutputencoding"]),
  log: new Set(["date", "decorate", "abbrevcommit", "follow"]),
  color: "any",
  advice: "any",
};

/** Judges a git command line: global options, the subcommand, its options, and the repository. */
export function judgeGit(args: Field[], judge: CommandJudge): void {
  const p = judge.program;
  let cwd = judge.cwd;
  let gitDir: string | undefined;
  let i = 0;
  for (; i < args.length && args[i].text.startsWith("-"); i++) {
    const text = args[i].text;
    if (args[i].glob) {
      judge.risk("dynamic", `${p}'s option '${text}' is a glob`);
      continue;
    }
    const valueOf = (name: string) => {
      if (text.startsWith(`${name}=`)) return { text: text.slice(name.length + 1) };
      return args[++i];
    };
    if (SAFE_GLOBAL.has(text)) continue;
    if (text === "-C") {
      const dir = args[++i];
      if (!dir) return;
      judge.path(dir, "read", false);
      cwd = cwd === null ? null : resolve(cwd, dir.text);
    } else if (text === "--git-dir" || text.startsWith("--git-dir=")) {
      const dir = valueOf("--git-dir");
      if (!dir) return;
      judge.path(dir, "read", false);
      gitDir = cwd === null ? undefined : resolve(cwd, dir.text);
    } else if (text === "--work-tree" || text.startsWith("--work-tree=")) {
      const dir = valueOf("--work-tree");
      if (dir) judge.path(dir, "write", false);
    } else if (RISKY_GLOBAL.some((option) => text === option || text.startsWith(`${option}=`))) {
      judge.risk("exec", `${p} ${text} changes which programs git runs`);
      if (["-c", "--config-env", "--namespace", "--super-prefix"].includes(text)) i += 1;
    } else {
      judge.risk("unknown-option", `${p} is given ${text}, which the policy does not know`);
    }
  }
  const sub = args[i];
  if (!sub) return;
  if (sub.glob) return judge.risk("dynamic", `${p}'s subcommand '${sub.text}' is a glob`);
  const table = SUBCOMMANDS[sub.text];
  if (!table) {
    if (NETWORK.has(sub.text)) judge.risk("net", `${p} ${sub.text} talks to the network`);
    return judge.risk(
      "exec",
      `${p} ${sub.text} is outside the read-only subset of git the policy allows ` +
        "(it may change the repository, run hooks, an alias or a git-* program)",
    );
  }
  judgeSubcommand(sub.text, table, args.slice(i + 1), judge);
  if (cwd === null) {
    judge.risk("dynamic", `${p} runs in a directory the policy cannot work out`);
    return;
  }
  inspectRepository(cwd, gitDir, judge);
}

/** Global options that change nothing git runs. */
const SAFE_GLOBAL = new Set([
  "--no-pager",
  "-P",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--bare",
  "--version",
]);
/** Global options that make git run programs or read configuration from elsewhere. */
const RISKY_GLOBAL = [
  "-c",
  "--config-env",
  "--exec-path",
  "-p",
  "--paginate",
  "--upload-pack",
  "--receive-pack",
  "--namespace",
  "--super-prefix",
  "--help",
  "--html-path",
  "--man-path",
  "--info-path",
  "--list-cmds",
];

function judgeSubcommand(
  name: string,
  table: { options: OptionTable; numeric?: boolean; listOnly?: boolean },
  args: Field[],
  judge: CommandJudge,
): void {
  const p = `${judge.program} ${name}`;
  const parsed = parseArgs(args, table.options, { numeric: table.numeric });
  for (const option of parsed.unknown) {
    judge.risk("unknown-option", `${p} is given ${option}, an option the policy does not know`);
  }
  for (const glob of parsed.globbed) {
    judge.risk(
      "dynamic",
      `${p}'s option '${glob}' is a glob, which bash may turn into other options`,
    );
  }
  for (const { spec, value, written } of parsed.options) {
    if (spec.effect === "read" || spec.effect === "write") {
      if (value) judge.path(value, spec.effect, false);
    } else if (spec.effect === "exec") {
      judge.risk("exec", `${p} ${written} makes git run another program`);
    } else if (spec.effect === "ask") {
      judge.risk("dynamic", `${p} ${written} is not something the policy judges`);
    }
  }
  const listing = parsed.options.some((o) => o.spec.name === "list" || o.spec.name === "l");
  if (table.listOnly && parsed.operands.length > 0 && !(listing && name !== "remote")) {
    judge.risk("unknown-option", `${p} with a name changes the repository`);
  }
  // Revisions and paths alike: a path outside the roots is refused, a revision resolves inside.
  for (let k = 0; k < parsed.operands.length; k++) {
    judge.path(parsed.operands[k], "read", parsed.operandsInOptionPosition[k]);
  }
}

/**
 * Finds the repository git would use from `cwd` (or `--git-dir`) and checks
 * that nothing in it, that the agent could have written, makes git run a program.
 */
function inspectRepository(
  cwd: string,
  explicitGitDir: string | undefined,
  judge: CommandJudge,
): void {
  const { budget } = judge;
  const found = explicitGitDir
    ? { gitDir: realOrSelf(explicitGitDir), workTree: undefined }
    : discoverRepository(cwd, budget);
  if (!found) return;
  const writable = (path: string) => judge.roots.some((root) => isInside(path, root));
  if (!writable(found.gitDir)) {
    judge.risk(
      "reads-outside",
      `${judge.program} uses the repository at ${found.gitDir}, outside the allowed directories`,
    );
    return;
  }
  let commonDir = found.gitDir;
  const common = readText(`${found.gitDir}/commondir`, budget);
  if (common === UNREADABLE || common === TOO_LARGE) {
    judge.risk("dynamic", `${found.gitDir}/commondir cannot be read to find the repository`);
    return;
  }
  if (common !== undefined) {
    commonDir = realOrSelf(resolve(found.gitDir, common.trim()));
    if (!writable(commonDir)) {
      judge.risk(
        "reads-outside",
        `${judge.program} uses the repository at ${commonDir}, outside the allowed directories`,
      );
      return;
    }
  }
  const configs = [`${commonDir}/config`, `${found.gitDir}/config.worktree`];
  if (judge.home) configs.push(`${judge.home}/.gitconfig`, `${judge.home}/.config/git/config`);
  configs.push("/etc/gitconfig");
  const top = found.workTree;
  judge.noteGitFiles([
    found.gitDir,
    commonDir,
    ...configs.map(realOrSelf),
    ...(top ? [`${top}/.git`, `${top}/.gitmodules`] : []),
  ]);
  for (const config of configs) {
    const real = realOrSelf(config);
    const text = readText(real, budget);
    if (text === undefined) continue;
    if (text === TOO_LARGE) {
      judge.risk(
        "exec",
        `${config} is larger than the policy reads, and can make git run programs`,
      );
      continue;
    }
    // The user's own configuration is trusted, except where it sends git into the roots.
    const problems = writable(real)
      ? unsafeConfig(text)
      : pointersIntoRoots(text, dirname(real), judge.home, writable);
    for (const problem of problems) {
      judge.risk("exec", `${config} ${problem}, which can make git run programs`);
    }
  }
  for (const hook of activeHooks(`${commonDir}/hooks`, budget)) {
    judge.risk("exec", `the repository has the hook ${hook}, which git runs`);
  }
  if ((top && exists(`${top}/.gitmodules`)) || exists(`${commonDir}/modules`)) {
    judge.risk("exec", "the repository has submodules, whose configuration git follows too");
  }
}

/** Walks up from `cwd` as git does: a `.git` directory or file, or a bare repository. */
function discoverRepository(
  cwd: string,
  budget: Budget,
): { gitDir: string; workTree?: string } | undefined {
  let dir = realOrSelf(cwd);
  while (true) {
    const dotGit = `${dir === "/" ? "" : dir}/.git`;
    // A stat, a read and the three look-ups of isGitDirectory.
    budget.entries(5);
    try {
      const info = Deno.statSync(dotGit);
      if (info.isDirectory) return { gitDir: realOrSelf(dotGit), workTree: dir };
      const text = readText(dotGit, budget);
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(text ?? "");
      if (pointer) {
        const target = isAbsolute(pointer[1]) ? pointer[1] : resolve(dir, pointer[1]);
        return { gitDir: realOrSelf(target), workTree: dir };
      }
    } catch {
      // No .git here.
    }
    if (isGitDirectory(dir)) return { gitDir: dir };
    if (dir === "/") return undefined;
    dir = dirname(dir);
  }
}

function isGitDirectory(dir: string): boolean {
  const prefix = dir === "/" ? "" : dir;
  return exists(`${prefix}/HEAD`) && exists(`${prefix}/objects`) &&
    exists(`${prefix}/refs`);
}

/**
 * The lines of a git config file that are not a known-safe key. The reading
 * is strict: anything it cannot read (continuation lines, a key after a
 * section header, includes) counts as unsafe.
 */
export function unsafeConfig(text: string): string[] {
  const problems: string[] = [];
  let section = "";
  for (const rawLine of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\\n]|\\.)*")?\s*\]\s*(?:[#;].*)?$/.exec(
      line,
    );
    if (header) {
      section = header[1].toLowerCase().split(".")[0];
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!entry || (entry[2] ?? "").trimEnd().endsWith("\\")) {
      problems.push(`has the line '${line.slice(0, 60)}'`);
      continue;
    }
    const key = entry[1].toLowerCase();
    const safe = SAFE_CONFIG[section];
    if (safe !== "any" && !safe?.has(key)) {
      problems.push(`sets ${section || "(no section)"}.${key}`);
    }
  }
  return problems;
}

/**
 * In a trusted config file, the keys that would make git run what the agent
 * can write: a hooks path (a relative one is inside each repository), an
 * fsmonitor program, or an included file, inside the allowed directories.
 */
export function pointersIntoRoots(
  text: string,
  directory: string,
  home: string | undefined,
  writable: (path: string) => boolean,
): string[] {
  const problems: string[] = [];
  let section = "";
  const located = (value: string) => {
    const path = value.startsWith("~/") && home ? `${home}${value.slice(1)}` : value;
    return resolve(directory, path);
  };
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (header) {
      section = header[1].toLowerCase();
      continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*"?([^"#;]*)"?/.exec(line);
    if (!entry) continue;
    const key = entry[1].toLowerCase();
    const value = entry[2].trim();
    if (section === "core" && key === "hookspath") {
      if (!isAbsolute(value) && !value.startsWith("~/")) {
        problems.push(`sets core.hooksPath to '${value}', inside each repository`);
      } else if (writable(located(value))) problems.push(`sets core.hooksPath to '${value}'`);
    } else if (section === "core" && key === "fsmonitor" && value.includes("/")) {
      if (writable(located(value))) problems.push(`sets core.fsmonitor to '${value}'`);
    } else if ((section === "include" || section === "includeif") && key === "path") {
      if (writable(located(value))) problems.push(`includes '${value}'`);
    }
  }
  return problems;
}

function activeHooks(dir: string, budget: Budget): string[] {
  const hooks: string[] = [];
  budget.entries();
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.name.endsWith(".sample")) hooks.push(entry.name);
      // The first few name the problem; a directory of thousands is not read to its end.
      if (hooks.length >= MAX_HOOKS_NAMED) break;
    }
  } catch (error) {
    // No hooks directory is no hooks; one that cannot be read may hold any.
    if (!isMissing(error)) hooks.push("(unreadable hooks directory)");
  }
  return hooks;
}

function realOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Stands for a file that exists but cannot be read; strict readers reject it as a line. */
const UNREADABLE = "(unreadable)";
/** Stands for a file larger than MAX_CONFIG_BYTES. */
const TOO_LARGE = "(too large)";
/** git's own files are a few kilobytes; a larger one is not read into hob's memory. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** Hooks named in one finding: one is enough to ask. */
const MAX_HOOKS_NAMED = 20;

/**
 * A regular file's text; undefined when it does not exist, and a line git
 * cannot hide behind when it cannot be read. A FIFO or a device is not
 * opened (reading one could wait forever): it counts as unreadable.
 */
function readText(path: string, budget: Budget): string | undefined {
  budget.entries();
  try {
    const info = Deno.statSync(path);
    if (!info.isFile) return UNREADABLE;
    if (info.size > MAX_CONFIG_BYTES) return TOO_LARGE;
    return readExactly(path, info.size) ?? UNREADABLE;
  } catch (error) {
    return isMissing(error) ? undefined : UNREADABLE;
  }
}

/** A file's text when it still has `size` bytes; undefined when it grew since it was looked at. */
function readExactly(path: string, size: number): string | undefined {
  using file = Deno.openSync(path);
  const bytes = new Uint8Array(size + 1);
  let read = 0;
  while (read < bytes.length) {
    const n = file.readSync(bytes.subarray(read));
    if (n === null) break;
    read += n;
  }
  return read > size ? undefined : new TextDecoder().decode(bytes.subarray(0, read));
}

/** Whether a path exists; one that cannot be looked at counts as existing. */
function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    return !isMissing(error);
  }
}
