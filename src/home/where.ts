/**
 * Where the hob home is, and the paths and token inside it: what a read-only
 * command needs before it asks a running `hob serve` (src/cli/running.ts).
 * Apart from home.ts, which creates a home from the embedded templates, and
 * without `node:path`: the first `node:` module a process loads costs ~13 ms
 * (Deno's Node layer starting), which such a command would pay for two string
 * joins. Windows paths, drive letters and all, still go through `node:path`.
 */

/** node:path on Windows, where paths are more than slashes; undefined elsewhere. */
const windowsPath = Deno.build.os === "windows" ? (await import("node:path")).win32 : undefined;

/** Raised when the home cannot be created or read. */
export class HomeError extends Error {
  override name = "HomeError";
  readonly home: string;
  constructor(message: string, home: string, options?: ErrorOptions) {
    super(message, options);
    this.home = home;
  }
}

/**
 * Where the home is: `--home`, else `HOB_HOME`, else `~/.hob`, made absolute.
 *
 * @example
 * ```ts
 * resolveHome(undefined, { HOME: "/home/me" }); // "/home/me/.hob"
 * ```
 */
export function resolveHome(
  flag: string | undefined,
  env: Record<string, string | undefined> = Deno.env.toObject(),
): string {
  if (flag) return absolute(flag);
  if (env.HOB_HOME) return absolute(env.HOB_HOME);
  const userHome = env.HOME ?? env.USERPROFILE;
  if (!userHome) {
    throw new HomeError(
      "Cannot find your home directory (HOME is not set) — pass --home DIR or set HOB_HOME",
      "",
    );
  }
  return inHome(absolute(userHome), ".hob");
}

/**
 * The path of `name` (a file or directory the home holds, like `token` or
 * `identity/SOUL.md`) in the absolute, normalised `home`.
 *
 * @example
 * ```ts
 * inHome("/home/me/.hob", "hob.db"); // "/home/me/.hob/hob.db"
 * ```
 */
export function inHome(home: string, name: string): string {
  if (windowsPath) return windowsPath.join(home, name);
  return home.endsWith("/") ? `${home}${name}` : `${home}/${name}`;
}

/** The path of the API token file. */
export function tokenPath(home: string): string {
  return inHome(home, "token");
}

/**
 * Reads the API token.
 *
 * @example
 * ```ts
 * const token = await readToken(home);
 * fetch(url, { headers: { authorization: `Bearer ${token}` } });
 * ```
 */
export async function readToken(home: string): Promise<string> {
  try {
    const token = (await Deno.readTextFile(tokenPath(home))).trim();
    if (token.length < 16) {
      throw new Error("the token file is shorter than 16 characters");
    }
    return token;
  } catch (error) {
    throw new HomeError(
      `Cannot read the API token ${tokenPath(home)}: ${
        (error as Error).message
      } — delete it and run 'hob init' to make a new one`,
      home,
      { cause: error },
    );
  }
}

/**
 * `path` made absolute against the working directory and normalised, as
 * node:path's `resolve` does: `.` and empty parts dropped, `..` taken back.
 *
 * @example
 * ```ts
 * absolute("/srv//hob/../.hob/"); // "/srv/.hob"
 * ```
 */
export function absolute(path: string): string {
  if (windowsPath) return windowsPath.resolve(path);
  const parts: string[] = [];
  for (const part of (path.startsWith("/") ? path : `${Deno.cwd()}/${path}`).split("/")) {
    if (part === "..") parts.pop();
    else if (part !== "" && part !== ".") parts.push(part);
  }
  return `/${parts.join("/")}`;
}
