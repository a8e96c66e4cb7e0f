/**
 * Real mail servers from Debian's packages for the email channel's tests:
 * OpenSMTPD takes mail over SMTP for the domain `test.local` and hands it over
 * LMTP to Dovecot, which keeps each user's Maildir and serves it over IMAP —
 * all on 127.0.0.1, on free ports, in a temporary directory, stopped on
 * dispose. `.ci/run` installs them (`dovecot-imapd dovecot-lmtpd opensmtpd`);
 * where they are missing, or hob's tests do not run as root (both servers
 * drop privileges from root), `startMailServers` says why and returns null.
 */

import { ImapFlow } from "imapflow";
import nodemailer from "nodemailer";
import { join } from "node:path";

/** The mail users, by address, with their passwords. */
export const MAIL_USERS = {
  "hob@test.local": "hob-pass",
  "owner@test.local": "owner-pass",
  "friend@test.local": "friend-pass",
  "stranger@test.local": "stranger-pass",
} as const;

/** A mail as a user's mailbox holds it. */
export interface StoredMail {
  uid: number;
  from: string;
  subject: string;
  /** The raw headers and body. */
  source: string;
}

/** The running servers. */
export interface MailServers extends AsyncDisposable {
  imapPort: number;
  smtpPort: number;
  /**
   * Sends a mail through OpenSMTPD (as any sender: the test is the outside
   * world); `raw` sends a source exactly as a mail client wrote it.
   */
  send(
    mail: {
      from: string;
      to: string;
      subject: string;
      text: string;
      messageId?: string;
      inReplyTo?: string;
      references?: string;
      headers?: Record<string, string>;
      attachments?: { filename: string; content: string }[];
    } | { from: string; to: string; raw: string },
  ): Promise<void>;
  /** Stops Dovecot (IMAP goes away, connections die); `startImap` brings it back on the same port. */
  stopImap(): Promise<void>;
  startImap(): Promise<void>;
  /** The mail in a user's INBOX, oldest first. */
  inbox(user: keyof typeof MAIL_USERS): Promise<StoredMail[]>;
  /** Resolves once `check` holds for the user's inbox (checked every `everyMs`, 100 by default). */
  until(
    user: keyof typeof MAIL_USERS,
    check: (mail: StoredMail[]) => boolean,
    what: string,
    everyMs?: number,
  ): Promise<StoredMail[]>;
}

/**
 * hob.yaml's `channels.email` for hob@test.local on these servers, answering
 * owner@test.local; `lines` are more keys of `channels.email` (indented).
 */
export function emailChannelYaml(
  mail: Pick<MailServers, "imapPort" | "smtpPort">,
  lines = "",
): string {
  const password = MAIL_USERS["hob@test.local"];
  return `channels:
  email:
    address: hob@test.local
    imap: { host: 127.0.0.1, port: ${mail.imapPort}, secure: false, password: ${password} }
    smtp: { host: 127.0.0.1, port: ${mail.smtpPort}, secure: false }
    allow_from: [owner@test.local]
${lines}`;
}

/** Why the servers cannot run here, or null when they can. */
export function mailServersMissing(): string | null {
  for (const program of ["/usr/sbin/dovecot", "/usr/sbin/smtpd"]) {
    try {
      Deno.statSync(program);
    } catch {
      return `${program} is not installed (apt-get install dovecot-imapd dovecot-lmtpd opensmtpd)`;
    }
  }
  if (Deno.uid() !== 0) return "the mail servers need root to start (they drop privileges)";
  return null;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Starts Dovecot and OpenSMTPD.
 *
 * @example
 * ```ts
 * await using mail = await startMailServers();
 * await mail.send({ from: "owner@test.local", to: "hob@test.local", subject: "Hi", text: "Hello" });
 * ```
 */
export async function startMailServers(): Promise<MailServers> {
  // A port found free can be taken before a server binds it: a start that fails is tried again on
  // fresh ports.
  const failures: string[] = [];
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await startOnce();
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  throw new Error(`the mail servers did not start:\n${failures.join("\n")}`);
}

/** Starts tried before giving up. */
const START_ATTEMPTS = 3;
/** How long a server may take to listen: on a busy machine, Dovecot's processes start slowly. */
const LISTEN_TIMEOUT_MS = 60_000;

async function startOnce(): Promise<MailServers> {
  const dir = await Deno.makeTempDir({ prefix: "hob-mail-" });
  await Deno.chmod(dir, 0o755);
  const [imapPort, lmtpPort, smtpPort] = [freePort(), freePort(), freePort()];
  await Deno.mkdir(join(dir, "mail"), { mode: 0o777 });
  await Deno.chmod(join(dir, "mail"), 0o777);
  await Deno.writeTextFile(
    join(dir, "passwd"),
    Object.entries(MAIL_USERS).map(([user, pass]) => `${user}:{PLAIN}${pass}::::::\n`).join(""),
  );
  await Deno.writeTextFile(join(dir, "dovecot.conf"), dovecotConf(dir, imapPort, lmtpPort));
  await Deno.writeTextFile(
    join(dir, "vusers"),
    Object.keys(MAIL_USERS).map((user) => `${user} dovecot\n`).join(""),
    { mode: 0o600 },
  );
  await Deno.writeTextFile(
    join(dir, "smtpd.conf"),
    `table vusers file:${dir}/vusers
listen on 127.0.0.1 port ${smtpPort}
action "deliver" lmtp "127.0.0.1:${lmtpPort}" rcpt-to virtual <vusers>
match from any for domain "test.local" action "deliver"
`,
    { mode: 0o600 },
  );
  const startDovecot = () =>
    new Deno.Command("/usr/sbin/dovecot", {
      args: ["-c", join(dir, "dovecot.conf"), "-F"],
      stdout: "null",
      stderr: "piped",
    }).spawn();
  let dovecot = startDovecot();
  const smtpd = new Deno.Command("/usr/sbin/smtpd", {
    args: ["-d", "-f", join(dir, "smtpd.conf")],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // Why a server will never listen: it exited (a port taken meanwhile, a bad config).
  let ended = "";
  smtpd.status.then((status) => ended ||= `smtpd exited ${status.code}`);
  dovecot.status.then((status) => ended ||= `dovecot exited ${status.code}`);
  const stop = async () => {
    for (const child of [smtpd, dovecot]) {
      try {
        child.kill("SIGTERM");
      } catch { /* gone already */ }
      await child.output().catch(() => {});
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    await untilListening(imapPort, () => ended);
    await untilListening(smtpPort, () => ended);
  } catch (error) {
    const log = await Deno.readTextFile(join(dir, "dovecot.log")).catch(() => "");
    await stop();
    throw new Error(`${(error as Error).message}${log ? `; dovecot.log: ${log.slice(-500)}` : ""}`);
  }

  const inbox = async (user: keyof typeof MAIL_USERS): Promise<StoredMail[]> => {
    const client = new ImapFlow({
      host: "127.0.0.1",
      port: imapPort,
      secure: false,
      auth: { user, pass: MAIL_USERS[user] },
      logger: false,
    });
    await client.connect();
    const found: StoredMail[] = [];
    try {
      const lock = await client.getMailboxLock("INBOX");
      try {
        if ((client.mailbox as { exists: number }).exists > 0) {
          for await (
            const mail of client.fetch("1:*", { uid: true, source: true, envelope: true })
          ) {
            found.push({
              uid: mail.uid,
              from: mail.envelope?.from?.[0]?.address ?? "",
              subject: mail.envelope?.subject ?? "",
              source: new TextDecoder().decode(mail.source),
            });
          }
        }
      } finally {
        lock.release();
      }
    } finally {
      await client.logout();
    }
    return found;
  };

  return {
    imapPort,
    smtpPort,
    async stopImap() {
      dovecot.kill("SIGTERM");
      await dovecot.output();
    },
    async startImap() {
      dovecot = startDovecot();
      await untilListening(imapPort);
    },
    async send(mail) {
      const transport = nodemailer.createTransport({
        host: "127.0.0.1",
        port: smtpPort,
        secure: false,
        name: "test.localhost",
      });
      try {
        await transport.sendMail(
          "raw" in mail ? { envelope: { from: mail.from, to: mail.to }, raw: mail.raw } : mail,
        );
      } finally {
        transport.close();
      }
    },
    inbox,
    async until(user, check, what, everyMs = 100) {
      const deadline = Date.now() + 30_000;
      while (true) {
        const mail = await inbox(user);
        if (check(mail)) return mail;
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; ${user} has ${mail.length} mail(s)`);
        }
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    },
    [Symbol.asyncDispose]: stop,
  };
}

/** Resolves once `port` takes connections; throws once `ended` says why it never will. */
async function untilListening(port: number, ended: () => string = () => ""): Promise<void> {
  const deadline = Date.now() + LISTEN_TIMEOUT_MS;
  while (true) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      if (ended()) throw new Error(`no mail server on port ${port}: ${ended()}`);
      if (Date.now() > deadline) throw new Error(`no mail server on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function dovecotConf(dir: string, imapPort: number, lmtpPort: number): string {
  return `base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = hob-test-${imapPort}
log_path = ${dir}/dovecot.log
protocols = imap lmtp
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
mail_uid = dovecot
mail_gid = dovecot
first_valid_uid = 1
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=dovecot gid=dovecot home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${imapPort}
  }
  inet_listener imaps {
    port = 0
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = ${lmtpPort}
  }
  unix_listener lmtp {
    mode = 0666
  }
}
protocol lmtp {
  postmaster_address = postmaster@test.local
}
`;
}
