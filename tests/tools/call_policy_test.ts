/** The policy step of a tool call, alone: no registry, no Worker, no database. */

import { assert, assertEquals } from "../helpers/assert.ts";
import {
  configuredPolicy,
  decidePolicy,
  effectivePolicy,
  type PolicyInput,
  taintOf,
} from "../../src/tools/call_policy.ts";
import runCommand from "../../src/builtins/run_command.ts";
import runPython from "../../src/builtins/run_python.ts";
import { isRefusal } from "../../src/tools/registry_types.ts";
import type { ToolReview } from "../../src/sandbox/definition.ts";

/** A call of a tool with `side_effect`, optionally reviewing its arguments with `review`. */
function input(
  overrides: Partial<PolicyInput> & {
    side_effect?: "none" | "local" | "external";
    review?: (args: unknown) => ToolReview | Promise<ToolReview>;
  } = {},
): PolicyInput {
  const { side_effect = "local", review, ...rest } = overrides;
  return {
    tool: { name: "write_file", side_effect, review },
    args: { path: "a.txt" },
    settings: {},
    source: "agent",
    ...rest,
  };
}

Deno.test("configuredPolicy: hob.yaml, then the tool's own, then by side effect", () => {
  const tool = { name: "send", side_effect: "external" as const };
  assertEquals(configuredPolicy(tool, undefined), "ask");
  assertEquals(configuredPolicy({ ...tool, side_effect: "local" }, undefined), "allow");
  assertEquals(configuredPolicy({ ...tool, default_policy: "deny" }, undefined), "deny");
  assertEquals(configuredPolicy({ ...tool, default_policy: "deny" }, { send: "allow" }), "allow");
});

Deno.test("effectivePolicy: the configured policy with what the tool's review makes of it", async (t) => {
  const shell = (policy: string) => ({ shell: { policy, allowlist: ["ls"] } });
  await t.step("a tool without a review: its configured policy", () => {
    const tool = { name: "send", side_effect: "external" as const };
    assertEquals(effectivePolicy(tool, undefined, {}), "ask");
    assertEquals(effectivePolicy(tool, { send: "allow" }, {}), "allow");
  });
  await t.step("run_command: allowlisted commands run, the rest as the shell policy says", () => {
    assertEquals(effectivePolicy(runCommand, undefined, shell("ask")), "allowlist, else ask");
    assertEquals(
      effectivePolicy(runCommand, undefined, shell("allowlist")),
      "allowlist, else deny",
    );
    assertEquals(effectivePolicy(runCommand, undefined, shell("deny")), "deny");
  });
  await t.step("a stricter configured policy holds for every command", () => {
    assertEquals(effectivePolicy(runCommand, { run_command: "ask" }, shell("ask")), "ask");
    assertEquals(
      effectivePolicy(runCommand, { run_command: "ask" }, shell("allowlist")),
      "allowlist: ask, else deny",
    );
    assertEquals(effectivePolicy(runCommand, { run_command: "deny" }, shell("ask")), "deny");
  });
  await t.step("run_python: code always asks, or never runs", () => {
    assertEquals(effectivePolicy(runPython, undefined, shell("ask")), "ask");
    assertEquals(effectivePolicy(runPython, undefined, shell("allowlist")), "deny");
  });
});

Deno.test("decidePolicy applies the configured policy and the tool's review", async (t) => {
  await t.step("no review: the configured policy, nothing to explain", async () => {
    assertEquals(await decidePolicy(input()), {
      policy: "allow",
      reason: "",
      shape: "",
      tainted: null,
    });
  });
  await t.step("a review makes the policy stricter, with its reason and shape", async () => {
    const decision = await decidePolicy(input({
      review: () => ({ decision: "ask", reason: "it deletes files", shape: "rm" }),
    }));
    assertEquals(decision, {
      policy: "ask",
      reason: "it deletes files",
      shape: "rm",
      tainted: null,
    });
  });
  await t.step("a review never makes it looser", async () => {
    const decision = await decidePolicy(input({
      policies: { write_file: "ask" },
      review: () => ({ decision: "allow", reason: "harmless" }),
    }));
    assert(!isRefusal(decision));
    assertEquals(decision.policy, "ask");
  });
  await t.step("deny refuses, with the review's reason, as denied", async () => {
    const decision = await decidePolicy(input({
      review: () => ({ decision: "deny", reason: "it formats the disk" }),
    }));
    assertEquals(decision, {
      refused: "Denied by the user's policy: it formats the disk.",
      approval: "denied",
    });
  });
  await t.step("a review that throws refuses the call, as refused", async () => {
    const decision = await decidePolicy(input({
      review: () => Promise.reject(new Error("cannot parse the command")),
    }));
    assertEquals(decision, {
      refused: "write_file could not check its arguments: cannot parse the command",
      approval: "refused",
    });
  });
});

Deno.test("decidePolicy makes a tainted turn's side effects ask", async (t) => {
  const tainted = "fetch_url: https://evil.example";
  await t.step("an allowed side effect asks, the taint's reason first", async () => {
    const decision = await decidePolicy(input({
      tainted,
      review: () => ({ reason: "writes a.txt", shape: "a.txt" }),
    }));
    assertEquals(decision, {
      policy: "ask",
      reason: `this turn has read untrusted content (${tainted}); writes a.txt`,
      shape: "a.txt",
      tainted,
    });
  });
  await t.step("deny still wins over asking", async () => {
    const decision = await decidePolicy(input({ tainted, policies: { write_file: "deny" } }));
    assert(isRefusal(decision));
    assertEquals(decision.approval, "denied");
  });
  await t.step("no side effect, an exempt tool, taint switched off: no question", async () => {
    for (
      const untainting of [
        input({ tainted, side_effect: "none" }),
        input({ tainted, taint: { enabled: true, exempt: ["write_file"] } }),
        input({ tainted, taint: { enabled: false, exempt: [] } }),
      ]
    ) {
      assertEquals(await decidePolicy(untainting), {
        policy: "allow",
        reason: "",
        shape: "",
        tainted: null,
      });
    }
  });
  await t.step("the owner's own calls are never tainted; a skill's are", () => {
    const tool = { name: "write_file", side_effect: "local" as const };
    for (const source of ["api", "cli", "mcp"] as const) {
      assertEquals(taintOf(tool, tainted, source), null, source);
    }
    assertEquals(taintOf(tool, tainted, "skill"), tainted);
  });
});
