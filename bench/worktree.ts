/**
 * Another commit of hob, checked out beside this one for `deno task bench
 * --compare REV`: a temporary `git worktree`, removed when the comparison ends.
 * The working tree the bench runs from is never touched.
 */

const ROOT = new URL("..", import.meta.url).pathname;

/** A checked-out commit; `await using` removes it. */
export interface Worktree extends AsyncDisposable {
  /** Where it is checked out. */
  root: string;
  /** Its short commit, to label its figures. */
  label: string;
}

/**
 * Checks out `rev` (a commit, tag or branch) into a temporary worktree.
 *
 * @example
 * ```ts
 * await using base = await checkoutWorktree("HEAD~1");
 * console.log(base.root, base.label);
 * ```
 */
export async function checkoutWorktree(rev: string): Promise<Worktree> {
  const label = (await git(["rev-parse", "--short", `${rev}^{commit}`])).trim();
  const parent = await Deno.makeTempDir({ prefix: "hob-bench-compare-" });
  const root = `${parent}/hob`;
  await git(["worktree", "add", "--detach", "--quiet", root, label]);
  return {
    root,
    label,
    async [Symbol.asyncDispose]() {
      await git(["worktree", "remove", "--force", root]).catch(() => {});
      await Deno.remove(parent, { recursive: true }).catch(() => {});
      await git(["worktree", "prune"]).catch(() => {});
    },
  };
}

async function git(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command("git", { args, cwd: ROOT }).output();
  if (code !== 0) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(stderr).trim()}`);
  }
  return new TextDecoder().decode(stdout);
}
