/**
 * What each program does with its arguments: a table of options per program
 * (every option the program documents, with what its value does), and judges
 * for programs whose command line is a language of its own (find, git, env
 * and the other wrappers). Options a table does not list make the policy ask;
 * programs that run code (shells, interpreters, pagers, archivers with
 * command hooks) always ask.
 */

import { resolve } from "node:path";
import type { CommandJudge } from "./command_judge.ts";
import type { Field } from "./expand.ts";
import { judgeGit } from "./git.ts";
import { isInside } from "../sandbox/paths.ts";
import {
  type Effect,
  type OptionTable,
  optionTable,
  parseArgs,
  type ParsedArgs,
  type ParseRules,
} from "./options.ts";

/** A program whose arguments are read by an option table. */
interface TableProgram {
  options: OptionTable;
  rules?: ParseRules;
  /** What operands are, by position; the last applies to the rest. */
  operands: Effect[];
  /** The first operand is a pattern (grep) unless an option named in this list gave one. */
  patternUnless?: string[];
  /** Checks that depend on the parsed line (date's operand, curl's @files). */
  refine?: (parsed: ParsedArgs, judge: CommandJudge) => void;
}

const HELP = "help version";

/** GNU coreutils and friends, as their `--help` lists them (coreutils 9, grep 3.8, diffutils 3.8). */
const TABLES: Record<string, TableProgram> = {
  cat: {
    options: optionTable(
      `A|show-all b|number-nonblank e E|show-ends n|number s|squeeze-blank t T|show-tabs u
       v|show-nonprinting ${HELP}`,
    ),
    operands: ["read"],
  },
  head: {
    options: optionTable(`c|bytes= n|lines= q|quiet|silent v|verbose z|zero-terminated ${HELP}`),
    rules: { numeric: true },
    operands: ["read"],
  },
  tail: {
    options: optionTable(
      `c|bytes= f|follow?= F n|lines= max-unchanged-stats= pid= q|quiet|silent retry
       s|sleep-interval= v|verbose z|zero-terminated ${HELP}`,
    ),
    rules: { numeric: true },
    operands: ["read"],
  },
  wc: {
    options: optionTable(
      `c|bytes m|chars l|lines files0-from=list L|max-line-length w|words ${HELP}`,
    ),
    operands: ["read"],
  },
  ls: {
    options: optionTable(
      `a|all A|almost-all author b|escape block-size= B|ignore-backups c C color?= d|directory
       D|dired f F|classify?= file-type format= full-time g group-directories-first G|no-group
       h|human-readable si H|dereference-command-line dereference-command-line-symlink-to-dir
       hide= hyperlink?= indicator-style= i|inode I|ignore= k|kibibytes l L|dereference m
       n|numeric-uid-gid N|literal o p q|hide-control-chars show-control-chars Q|quote-name
       quoting-style= r|reverse R|recursive s|size S sort= time= time-style= t T|tabsize= u U v
       w|width= x X Z|context zero 1 ${HELP}`,
    ),
    operands: ["read"],
  },
  grep: {
    options: optionTable(
      `E|extended-regexp F|fixed-strings G|basic-regexp P|perl-regexp e|regexp= f|file=read
       i|ignore-case y no-ignore-case w|word-regexp x|line-regexp z|null-data s|no-messages
       v|invert-match V|version help m|max-count= b|byte-offset n|line-number line-buffered
       H|with-filename h|no-filename label= o|only-matching q|quiet|silent binary-files=
       a|text I d|directories= D|devices= r|recursive R|dereference-recursive!ask include=
       exclude= exclude-from=read exclude-dir= L|files-without-match l|files-with-matches
       c|count T|initial-tab Z|null B|before-context= A|after-context= C|context=
       group-separator= no-group-separator color?= colour?= U|binary`,
    ),
    rules: { numeric: true },
    operands: ["read"],
    patternUnless: ["e", "f"],
  },
  sort: {
    options: optionTable(
      `b|ignore-leading-blanks d|dictionary-order f|ignore-case g|general-numeric-sort
       i|ignore-nonprinting M|month-sort h|human-numeric-sort n|numeric-sort R|random-sort
       random-source=read r|reverse sort= V|version-sort batch-size= c C check?=
       compress-program=exec debug files0-from=list k|key= m|merge o|output=write s|stable
       S|buffer-size= t|field-separator= T|temporary-directory=write parallel= u|unique
       z|zero-terminated ${HELP}`,
    ),
    operands: ["read"],
  },
  uniq: {
    options: optionTable(
      `c|count d|repeated D all-repeated?= f|skip-fields= group?= i|ignore-case s|skip-chars=
       u|unique z|zero-terminated w|check-chars= ${HELP}`,
    ),
    // uniq INPUT OUTPUT: the second operand is written.
    operands: ["read", "write", "ask"],
  },
  diff: {
    options: optionTable(
      `normal q|brief s|report-identical-files c C= context?= u U= unified?= e|ed n|rcs
       y|side-by-side W|width= left-column suppress-common-lines p|show-c-function
       F|show-function-line= label= t|expand-tabs T|initial-tab tabsize= suppress-blank-empty
       l|paginate r|recursive no-dereference N|new-file unidirectional-new-file
       ignore-file-name-case no-ignore-file-name-case x|exclude= X|exclude-from=read
       S|starting-file= from-file=read to-file=read i|ignore-case E|ignore-tab-expansion
       Z|ignore-trailing-space b|ignore-space-change w|ignore-all-space B|ignore-blank-lines
       I|ignore-matching-lines= a|text strip-trailing-cr D|ifdef= old-group-format=
       new-group-format= unchanged-group-format= changed-group-format= line-format=
       old-line-format= new-line-format= unchanged-line-format= d|minimal horizon-lines=
       speed-large-files color?= palette= help v|version`,
    ),
    operands: ["read"],
  },
  du: {
    options: optionTable(
      `0|null a|all apparent-size B|block-size= b|bytes c|total D|dereference-args
       d|max-depth= files0-from=list H h|human-readable inodes k L|dereference!ask l|count-links m
       P|no-dereference S|separate-dirs si s|summarize t|threshold= time?= time-style=
       X|exclude-from=read exclude= x|one-file-system ${HELP}`,
    ),
    operands: ["read"],
  },
  df: {
    options: optionTable(
      `a|all B|block-size= h|human-readable H|si i|inodes k l|local no-sync output?= P|portability
       sync total t|type= T|print-type x|exclude-type= v ${HELP}`,
    ),
    // df reports the file system a path is on, not the file: it reads nothing there.
    operands: ["text"],
  },
  stat: {
    options: optionTable(`L|dereference f|file-system cached= c|format= printf= t|terse ${HELP}`),
    operands: ["read"],
  },
  file: {
    options: optionTable(
      `help v|version m|magic-file=ask z|uncompress Z|uncompress-noreport b|brief
       c|checking-printout e|exclude= exclude-quiet= f|files-from=list F|separator= i|mime apple
       extension mime-type mime-encoding k|keep-going l|list L|dereference h|no-dereference
       n|no-buffer N|no-pad 0|print0 p|preserve-date!ask r|raw s|special-files S|no-sandbox
       P|parameter= C|compile!ask d|debug`,
    ),
    operands: ["read"],
  },
  date: {
    options: optionTable(
      `d|date= debug f|file=read I|iso-8601?= resolution R|rfc-email rfc-3339= r|reference=read
       s|set=ask u|utc|universal ${HELP}`,
    ),
    operands: ["text"],
    refine: dateOperand,
  },
  uname: {
    options: optionTable(
      `a|all s|kernel-name n|nodename r|kernel-release v|kernel-version m|machine p|processor
       i|hardware-platform o|operating-system ${HELP}`,
    ),
    operands: ["text"],
  },
  pwd: { options: optionTable(`L|logical P|physical ${HELP}`), operands: ["text"] },
  whoami: { options: optionTable(HELP), operands: ["text"] },
  // Debian's which is a sh script with getopts: -a only, options stop at the first name.
  which: { options: optionTable("a"), rules: { stopAtOperand: true }, operands: ["text"] },
  tree: {
    options: optionTable(
      `a d l!ask f x q N Q p u g s h D F v t c U r S n C A J X i R!ask L= P= I= o=write H= T=
       charset= filelimit= timefmt= sort= infofile=read hintro=read houtro=read inodes device
       noreport dirsfirst filesfirst du si prune gitignore ignore-case matchdirs metafirst info
       fflinks nolinks fromfile fromtabfile gitfile=read noindent condense opt-toggle ${HELP}`,
    ),
    // tree takes an option's value from the next argument even inside a group (-oa x).
    rules: { valueFromNext: true },
    operands: ["read"],
  },
  curl: {
    options: optionTable(
      `o|output=write O|remote-name remote-name-all output-dir=write create-dirs
       T|upload-file=upload d|data= data-ascii= data-binary= data-raw= data-urlencode= json=
       F|form= form-string= K|config=ask b|cookie= c|cookie-jar=write D|dump-header=write
       trace=write trace-ascii=write stderr=write w|write-out= netrc-file=read n|netrc
       cacert=read capath=read E|cert=ask key=read H|header= url=
       A|user-agent= e|referer= u|user= x|proxy= X|request= L|location s|silent S|show-error
       f|fail fail-with-body i|include I|head v|verbose k|insecure m|max-time= connect-timeout=
       retry= compressed G|get 4|ipv4 6|ipv6 http1.1 http2 g|globoff max-redirs= z|time-cond=
       C|continue-at= r|range= Z|parallel q|disable ${HELP}`,
    ),
    operands: ["text"],
    refine: curlFiles,
  },
  wget: {
    options: optionTable(
      `O|output-document=write o|output-file=write a|append-output=write P|directory-prefix=write
       i|input-file=list post-file=upload body-file=upload e|execute=ask config=ask q|quiet
       v|verbose no-verbose c|continue N|timestamping S|server-response T|timeout= t|tries=
       U|user-agent= header= post-data= method= no-check-certificate spider
       r|recursive!ask m|mirror!ask ${HELP}`,
    ),
    operands: ["text"],
    refine: (parsed, judge) => {
      judge.risk("net", `${judge.program} talks to the network`);
      writableConfig(judge, ".wgetrc");
      if (!parsed.options.some((o) => o.spec.name === "O" || o.spec.name === "spider")) {
        judge.risk("writes", `${judge.program} saves what it downloads in the working directory`);
      }
    },
  },
};

/** Shells: any use runs code the policy cannot see. */
const SHELLS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "fish",
  "csh",
  "tcsh",
  "busybox",
]);
/** Interpreters: they run code from the command line, their input, or a script. */
const INTERPRETERS = new Set([
  "python",
  "python2",
  "python3",
  "node",
  "nodejs",
  "deno",
  "bun",
  "perl",
  "ruby",
  "php",
  "lua",
  "tclsh",
  "osascript",
  "pwsh",
  "powershell",
  "Rscript",
  "julia",
]);
/** Flags after which an interpreter takes code, not a file. */
const CODE_FLAGS = new Set(["-c", "-e", "-E", "--eval", "-p", "--print", "-r", "--command"]);

/** Programs that run code: using one always asks, and "always" covers only that command. */
const RUNS_CODE = new Map<string, string>([
  ...["awk", "gawk", "mawk", "nawk"].map((name): [string, string] => [
    name,
    "runs an awk program, which can start other programs",
  ]),
  ["sed", "runs a sed script, which can run commands (e) and write files (w)"],
  ["sudo", "runs a command as another user"],
  ["doas", "runs a command as another user"],
  ["su", "runs a command as another user"],
  ["pkexec", "runs a command as another user"],
  ["xargs", "runs commands built from its input"],
  ["parallel", "runs commands built from its input"],
  ["watch", "runs a command repeatedly"],
  ["ssh", "runs commands on another machine"],
  ["scp", "copies files over ssh, which can run programs"],
  ["sftp", "copies files over ssh, which can run programs"],
  ["rsync", "copies files and can run programs (-e, --rsync-path)"],
  ["chroot", "runs a command in another root"],
  ["tar", "can run programs (-I, --to-command, --checkpoint-action) and writes files"],
  ["zip", "can run programs (-TT) and writes files"],
  ["unzip", "writes the files it extracts"],
  ["less", "is a pager, which can run commands and editors"],
  ["more", "is a pager, which can run commands and editors"],
  ["most", "is a pager, which can run commands and editors"],
  ["man", "runs a pager and formatters (-P, -H, MANPAGER)"],
  ["vi", "is an editor, which can run commands"],
  ["vim", "is an editor, which can run commands"],
  ["nvim", "is an editor, which can run commands"],
  ["nano", "is an editor"],
  ["emacs", "is an editor, which can run commands"],
  ["ed", "is an editor, which can run commands"],
  ["make", "runs the commands in a Makefile"],
  ["npm", "runs package scripts"],
  ["npx", "runs packages"],
  ["pnpm", "runs package scripts"],
  ["yarn", "runs package scripts"],
  ["pip", "installs and runs packages"],
  ["pip3", "installs and runs packages"],
  ["cargo", "builds and runs code"],
  ["go", "builds and runs code"],
  ["docker", "runs containers"],
  ["script", "runs a shell"],
  ["expect", "runs a script"],
  ["screen", "runs a shell"],
  ["tmux", "runs a shell"],
  ["strace", "runs a program"],
  ["ltrace", "runs a program"],
  ["gdb", "runs a program"],
  ["nc", "opens network connections and can run programs"],
  ["ncat", "opens network connections and can run programs"],
  ["socat", "opens network connections and can run programs"],
  ["crontab", "schedules commands"],
  ["at", "schedules commands"],
  ["systemd-run", "runs a command"],
  ["setsid", "runs a command"],
  ["flock", "runs a command"],
  ["unshare", "runs a command"],
  ["nsenter", "runs a command"],
  ["eval", "runs a string as shell code"],
  ["source", "runs a file as shell code"],
  [".", "runs a file as shell code"],
  ["trap", "runs shell code when a signal comes"],
  ["enable", "loads shell builtins from shared libraries"],
  ["coproc", "runs a coprocess"],
  ["fc", "runs commands from the history"],
]);

/** Bash builtins that change the shell itself: what later commands mean, or other processes. */
const SHELL_STATE = new Set([
  "alias",
  "unalias",
  "bind",
  "caller",
  "compgen",
  "complete",
  "compopt",
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "unset",
  "set",
  "shopt",
  "hash",
  "read",
  "mapfile",
  "readarray",
  "let",
  "getopts",
  "pushd",
  "popd",
  "dirs",
  "history",
  "kill",
  "disown",
  "suspend",
  "ulimit",
  "umask",
  "logout",
  "bg",
  "fg",
  "jobs",
  "wait",
]);

/** Builtins whose arguments are only text. */
const TEXT_BUILTINS = new Set([
  ":",
  "true",
  "false",
  "echo",
  "exit",
  "return",
  "break",
  "continue",
  "shift",
  "times",
  "type",
  "help",
]);

/** Bash's builtins: found before PATH when run by name. */
export const BUILTINS = new Set([
  ...SHELL_STATE,
  ...TEXT_BUILTINS,
  "cd",
  "pwd",
  "printf",
  "test",
  "[",
  "command",
  "builtin",
  "exec",
  "eval",
  "source",
  ".",
  "trap",
  "enable",
  "fc",
]);

/** Environment variables a command may be given without asking: they change only formatting. */
const SAFE_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|COLUMNS|LINES|NO_COLOR|TERM)$/;

/**
 * Judges one program and its arguments (after expansion). `name` is how the
 * program is looked up: a name, or the base name of a path.
 */
export function judgeProgram(
  name: string,
  args: Field[],
  judge: CommandJudge,
): void {
  const table = TABLES[name];
  if (table) return judgeTable(table, args, judge);
  if (TEXT_BUILTINS.has(name)) return;
  if (SHELLS.has(name) || INTERPRETERS.has(name)) return judgeCode(name, args, judge);
  const code = RUNS_CODE.get(name);
  if (code) return judge.risk("exec", `${judge.program} ${code}`);
  if (SHELL_STATE.has(name)) {
    return judge.risk("shell-state", `${judge.program} changes the shell's state for what follows`);
  }
  switch (name) {
    case "find":
      return judgeFind(args, judge);
    case "git":
      return judgeGit(args, judge);
    case "cd":
      return judgeCd(args, judge);
    case "printf":
      return judgePrintf(args, judge);
    case "test":
    case "[":
      return judgeTest(args, judge);
    case "env":
      return judgeEnv(args, judge);
    case "nice":
    case "nohup":
    case "timeout":
    case "stdbuf":
    case "time":
      return judgeWrapper(name, args, judge);
    case "command":
    case "builtin":
    case "exec":
      return judgeShellWrapper(name, args, judge);
  }
  judgeUnknown(args, judge);
}

function judgeTable(table: TableProgram, args: Field[], judge: CommandJudge): void {
  const parsed = parseArgs(args, table.options, table.rules);
  reportParse(parsed, judge);
  for (const option of parsed.options) {
    applyEffect(option.spec.effect, option.value, option.written, judge, false);
  }
  table.refine?.(parsed, judge);
  const names = new Set(parsed.options.map((option) => option.spec.name));
  const pattern = table.patternUnless && !table.patternUnless.some((name) => names.has(name))
    ? parsed.operands[0]
    : undefined;
  const positional = table.operands.length > 1;
  for (let i = 0; i < parsed.operands.length; i++) {
    const operand = parsed.operands[i];
    if (positional && operand.glob) {
      judge.risk(
        "dynamic",
        `${judge.program}'s operand '${operand.text}' is a glob, which shifts its operands`,
      );
      continue;
    }
    const effect = operand === pattern
      ? "text"
      : table.operands[Math.min(i, table.operands.length - 1)];
    applyEffect(effect, operand, `'${operand.text}'`, judge, parsed.operandsInOptionPosition[i]);
  }
}

/** Reports options the table does not know and options that are globs. */
function reportParse(parsed: ParsedArgs, judge: CommandJudge): void {
  for (const option of parsed.unknown) {
    judge.risk(
      "unknown-option",
      `${judge.program} is given ${option}, an option the policy does not know`,
    );
  }
  for (const glob of parsed.globbed) {
    judge.risk(
      "dynamic",
      `${judge.program}'s option '${glob}' is a glob, which bash may turn into other options`,
    );
  }
}

/** What an option's value or an operand does, recorded as risks. */
function applyEffect(
  effect: Effect,
  value: Field | undefined,
  written: string,
  judge: CommandJudge,
  optionPosition: boolean,
): void {
  switch (effect) {
    case "text":
      if (value?.glob && optionPosition) judge.path(value, "read", true);
      return;
    case "read":
    case "write":
    case "upload":
      if (value) judge.path(value, effect, optionPosition);
      return;
    case "list":
      return judge.risk(
        "dynamic",
        `${judge.program} ${written} reads the names of files to use from a file`,
      );
    case "exec":
      return judge.risk("exec", `${judge.program} ${written} runs another program`);
    case "net":
      return judge.risk("net", `${judge.program} ${written} talks to the network`);
    case "ask":
      return judge.risk(
        "dynamic",
        `${judge.program} ${written} is not something the policy judges`,
      );
  }
}

/** A shell or an interpreter: it runs code, and the reason says from where. */
function judgeCode(name: string, args: Field[], judge: CommandJudge): void {
  const p = judge.program;
  const texts = args.map((arg) => arg.text);
  if (SHELLS.has(name)) {
    const inline = texts.some((t) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(t));
    const script = texts.find((t) => !t.startsWith("-") && !t.startsWith("+"));
    return judge.risk(
      "exec",
      inline
        ? `${p} -c runs a string as shell code`
        : script
        ? `${p} runs the shell script ${script}`
        : `${p} runs shell code it reads from its input`,
    );
  }
  const script = texts.find((t) => !t.startsWith("-"));
  judge.risk(
    "exec",
    texts.some((t) => CODE_FLAGS.has(t))
      ? `${p} runs code given on the command line`
      : script
      ? `${p} runs the script ${script}`
      : `${p} runs code it reads from its input`,
  );
}

/**
 * curl reads local files from `@file` values (-d @f, -F name=@f, -H @f, -b f)
 * and sends them, and reads and writes file:// URLs.
 */
function curlFiles(parsed: ParsedArgs, judge: CommandJudge): void {
  judge.risk("net", `${judge.program} talks to the network`);
  writableConfig(judge, ".curlrc");
  for (const { spec, value } of parsed.options) {
    if (!value) continue;
    const text = value.text;
    let file: string | undefined;
    if (["d", "data-ascii", "data-binary", "json", "H", "w"].includes(spec.name)) {
      file = text.startsWith("@") ? text.slice(1) : undefined;
    } else if (spec.name === "data-urlencode") {
      const at = text.indexOf("@");
      file = at >= 0 && !text.slice(0, at).includes("=") ? text.slice(at + 1) : undefined;
    } else if (spec.name === "F") {
      const match = /^[^=]*=[@<]([^;]*)/.exec(text);
      file = match?.[1];
    } else if (spec.name === "b") {
      file = text.includes("=") ? undefined : text;
    }
    if (file !== undefined && file !== "-") judge.path({ text: file }, "upload", false);
  }
  const urls = [
    ...parsed.operands,
    ...parsed.options.filter((o) => o.spec.name === "url")
      .map((o) => o.value!),
  ];
  for (const url of urls) {
    const local = /^\s*file:(\/\/[^/]*)?(\/.*)$/i.exec(url?.text ?? "");
    if (!local) continue;
    const path = { text: decodeURIComponentSafe(local[2]) };
    judge.path(path, "read", false);
    judge.path(path, "write", false);
  }
}

/** A config file in HOME that sets any option (output files, uploads) must not be the agent's to write. */
function writableConfig(judge: CommandJudge, name: string): void {
  if (!judge.home) return;
  const config = resolve(judge.home, name);
  if (judge.roots.some((root) => isInside(config, root))) {
    judge.risk(
      "dynamic",
      `${judge.program} reads ${config}, which is inside the allowed directories`,
    );
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `date +FORMAT` prints; any other operand sets the clock. */
function dateOperand(parsed: ParsedArgs, judge: CommandJudge): void {
  for (const operand of parsed.operands) {
    if (!operand.text.startsWith("+")) {
      judge.risk("dynamic", `${judge.program} '${operand.text}' would set the system clock`);
    }
  }
}

/**
 * A program without a table: its arguments are checked as paths where they
 * look like paths (also after `=` and glued to a short option), and an
 * approval of it is remembered for the exact command only.
 */
function judgeUnknown(args: Field[], judge: CommandJudge): void {
  judge.risk("opaque", `${judge.program} has no table in the policy; only its paths are checked`);
  for (const arg of args) {
    if (arg.glob) {
      judge.path(arg, "read", true);
      continue;
    }
    for (const candidate of pathCandidates(arg.text)) {
      judge.path({ text: candidate }, "read", false);
    }
  }
}

/**
 * The parts of an argument that may be paths, for a program without a table:
 * itself, each part after `=`, `:`, `,`, `@` or `;` (`--files=a:/etc/x`,
 * `host:/etc/x`), and what follows each letter of a short option (`-o/etc/x`).
 */
export function pathCandidates(text: string): string[] {
  const candidates = new Set<string>();
  const looksLikePath = (s: string) => s.includes("/") || s === ".." || s.startsWith("~");
  const consider = (s: string) => {
    if (looksLikePath(s)) candidates.add(s);
  };
  consider(text);
  // "//host/…" after a scheme is a URL, not a path.
  for (const part of text.split(/[=:,@;]/)) if (!part.startsWith("//")) consider(part);
  if (text.startsWith("-") && !text.startsWith("--")) {
    for (let i = 2; i < text.length; i++) consider(text.slice(i));
  }
  return [...candidates];
}

/** find: starting points, then an expression whose actions can run, delete and write. */
function judgeFind(args: Field[], judge: CommandJudge): void {
  const p = judge.program;
  let i = 0;
  // Leading options: -H -L -P -D debugopts -Olevel.
  for (; i < args.length; i++) {
    const text = args[i].text;
    if (text === "-H" || text === "-P" || /^-O[0-9]*$/.test(text)) continue;
    if (text === "-L") {
      judge.risk("dynamic", `${p} -L follows symbolic links, which can lead outside`);
      continue;
    }
    if (text === "-D") {
      i += 1;
      continue;
    }
    break;
  }
  let starts = 0;
  for (; i < args.length; i++) {
    const text = args[i].text;
    if (text.startsWith("-") || text === "(" || text === "!" || text === ")" || text === ",") break;
    starts += 1;
    judge.path(args[i], "read", true);
  }
  if (starts === 0) judge.path({ text: "." }, "read", false);
  for (; i < args.length; i++) {
    const arg = args[i];
    const text = arg.text;
    if (arg.glob) {
      judge.risk("dynamic", `${p}'s expression has the glob '${text}', which bash expands first`);
      continue;
    }
    const kind = FIND_PRIMARIES.get(text) ??
      (/^-newer[aBcmt][aBcm]$/.test(text) ? "read" : undefined) ??
      (/^-newer[aBcmt]t$/.test(text) ? "text" : undefined);
    if (kind === undefined) {
      judge.risk("unknown-option", `${p} is given ${text}, which the policy does not know`);
      continue;
    }
    const value = () => args[++i];
    const checkValue = (effect: "read" | "write") => {
      const v = value();
      if (v?.glob) judge.risk("dynamic", `${p} ${text} is given a glob`);
      else if (v) judge.path(v, effect, false);
    };
    switch (kind) {
      case "none":
        break;
      case "text":
        if (args[i + 1]?.glob) {
          judge.risk("dynamic", `${p} ${text} is given a glob, which bash expands first`);
        }
        value();
        break;
      case "read":
        checkValue("read");
        break;
      case "write":
        checkValue("write");
        if (text === "-fprintf") value();
        break;
      case "list":
        value();
        judge.risk("dynamic", `${p} ${text} reads the starting points from a file`);
        break;
      case "exec":
        judge.risk("exec", `${p} ${text} runs a command for each file`);
        while (i + 1 < args.length && args[i + 1].text !== ";" && args[i + 1].text !== "+") i += 1;
        i += 1;
        break;
      case "deletes":
        judge.risk("deletes", `${p} -delete deletes the files it finds`);
        break;
      case "ask":
        judge.risk("dynamic", `${p} ${text} follows symbolic links, which can lead outside`);
        break;
    }
  }
}

type FindKind = "none" | "text" | "read" | "write" | "list" | "exec" | "deletes" | "ask";

const FIND_PRIMARIES = new Map<string, FindKind>([
  ...[
    "(",
    ")",
    "!",
    ",",
    "-not",
    "-a",
    "-and",
    "-o",
    "-or",
    "-daystart",
    "-nowarn",
    "-warn",
    "-depth",
    "-d",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-mount",
    "-xdev",
    "-noleaf",
    "-empty",
    "-executable",
    "-false",
    "-true",
    "-nogroup",
    "-nouser",
    "-readable",
    "-writable",
    "-print",
    "-print0",
    "-ls",
    "-prune",
    "-quit",
    "-help",
    "--help",
    "-version",
    "--version",
  ].map((name): [string, FindKind] => [name, "none"]),
  ...[
    "-regextype",
    "-maxdepth",
    "-mindepth",
    "-amin",
    "-atime",
    "-cmin",
    "-ctime",
    "-mmin",
    "-mtime",
    "-used",
    "-context",
    "-fstype",
    "-gid",
    "-group",
    "-ilname",
    "-iname",
    "-inum",
    "-ipath",
    "-iregex",
    "-iwholename",
    "-links",
    "-lname",
    "-name",
    "-path",
    "-perm",
    "-regex",
    "-size",
    "-type",
    "-uid",
    "-user",
    "-wholename",
    "-xtype",
    "-printf",
  ].map((name): [string, FindKind] => [name, "text"]),
  ...["-anewer", "-cnewer", "-newer", "-samefile"].map((
    name,
  ): [string, FindKind] => [name, "read"]),
  ...["-fprint", "-fprint0", "-fls", "-fprintf"].map((name): [string, FindKind] => [name, "write"]),
  ...["-exec", "-execdir", "-ok", "-okdir"].map((name): [string, FindKind] => [name, "exec"]),
  ["-files0-from", "list"],
  ["-delete", "deletes"],
  ["-follow", "ask"],
]);

/** cd DIR: the directory must be inside the roots; later relative paths resolve from it. */
function judgeCd(args: Field[], judge: CommandJudge): void {
  const operands = args.filter((a, i) =>
    !(i === 0 && /^-[LPe@]+$/.test(a.text)) && a.text !== "--"
  );
  if (operands.length !== 1 || operands[0].text === "-" || operands[0].glob) {
    judge.risk("dynamic", `${judge.program} goes to a directory the policy cannot work out`);
    judge.changeDirectory(null);
    return;
  }
  judge.path(operands[0], "read", false);
  judge.changeDirectory(operands[0].text);
}

/** printf: text, except -v, which assigns a variable (and evaluates a subscript). */
function judgePrintf(args: Field[], judge: CommandJudge): void {
  if (args[0]?.text.startsWith("-v")) {
    judge.risk("shell-state", `${judge.program} -v sets a shell variable`);
  }
}

/** test / [: file tests read metadata; -v evaluates an array subscript, which can run commands. */
function judgeTest(args: Field[], judge: CommandJudge): void {
  for (const arg of args) {
    if (arg.text === "-v") {
      judge.risk("dynamic", `${judge.program} -v evaluates a variable's subscript`);
    }
    for (const candidate of pathCandidates(arg.text)) {
      judge.path({ text: candidate }, "read", false);
    }
  }
}

const ENV_OPTIONS = optionTable(
  `i|ignore-environment 0|null u|unset= C|chdir=ask S|split-string=exec v|debug block-signal?=
   default-signal?= ignore-signal?= list-signal-handling ${HELP}`,
);

/** env [OPTION]… [NAME=VALUE]… [COMMAND [ARG]…] */
function judgeEnv(args: Field[], judge: CommandJudge): void {
  const parsed = parseArgs(args, ENV_OPTIONS, { stopAtOperand: true });
  reportParse(parsed, judge);
  for (const option of parsed.options) {
    applyEffect(option.spec.effect, option.value, option.written, judge, false);
  }
  // "-" alone means -i; it is an operand to getopt.
  let rest = parsed.operands;
  if (rest[0]?.text === "-") rest = rest.slice(1);
  while (rest.length > 0 && /^[^=]+=/.test(rest[0].text)) {
    const name = rest[0].text.slice(0, rest[0].text.indexOf("="));
    if (!SAFE_ENV.test(name)) {
      judge.risk("env", `${judge.program} sets the environment variable ${name} for the command`);
    }
    rest = rest.slice(1);
  }
  if (rest.length > 0) judge.run(rest);
}

const WRAPPERS: Record<string, { options: OptionTable; leading?: number }> = {
  nice: { options: optionTable(`n|adjustment= ${HELP}`) },
  nohup: { options: optionTable(HELP) },
  timeout: {
    options: optionTable(`preserve-status foreground k|kill-after= s|signal= v|verbose ${HELP}`),
    leading: 1,
  },
  stdbuf: { options: optionTable(`i|input= o|output= e|error= ${HELP}`) },
  time: {
    options: optionTable(
      `f|format= p|portability o|output=write a|append v|verbose q|quiet ${HELP}`,
    ),
  },
};

/** nice, nohup, timeout, stdbuf, time: options, then (timeout) a duration, then the command they run. */
function judgeWrapper(name: string, args: Field[], judge: CommandJudge): void {
  const wrapper = WRAPPERS[name];
  const parsed = parseArgs(args, wrapper.options, {
    stopAtOperand: true,
    numeric: name === "nice",
  });
  reportParse(parsed, judge);
  for (const option of parsed.options) {
    applyEffect(option.spec.effect, option.value, option.written, judge, false);
  }
  const rest = parsed.operands.slice(wrapper.leading ?? 0);
  if (rest.length > 0) judge.run(rest);
}

/** command, builtin, exec: run the command that follows (command -v only describes it). */
function judgeShellWrapper(name: string, args: Field[], judge: CommandJudge): void {
  let i = 0;
  for (; i < args.length && args[i].text.startsWith("-") && args[i].text !== "--"; i++) {
    const text = args[i].text;
    if (name === "command" && /^-[pvV]+$/.test(text)) {
      if (/[vV]/.test(text)) return;
      continue;
    }
    if (name === "exec" && /^-[cl]+$/.test(text)) continue;
    if (name === "exec" && text === "-a") {
      i += 1;
      continue;
    }
    judge.risk(
      "unknown-option",
      `${judge.program} is given ${text}, which the policy does not know`,
    );
    return;
  }
  if (args[i]?.text === "--") i += 1;
  if (i < args.length) judge.run(args.slice(i));
}
