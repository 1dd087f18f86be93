/**
 * Which key a `--stdio` launch's port asks of its callers (cli/local-server/stdio-caller-key.mjs).
 * The port is on 127.0.0.1, where every process on the machine reaches it: a launch with no caller
 * check of its own gets a key that only its bridge sends. End to end (a stranger's
 * `tools/call` on a real --stdio server's port refused): e2e `stdio-close`.
 */
import { describe, expect, it } from "vitest";
import { stdioCallerKey, userStdioKey } from "../../../../cli/local-server/stdio-caller-key.mjs";

const made = () => "k".repeat(43);

describe("stdioCallerKey", () => {
  it("gives a launch with no caller check a key of its own, in the settings and for the bridge", () => {
    const given = { API_TOKEN: "sk-live-0123456789", SPEC_FILE: "/x.yaml" };
    const { env, key } = stdioCallerKey(given, made);
    expect(key).toBe(made());
    expect(env).toEqual({ ...given, MCP_API_KEY: made() });
    // The launcher's own settings object is left as it was.
    expect(given).not.toHaveProperty("MCP_API_KEY");
  });

  it("makes the key from the user's own key: the same for every launch, another user's differs", () => {
    const mine = Buffer.alloc(32, 1);
    const a = userStdioKey({}, () => mine);
    expect(a).toMatch(/^[\w-]{43}$/);
    expect(userStdioKey({}, () => Buffer.from(mine))).toBe(a);
    expect(userStdioKey({}, () => Buffer.alloc(32, 2))).not.toBe(a);
    // Not the user's key itself, in any spelling.
    expect(a).not.toContain(mine.toString("base64url").slice(0, 16));
  });

  it("makes a random key per launch when the user's key cannot be read", () => {
    const a = userStdioKey({}, () => undefined);
    expect(a).toMatch(/^[\w-]{43}$/);
    expect(userStdioKey({}, () => undefined)).not.toBe(a);
  });

  it("sends the user's own MCP_API_KEY (trimmed, as the check reads it), adding none", () => {
    const given = { MCP_API_KEY: "  users-own-key-0123456789 " };
    expect(stdioCallerKey(given, made)).toEqual({ env: given, key: "users-own-key-0123456789" });
  });

  it("adds a key also when OAUTH and FORWARD_CALLER_TOKEN are set off", () => {
    for (const off of ["off", "OFF", "false", "0", "no", " "])
      expect(stdioCallerKey({ OAUTH: off, FORWARD_CALLER_TOKEN: off }, made).key).toBe(made());
  });

  it("adds none when callers bring their own tokens (OAUTH, FORWARD_CALLER_TOKEN, or a value the check refuses)", () => {
    for (const given of [{ OAUTH: "on" }, { FORWARD_CALLER_TOKEN: "yes" }, { OAUTH: "maybe" }])
      expect(stdioCallerKey(given, made)).toEqual({ env: given, key: undefined });
  });
});
