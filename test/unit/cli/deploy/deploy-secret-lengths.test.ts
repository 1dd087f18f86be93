/**
 * `code-mode-mcp deploy` refuses to upload a secret the deployed Worker would refuse for its
 * length (cli/deploy-secret-lengths.mjs): the rule compared with the product's own configuration
 * check at each minimum (one character short: both refuse; at the minimum: both accept), and the
 * real command, which refuses before anything is built or sent and never prints a value.
 */
import { describe, expect, it } from "vitest";
import { SECRET_MINIMUMS, shortSecrets } from "../../../../cli/deploy-secret-lengths.mjs";
import { readConfig } from "../../../../src/app/config/config";
import { deployDryRun, expectRefusedUnbuilt } from "../../../helpers/cli/deploy-refusal";

/** What the product needs beside the secret under test, so only the secret decides. */
const BASE = {
  SPEC: "petstore",
  API_BASE_URL: "https://api.example.com",
  API_TOKEN: "api-token-0123456789",
  MCP_API_KEY: "k".repeat(32),
};
const productRefuses = (settings: Record<string, string>, name: string) => {
  const read = readConfig({ ...BASE, ...settings } as never, ["petstore"]);
  return !read.ok && read.problems.some((p) => p.setting === name);
};

describe("deploy's secret lengths are the Worker's", () => {
  const cases = Object.entries(SECRET_MINIMUMS).map(([name, min]) => {
    const wanted = "bytes" in min ? min.bytes : min.chars;
    return [name, wanted] as const;
  });
  it.each(cases)("%s: one short is refused by both, the minimum by neither", (name, wanted) => {
    // OAUTH_PASSWORD is checked by the Worker when OAuth is on.
    const extra: Record<string, string> = name === "OAUTH_PASSWORD" ? { OAUTH: "on" } : {};
    const short = "s".repeat(wanted - 1);
    const enough = "s".repeat(wanted);
    expect(productRefuses({ ...extra, [name]: short }, name)).toBe(true);
    expect(shortSecrets({ [name]: short })).toContain(name);
    expect(productRefuses({ ...extra, [name]: enough }, name)).toBe(false);
    expect(shortSecrets({ [name]: enough })).toBeUndefined();
  });

  it("UPSTREAM_MCP_AUTH: the bare token after the scheme, one value or one per server", () => {
    const upstream = { UPSTREAM_MCP_URL: "github=https://mcp.example.com/mcp" };
    for (const [value, refused] of [
      ["Bearer 1234567", true],
      ["Bearer 12345678", false],
      ['{"github":"Bearer 1234567"}', true],
      ['{"github":"Bearer 12345678"}', false],
    ] as const) {
      expect(productRefuses({ ...upstream, UPSTREAM_MCP_AUTH: value }, "UPSTREAM_MCP_AUTH")).toBe(
        refused,
      );
      expect(shortSecrets({ UPSTREAM_MCP_AUTH: value }) !== undefined, value).toBe(refused);
    }
    expect(shortSecrets({ UPSTREAM_MCP_AUTH: '{"github":"Bearer 1234567"}' })).toContain(
      'for "github"',
    );
  });

  it("deploy --dry-run with a short secret is refused before anything is built, naming it", () => {
    const short = "tok-1234";
    expectRefusedUnbuilt(
      deployDryRun({ API_TOKEN: "api-token-0123456789", MCP_API_KEY: short }),
      "MCP_API_KEY is shorter than 16 characters",
      short,
    );
  });
});
