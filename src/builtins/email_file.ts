/**
 * The `email_file` tool: send a file from the workspace by SMTP (nodemailer),
 * a .txt file turned into .docx on the way. Off until `email:` is configured
 * in hob.yaml; sending is an external side effect, so it asks by default.
 */

import { Buffer } from "node:buffer";
import { basename } from "node:path";
import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { textToDocx } from "./docx.ts";
import { readAll } from "./file_helpers.ts";
import { emailPermissions, type EmailSettings } from "./settings_dependent.ts";

/** Largest attachment sent. */
const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

export default defineTool({
  name: "email_file",
  description:
    "Email a file from the workspace as an attachment (a .txt file is sent as .docx). Uses the SMTP server in the user's hob.yaml; `to` defaults to the user's own address there.",
  category: "delivery",
  side_effect: "external",
  permissions: emailPermissions,
  timeout_ms: 60_000,
  parameters: z.object({
    path: z.string().min(1).describe("The file to attach"),
    to: z.string().min(3).max(320).optional().describe(
      "Recipient; the configured address by default",
    ),
    subject: z.string().max(300).optional(),
    body: z.string().max(20_000).optional(),
  }),
  async run({ path, to, subject, body }, context) {
    const email = context.settings.email as EmailSettings | undefined;
    if (!email) {
      throw new Error(
        "Email is not configured: add an `email:` section (smtp host, from) to hob.yaml",
      );
    }
    const recipient = to ?? email.to;
    if (!recipient) throw new Error("No recipient: pass `to`, or set email.to in hob.yaml");
    let content: Uint8Array;
    let filename: string;
    {
      // The attachment is read through the handle the containment check verified.
      using opened = await context.openFile(path);
      content = await readAll(opened.file, MAX_ATTACHMENT_BYTES + 1);
      filename = basename(opened.path);
    }
    if (content.length > MAX_ATTACHMENT_BYTES) throw new Error(`${path} is larger than 20 MB`);
    if (filename.toLowerCase().endsWith(".txt")) {
      content = await textToDocx(new TextDecoder().decode(content));
      filename = filename.replace(/\.txt$/i, ".docx");
    }
    const { default: nodemailer } = await import("nodemailer");
    const transport = nodemailer.createTransport({
      host: email.smtp.host,
      port: email.smtp.port,
      secure: email.smtp.secure,
      // A fixed EHLO name: asking the OS for the hostname needs a permission this Worker lacks.
      name: "hob.localhost",
      auth: email.smtp.user
        ? { user: email.smtp.user, pass: email.smtp.password ?? "" }
        : undefined,
    });
    try {
      const info = await transport.sendMail({
        from: email.from,
        to: recipient,
        subject: subject ?? `File: ${filename}`,
        text: body ?? `Attached: ${filename}`,
        attachments: [{ filename, content: Buffer.from(content) }],
      }) as { messageId?: string };
      return `Sent ${filename} to ${recipient} (message id ${info.messageId ?? "unknown"})`;
    } finally {
      transport.close();
    }
  },
});
