/**
 * `code-mode-mcp deploy` refuses to publish a credential behind no caller check (issue #41,
 * cli/deploy-guard.mjs): the decision with the environment and the Worker's vars given, and the
 * real command, whose refusal comes before anything is built or sent.
 */
import { describe, expect, it } from "vitest";
import { deploySecrets, unguardedDeploy } from "../../../../cli/deploy-guard.mjs";
import { deployDryRun, expectRefusedUnbuilt } from "../../../helpers/cli/deploy-refusal";

const TOKEN = "api-token-for-the-test-0123456789";

describe("the deploy guard", () => {
  it("refuses a credential with no caller check, naming the key to add and the opt-out", () => {
    for (const credential of ["API_TOKEN", "UPSTREAM_MCP_AUTH"]) {
      const refusal = unguardedDeploy({ [credential]: TOKEN }, {});
      expect(refusal, credential).toContain(`${credential} is set`);
      expect(refusal).toContain("MCP_API_KEY=");
      expect(refusal).toContain("Authorization: Bearer <key>");
      expect(refusal).toContain("ALLOW_ANONYMOUS=on");
      expect(refusal).not.toContain(TOKEN);
    }
  });

  it("lets a guarded, an opted-out or a credential-less Worker go", () => {
    const key = "k".repeat(32);
    expect(unguardedDeploy({ API_TOKEN: TOKEN, MCP_API_KEY: key }, {})).toBeUndefined();
    expect(unguardedDeploy({ API_TOKEN: TOKEN, OAUTH: "on" }, {})).toBeUndefined();
    expect(unguardedDeploy({ API_TOKEN: TOKEN, ALLOW_ANONYMOUS: "on" }, {})).toBeUndefined();
    expect(unguardedDeploy({ API_TOKEN: TOKEN }, { ALLOW_ANONYMOUS: "on" })).toBeUndefined();
    expect(unguardedDeploy({}, {})).toBeUndefined();
    // Blank is unset; an opt-out must say "on".
    expect(unguardedDeploy({ API_TOKEN: TOKEN, MCP_API_KEY: " " }, {})).toBeDefined();
    expect(unguardedDeploy({ API_TOKEN: TOKEN, ALLOW_ANONYMOUS: "sure" }, {})).toBeDefined();
    // A credential in the Worker's vars counts too.
    expect(unguardedDeploy({}, { API_TOKEN: TOKEN })).toBeDefined();
  });

  it("does not count FORWARD_CALLER_TOKEN=on as a check beside a credential of the Worker's", () => {
    // A caller who sends no token gets API_TOKEN in its place; /mcp/code sends UPSTREAM_MCP_AUTH
    // to anyone (attack review): forwarding checks no one while the Worker holds either.
    for (const credential of ["API_TOKEN", "UPSTREAM_MCP_AUTH"])
      expect(
        unguardedDeploy({ [credential]: TOKEN, FORWARD_CALLER_TOKEN: "on" }, {}),
        credential,
      ).toContain("FORWARD_CALLER_TOKEN=on checks no one");
    expect(unguardedDeploy({ FORWARD_CALLER_TOKEN: "on" }, {})).toBeUndefined();
  });

  it("uploads only the product's secrets that are set", () => {
    expect(
      deploySecrets({ API_TOKEN: TOKEN, MCP_API_KEY: "", HOME: "/root", PATH: "/bin" }),
    ).toEqual({ API_TOKEN: TOKEN });
  });

  it("deploy --dry-run with a credential and no caller check is refused, nothing built", () => {
    // Only what the command needs: no caller check, no opt-out, one credential.
    expectRefusedUnbuilt(deployDryRun({ API_TOKEN: TOKEN }), "ALLOW_ANONYMOUS=on", TOKEN);
  });
});
