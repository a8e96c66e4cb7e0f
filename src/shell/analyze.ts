/**
 * Walks a parsed command line the way bash would run it, and judges the
 * expanded argv of every simple command: in pipelines, lists, subshells,
 * groups, `if`/`while`/`for`/`case`, functions, `[[ ]]`, `(( ))`, `time` and
 * `coproc`, command substitutions included. Variables set to a literal
 * earlier on the line are followed; a variable that may have changed (in a
 * branch, a loop, a subshell) becomes unknown, and unknown means ask.
 * The walk spends from a budget (budget.ts): a line that needs more work
 * than it allows stops the analysis with BudgetExceeded.
 */

import { basename, isAbsolute, resolve } from "node:path";
import { evaluateArithmetic } from "./arith.ts";
import { Budget, type JudgeLimits } from "./budget.ts";
import { expandWord, type Field, Unknowable } from "./expand.ts";
import type { Finding, Risk } from "./findings.ts";
import { loadShell, type Node, type Shell } from "./parse.ts";
import { canonicalRoots, judgeGlob, judgePath, type PathScope } from "./paths.ts";
import type { CommandJudge } from "./command_judge.ts";
import { BUILTINS, judgeProgram } from "./programs.ts";
import { isInside } from "../sandbox/paths.ts";

/** What the analysis needs to know about where the line runs. */
export interface AnalyzeOptions {
  /** The allowed directories, the workspace first. */
  roots: string[];
  /** Where the line runs; the first root by default. */
  cwd?: string;
  /** The HOME the line runs with (for `~`); unknown when absent. */
  home?: string;
  /** The PATH the line runs with: a directory in it the agent can write makes every name suspect. */
  path?: string;
  /** Limits on the work of judging the line; JUDGE_LIMITS by default. */
  limits?: Partial<JudgeLimits>;
}

/** What a command line would do. */
export interface Analysis {
  /** The argv of every simple command, `<expansion>` where a word is not known. */
  commands: string[][];
  /** Every program run: a name, or the path it was run by. */
  programs: string[];
  findings: Finding[];
}

/** The shell's state as the line runs: variables and the working directory (null: unknown). */
interface State {
  vars: Map<string, string | null>;
  cwd: string | null;
}

/** Where findings about the shell itself (redirections, `[[ ]]`, syntax) are attributed. */
const SHELL = "(shell)";
/** Node types the walker knows; anything else in the tree makes the policy ask. */
const KNOWN_NODES = new Set([
  "File",
  "Stmt",
  "Comment",
  "Redirect",
  "CallExpr",
  "Assign",
  "Word",
  "Lit",
  "SglQuoted",
  "DblQuoted",
  "ParamExp",
  "ArithmExp",
  "CmdSubst",
  "ProcSubst",
  "BinaryCmd",
  "Subshell",
  "Block",
  "IfClause",
  "WhileClause",
  "ForClause",
  "WordIter",
  "CStyleLoop",
  "CaseClause",
  "CaseItem",
  "FuncDecl",
  "ArithmCmd",
  "BinaryArithm",
  "UnaryArithm",
  "ParenArithm",
  "TestClause",
  "BinaryTest",
  "UnaryTest",
  "ParenTest",
  "DeclClause",
  "LetClause",
  "TimeClause",
  "CoprocClause",
  "ArrayExpr",
  "ArrayElem",
  "Slice",
  "Replace",
  "Expansion",
  "ExtGlob",
]);
/** Environment variables a command may be given without asking: they change only formatting. */
const SAFE_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|COLUMNS|LINES|NO_COLOR|TERM)$/;
/** Variables the policy follows: lower-case names, which bash gives no meaning of its own. */
const TRACKED_VAR = /^[a-z_][a-z0-9_]*$/;
const SPECIAL_LOWERCASE = new Set(["histchars", "auto_resume"]);
const FILE_TESTS = new Set([
  "-e",
  "-a",
  "-f",
  "-d",
  "-c",
  "-b",
  "-p",
  "-S",
  "-L",
  "-h",
  "-k",
  "-g",
  "-u",
  "-G",
  "-O",
  "-N",
  "-r",
  "-w",
  "-x",
  "-s",
]);

/**
 * Parses and analyses a command line. Throws ShellSyntaxError when it is not
 * bash, and BudgetExceeded when judging it needs more than its limits.
 *
 * @example
 * ```ts
 * const { programs, findings } = analyze("cat \\/etc/passwd", { roots: ["/work"] });
 * // programs: ["cat"]; findings: [{ program: "cat", risk: "reads-outside", … }]
 * ```
 */
export async function analyze(command: string, options: AnalyzeOptions): Promise<Analysis> {
  const shell = await loadShell();
  // The clock starts once the parser is loaded: loading it is not the line's doing.
  const budget = new Budget(options.limits);
  const file = shell.parse(command, () => budget.tick());
  budget.deadline();
  const roots = canonicalRoots(options.roots);
  const analyzer = new Analyzer(shell, roots, options, budget);
  const cwd = options.cwd ?? options.roots[0] ?? "/";
  analyzer.statements(file.Stmts, { vars: new Map(), cwd: realOrSelf(cwd) });
  analyzer.safetyNet(file);
  return analyzer.result();
}

class Analyzer {
  readonly #shell: Shell;
  readonly #roots: string[];
  readonly #home?: string;
  readonly #untrustedPath?: string;
  readonly #budget: Budget;
  readonly #findings: Finding[] = [];
  /** The findings already made, by program, risk and reason: each is kept once. */
  readonly #found = new Set<string>();
  readonly #commands: string[][] = [];
  readonly #programs = new Set<string>();
  /** Files the line writes (real paths), with the simple command that writes each. */
  readonly #written: { path: string; command: number }[] = [];
  /** Simple commands (by number) whose arguments include a glob. */
  readonly #globbing = new Set<number>();
  /** Files and directories git reads its configuration from, as its judge found them. */
  readonly #gitFiles: string[] = [];
  #runsGit = false;
  #commandNumber = 0;

  constructor(shell: Shell, roots: string[], options: AnalyzeOptions, budget: Budget) {
    this.#shell = shell;
    this.#budget = budget;
    this.#roots = roots;
    this.#home = options.home;
    this.#untrustedPath = (options.path ?? "").split(":").find((dir) =>
      options.path !== undefined &&
      (dir === "" || !isAbsolute(dir) || roots.some((root) => isInside(resolve(dir), root)))
    );
  }

  result(): Analysis {
    // A file written by one command exists before the next one runs: the checks made
    // before the line ran must not depend on it.
    if (this.#runsGit) {
      const gitFile = this.#written.find(({ path }) =>
        path.split("/").some((part) => part.toLowerCase().startsWith(".git")) ||
        this.#gitFiles.some((file) => isInside(path, file))
      );
      if (gitFile) {
        this.#add(
          "git",
          "dynamic",
          `the line writes ${gitFile.path} and runs git, whose configuration was checked before`,
        );
      }
    }
    const globbing = this.#globbing;
    const dashed = this.#written.find(({ path, command }) =>
      basename(path).startsWith("-") &&
      (globbing.size > 1 || (globbing.size === 1 && !globbing.has(command)))
    );
    if (dashed) {
      this.#add(
        SHELL,
        "dynamic",
        `the line writes ${dashed.path}, which a later glob would pass as an option`,
      );
    }
    return {
      commands: this.#commands,
      programs: [...this.#programs].sort(),
      findings: this.#findings,
    };
  }

  /** Anything the walk did not model still makes the policy ask. */
  safetyNet(file: Node): void {
    if (file.incomplete) {
      this.#add(SHELL, "syntax", "the policy could not read every part of the line");
    }
    let substitutions = false;
    this.#shell.walk(file, (node) => {
      this.#budget.tick();
      const type = this.#shell.type(node);
      if (!KNOWN_NODES.has(type)) {
        this.#add(SHELL, "syntax", `uses ${type}, shell syntax the policy does not model`);
      }
      if (type === "CmdSubst" || type === "ProcSubst") substitutions = true;
      return true;
    });
    if (substitutions && !this.#findings.some((f) => f.risk === "dynamic")) {
      this.#add(SHELL, "dynamic", "runs a command substitution whose output is not known");
    }
  }

  #add(program: string, risk: Risk, reason: string): void {
    const key = JSON.stringify([program, risk, reason]);
    if (this.#found.has(key)) return;
    this.#found.add(key);
    this.#findings.push({ program, risk, reason });
  }

  statements(list: Node[] | undefined, state: State): void {
    for (const statement of list ?? []) {
      this.#budget.tick();
      this.#statement(statement, state);
    }
  }

  #statement(statement: Node, state: State): void {
    let target = state;
    if (statement.Background || statement.Coprocess) {
      this.#add(
        SHELL,
        "syntax",
        "runs a command deferred, while nobody waits, beyond the time limit",
      );
      target = clone(state);
    }
    const command = statement.Cmd;
    if (command && this.#shell.type(command) === "CallExpr") {
      return this.#call(command, statement.Redirs ?? [], target);
    }
    // A compound command's redirections happen before anything in it runs.
    this.#commandNumber += 1;
    for (const redirect of statement.Redirs ?? []) this.#redirect(redirect, target, SHELL);
    if (command) this.#compound(command, target);
  }

  #compound(node: Node, state: State): void {
    const type = this.#shell.type(node);
    switch (type) {
      case "BinaryCmd":
        return this.#binary(node, state);
      case "Subshell":
        return this.statements(node.Stmts, clone(state));
      case "Block":
        return this.statements(node.Stmts, state);
      case "IfClause":
        return this.#if(node, state);
      case "WhileClause":
        forget(state, this.#assignedNames(node));
        this.statements(node.Cond, state);
        return this.#branches(state, [(branch) => this.statements(node.Do, branch)]);
      case "ForClause":
        return this.#for(node, state);
      case "CaseClause":
        return this.#case(node, state);
      case "FuncDecl":
        this.#add(SHELL, "shell-state", `defines the shell function ${node.Name?.Value ?? ""}`);
        // A function runs later, with the variables and directory of its call.
        return this.#statement(node.Body, { vars: new Map(), cwd: null });
      case "ArithmCmd":
        this.#substitutions(node, state);
        return this.#arithmetic(node.X);
      case "TestClause":
        this.#substitutions(node, state);
        return this.#test(node.X, state);
      case "DeclClause":
        return this.#declaration(node, state);
      case "LetClause":
        this.#substitutions(node, state);
        this.#add(SHELL, "shell-state", "let assigns variables by arithmetic");
        forget(state, this.#assignedNames(node));
        return;
      case "TimeClause":
        if (node.Stmt) this.#statement(node.Stmt, state);
        return;
      case "CoprocClause":
        this.#add(SHELL, "syntax", "runs a coprocess");
        if (node.Stmt) this.#statement(node.Stmt, clone(state));
        return;
      default:
        this.#add(SHELL, "syntax", `uses ${type}, shell syntax the policy does not model`);
    }
  }

  #binary(node: Node, state: State): void {
    const op = this.#shell.tokens.binaryCmd.get(node.Op);
    if (op === "&&" || op === "||") {
      this.#statement(node.X, state);
      return this.#branches(state, [(branch) => this.#statement(node.Y, branch)]);
    }
    if (op === "|" || op === "|&") {
      // Every part of a pipeline runs in a subshell: nothing it sets survives.
      this.#statement(node.X, clone(state));
      this.#statement(node.Y, clone(state));
      return;
    }
    this.#add(SHELL, "syntax", "uses a list operator the policy does not know");
  }

  #if(node: Node, state: State): void {
    this.statements(node.Cond, state);
    const branches: ((branch: State) => void)[] = [
      (branch) => this.statements(node.Then, branch),
    ];
    if (node.Else) branches.push((branch) => this.#if(node.Else, branch));
    this.#branches(state, branches);
  }

  #for(node: Node, state: State): void {
    const loop = node.Loop;
    if (this.#shell.type(loop) === "WordIter") {
      for (const item of loop.Items ?? []) {
        this.#substitutions(item, state);
        const fields = this.#expand(item, state, "argv");
        for (const field of fields ?? []) if (field.glob) this.#globbing.add(this.#commandNumber);
      }
    } else {
      this.#substitutions(loop, state);
      for (const part of [loop.Init, loop.Cond, loop.Post]) if (part) this.#arithmetic(part);
    }
    forget(state, this.#assignedNames(node));
    this.#branches(state, [(branch) => this.statements(node.Do, branch)]);
  }

  #case(node: Node, state: State): void {
    this.#substitutions(node.Word, state);
    // `;&` falls through into the next branch: what any branch sets is unknown in all of them.
    forget(state, this.#assignedNames(node));
    const branches = (node.Items ?? []).map((item: Node) => (branch: State) => {
      for (const pattern of item.Patterns ?? []) this.#substitutions(pattern, branch);
      this.statements(item.Stmts, branch);
    });
    this.#branches(state, branches);
  }

  /** Runs each branch on a copy of the state; what any branch changed becomes unknown after. */
  #branches(state: State, branches: ((branch: State) => void)[]): void {
    const ends: State[] = [];
    for (const run of branches) {
      this.#budget.tick();
      const branch = clone(state);
      run(branch);
      ends.push(branch);
    }
    for (const end of ends) {
      for (const [name, value] of end.vars) {
        if (state.vars.get(name) !== value) state.vars.set(name, null);
      }
      if (end.cwd !== state.cwd) state.cwd = null;
    }
  }

  /** Every variable name a construct may assign, for loops and fall-through. */
  #assignedNames(node: Node): string[] {
    const names: string[] = [];
    this.#shell.walk(node, (child) => {
      this.#budget.tick();
      const type = this.#shell.type(child);
      if (type === "Assign" && child.Name) names.push(child.Name.Value);
      if (type === "WordIter" && child.Name) names.push(child.Name.Value);
      if (type === "Redirect" && child.N) names.push(String(child.N.Value).replace(/[{}]/g, ""));
      return true;
    });
    return names;
  }

  #declaration(node: Node, state: State): void {
    this.#substitutions(node, state);
    const variant = node.Variant?.Value ?? "declare";
    this.#add(SHELL, "shell-state", `${variant} changes shell variables`);
    for (const assign of node.Args ?? []) {
      if (assign.Name) state.vars.set(assign.Name.Value, null);
    }
  }

  /** Judges the commands inside `$(…)`, backticks and `<(…)` in a node: they run in subshells. */
  #substitutions(node: Node, state: State): void {
    if (!node) return;
    const found: Node[] = [];
    this.#shell.walk(node, (child) => {
      this.#budget.tick();
      const type = this.#shell.type(child);
      if (type === "CmdSubst" || type === "ProcSubst") {
        found.push(child);
        return false;
      }
      return true;
    });
    for (const substitution of found) {
      const kind = this.#shell.type(substitution) === "CmdSubst"
        ? "a command substitution ($(…) or backticks), whose output becomes part of the line"
        : "a process substitution <(…) or >(…)";
      this.#add(SHELL, "dynamic", `runs ${kind}`);
      this.statements(substitution.Stmts, clone(state));
    }
  }

  /** Arithmetic that is not pure constants asks: bash evaluates variables' values as arithmetic too. */
  #arithmetic(node: Node): void {
    try {
      evaluateArithmetic(this.#shell, node);
    } catch (error) {
      if (!(error instanceof Unknowable)) throw error;
      this.#add(SHELL, "dynamic", error.message);
    }
  }

  #expand(word: Node, state: State, mode: "argv" | "assign" | "plain"): Field[] | undefined {
    return this.#quietExpand(word, state, mode, (why) => this.#add(SHELL, "dynamic", why));
  }

  #call(node: Node, redirects: Node[], state: State): void {
    this.#substitutions(node, state);
    for (const redirect of redirects) this.#substitutions(redirect, state);
    // Numbered after its substitutions, which run first.
    this.#commandNumber += 1;
    const args: Node[] = node.Args ?? [];
    if (args.length === 0) {
      for (const assign of node.Assigns ?? []) this.#assign(assign, state);
      for (const redirect of redirects) this.#redirect(redirect, state, SHELL);
      return;
    }
    const argv: Field[] = [];
    let known = true;
    for (const word of args) {
      const fields = this.#expand(word, state, "argv");
      if (fields) argv.push(...fields);
      else {
        argv.push({ text: "<expansion>" });
        if (argv.length === 1) known = false;
      }
    }
    this.#commands.push(argv.map((field) => field.text));
    const program = known && argv[0] ? argv[0].text : "<expansion>";
    for (const assign of node.Assigns ?? []) this.#prefixAssign(assign, state, program);
    for (const redirect of redirects) this.#redirect(redirect, state, program);
    if (!known) {
      this.#add(SHELL, "dynamic", "runs a program named by an expansion");
      return;
    }
    if (argv.length > 0) this.#run(argv, state);
  }

  /** `name=value` on its own: the shell variable is set for what follows. */
  #assign(assign: Node, state: State): void {
    const name: string = assign.Name?.Value ?? "";
    if (assign.Index || (assign.Array?.Elems ?? []).some((e: Node) => e.Index)) {
      this.#add(SHELL, "dynamic", `assigns an element of ${name}, whose subscript bash evaluates`);
    }
    if (!TRACKED_VAR.test(name) || SPECIAL_LOWERCASE.has(name)) {
      this.#add(
        SHELL,
        "shell-state",
        `sets the shell variable ${name}, which changes what later commands do`,
      );
      state.vars.set(name, null);
      return;
    }
    if (assign.Index || assign.Array || assign.Append) {
      state.vars.set(name, null);
      return;
    }
    const fields = assign.Value ? this.#quietExpand(assign.Value, state, "assign") : [{ text: "" }];
    state.vars.set(name, fields ? fields[0]?.text ?? "" : null);
  }

  /** `NAME=value cmd`: an environment variable for that command only. */
  #prefixAssign(assign: Node, state: State, program: string): void {
    const name: string = assign.Name?.Value ?? "";
    if (!SAFE_ENV.test(name) || assign.Index || assign.Array) {
      this.#add(program, "env", `sets the environment variable ${name} for ${program}`);
    }
    if (assign.Value) this.#quietExpand(assign.Value, state, "assign");
    // Before a special builtin the assignment stays: forget the old value to be safe.
    state.vars.set(name, null);
  }

  /**
   * Expands a word; undefined when its value cannot be known in advance. Without
   * `unknown`, that is not a finding yet (a value that matters only if used later).
   */
  #quietExpand(
    word: Node,
    state: State,
    mode: "argv" | "assign" | "plain",
    unknown?: (why: string) => void,
  ): Field[] | undefined {
    try {
      return expandWord(word, {
        shell: this.#shell,
        vars: state.vars,
        home: this.#home,
        cwd: state.cwd,
        budget: this.#budget,
      }, mode);
    } catch (error) {
      if (!(error instanceof Unknowable)) throw error;
      unknown?.(error.message);
      return undefined;
    }
  }

  #redirect(redirect: Node, state: State, program: string): void {
    const op = this.#shell.tokens.redirect.get(redirect.Op);
    const fd: string | undefined = redirect.N?.Value;
    if (fd !== undefined && !/^[0-9]+$/.test(fd)) {
      if (/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(fd)) state.vars.set(fd.slice(1, -1), null);
      else {this.#add(
          SHELL,
          "syntax",
          `redirects the descriptor '${fd}', which the policy does not know`,
        );}
    }
    const judge = this.#judge(program, state);
    switch (op) {
      case ">":
      case ">>":
      case ">|":
      case "&>":
      case "&>>":
      case "<>":
        return this.#redirectTarget(redirect.Word, state, judge, "write");
      case "<":
        return this.#redirectTarget(redirect.Word, state, judge, "read");
      case ">&":
      case "<&": {
        const fields = this.#expand(redirect.Word, state, "argv");
        if (fields?.length === 1 && /^([0-9]+-?|-)$/.test(fields[0].text)) return;
        return this.#redirectTarget(
          redirect.Word,
          state,
          judge,
          op === ">&" ? "write" : "read",
        );
      }
      case "<<":
      case "<<-":
        return this.#hereDocument(redirect.Hdoc, state);
      case "<<<":
        this.#expand(redirect.Word, state, "plain");
        return;
      default:
        this.#add(SHELL, "syntax", "uses a redirection operator the policy does not know");
    }
  }

  #redirectTarget(
    word: Node,
    state: State,
    judge: CommandJudge,
    access: "read" | "write",
  ): void {
    const fields = this.#expand(word, state, "argv");
    if (!fields) return;
    if (fields.length !== 1 || fields[0].glob) {
      this.#add(SHELL, "dynamic", "redirects to a word that bash may expand to other files");
      return;
    }
    judge.path(fields[0], access, false);
  }

  /** A here-document is data, but an unquoted one expands `$…` inside: that must be known. */
  #hereDocument(body: Node, state: State): void {
    if (!body) return;
    for (const part of body.Parts ?? []) {
      if (this.#shell.type(part) === "Lit") continue;
      this.#expand({ Parts: [part] }, state, "plain");
    }
  }

  #test(node: Node, state: State): void {
    const shell = this.#shell;
    const type = shell.type(node);
    if (type === "ParenTest") return this.#test(node.X, state);
    if (type === "Word") {
      this.#expand(node, state, "plain");
      return;
    }
    const judge = this.#judge(SHELL, state);
    if (type === "UnaryTest") {
      const op = shell.tokens.testUnary.get(node.Op);
      if (op === "!") return this.#test(node.X, state);
      const value = this.#expand(node.X, state, "plain")?.[0];
      if (!value) return;
      if (op && FILE_TESTS.has(op)) return judge.path(value, "read", false);
      if ((op === "-v" || op === "-R") && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value.text)) {
        this.#add(SHELL, "dynamic", `[[ ${op} ]] evaluates the subscript in '${value.text}'`);
      }
      if (!op) this.#add(SHELL, "syntax", "uses a [[ ]] test the policy does not know");
      return;
    }
    if (type === "BinaryTest") {
      const op = shell.tokens.testBinary.get(node.Op);
      if (op === "&&" || op === "||") {
        this.#test(node.X, state);
        return this.#test(node.Y, state);
      }
      const left = this.#expand(node.X, state, "plain")?.[0];
      const right = this.#expand(node.Y, state, "plain")?.[0];
      if (!left || !right) return;
      if (op === "-nt" || op === "-ot" || op === "-ef") {
        judge.path(left, "read", false);
        judge.path(right, "read", false);
      } else if (op && /^-(eq|ne|lt|le|gt|ge)$/.test(op)) {
        for (const side of [left, right]) {
          if (!/^[+-]?[0-9]+$/.test(side.text)) {
            this.#add(SHELL, "dynamic", `[[ ${op} ]] evaluates '${side.text}' as arithmetic`);
          }
        }
      } else if (!op) {
        this.#add(SHELL, "syntax", "uses a [[ ]] operator the policy does not know");
      }
      return;
    }
    this.#add(SHELL, "syntax", `uses ${type} in [[ ]], which the policy does not model`);
  }

  /** Judges one program and its expanded arguments. */
  #run(argv: Field[], state: State): void {
    // Wrappers (env, nice, timeout, …) come back here once for each program they run.
    this.#budget.tick();
    const first = argv[0];
    if (first.glob) {
      this.#add(SHELL, "dynamic", `the program's name '${first.text}' is a glob`);
      return;
    }
    const name = first.text;
    if (name === "") return;
    const byPath = name.includes("/");
    const program = byPath && isAbsolute(name) ? resolve(name) : name;
    this.#programs.add(program);
    if (byPath) {
      this.#add(
        program,
        "opaque",
        `${name} is run by its path, so an approval covers only this command`,
      );
      const where = judgePath(name, "read", this.#scope(state));
      if (where.kind !== "outside" && where.kind !== "device") {
        this.#add(
          program,
          "exec",
          `${name} is a program inside the allowed directories, which the agent can write`,
        );
      }
    } else if (this.#untrustedPath !== undefined && !BUILTINS.has(name)) {
      this.#add(
        program,
        "dynamic",
        `PATH has '${this.#untrustedPath || ""}' (${
          this.#untrustedPath ? "a directory the agent can write" : "the working directory"
        }), so '${name}' may not be the real ${name}`,
      );
    }
    const key = byPath ? basename(name) : name;
    if (key === "git") this.#runsGit = true;
    judgeProgram(key, argv.slice(1), this.#judge(program, state));
  }

  #scope(state: State): PathScope {
    return { roots: this.#roots, cwd: state.cwd, budget: this.#budget };
  }

  /** What program judges may do, bound to one program and the current state. */
  #judge(program: string, state: State): CommandJudge {
    return {
      program,
      get cwd() {
        return state.cwd;
      },
      roots: this.#roots,
      home: this.#home,
      budget: this.#budget,
      risk: (risk, reason) => this.#add(program, risk, reason),
      noteGitFiles: (paths) => this.#gitFiles.push(...paths),
      path: (field, effect, optionPosition = false) =>
        this.#path(program, field, effect, optionPosition, state),
      run: (argv) => this.#run(argv, state),
      changeDirectory: (path) => {
        if (path === null || state.cwd === null) {
          state.cwd = null;
          return;
        }
        const where = judgePath(path, "read", this.#scope(state));
        state.cwd = where.kind === "inside" || where.kind === "outside" ? where.path : null;
      },
    };
  }

  #path(
    program: string,
    field: Field,
    effect: "read" | "write" | "upload",
    optionPosition: boolean,
    state: State,
  ): void {
    const scope = this.#scope(state);
    const outsideRisk: Risk = effect === "write" ? "writes-outside" : "reads-outside";
    const verb = effect === "write" ? "writes" : effect === "upload" ? "sends" : "reads";
    if (field.glob) {
      this.#globbing.add(this.#commandNumber);
      if (effect === "write") {
        this.#add(program, "dynamic", `${program} writes to the glob '${field.text}'`);
        return;
      }
      const verdict = judgeGlob(field.glob, scope, optionPosition);
      if (verdict.unknown) this.#add(program, "dynamic", verdict.unknown);
      if (verdict.dashed) this.#add(program, "dynamic", verdict.dashed);
      if (verdict.outside.length > 0) {
        this.#add(
          program,
          outsideRisk,
          `${program} ${verb} '${field.text}', which matches outside the allowed directories`,
        );
      }
      if (effect === "upload") {
        this.#add(program, "uploads", `${program} sends the files matching '${field.text}'`);
      }
      return;
    }
    const verdict = judgePath(field.text, effect === "write" ? "write" : "read", scope);
    switch (verdict.kind) {
      case "inside":
        if (effect === "write") {
          this.#written.push({ path: verdict.path, command: this.#commandNumber });
          this.#add(program, "writes", `${program} writes '${field.text}'`);
        }
        break;
      case "outside":
        this.#add(
          program,
          outsideRisk,
          `${program} ${verb} '${field.text}', which is outside the allowed directories`,
        );
        break;
      case "network":
        // bash opens /dev/tcp itself: it is no listed network program, so it always asks.
        this.#add(program, "net", `${program} opens the network connection ${verdict.path}`);
        this.#add(
          program,
          effect === "read" ? "reads-outside" : "uploads",
          `bash connects to ${verdict.path} for ${program}`,
        );
        break;
      case "unknown":
        this.#add(program, "dynamic", verdict.reason);
        break;
      case "device":
        break;
    }
    if (effect === "upload") {
      this.#add(program, "uploads", `${program} sends the file '${field.text}'`);
    }
  }
}

function clone(state: State): State {
  return { vars: new Map(state.vars), cwd: state.cwd };
}

/** Makes variables unknown: their value depends on how often or whether code ran. */
function forget(state: State, names: string[]): void {
  for (const name of names) state.vars.set(name, null);
}

function realOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return resolve(path);
  }
}
