/**
 * The runtimes' process environment (cli/local-server/runtime-env.mjs): an allow-list of what
 * workerd and Miniflare need, never the launcher's settings or secrets (they reach the runtimes
 * as bindings). e2e `sealed` checks the real workerd processes' /proc/<pid>/environ.
 */
import { describe, expect, it } from "vitest";
import { RUNTIME_ENV_NAMES, runtimeEnv } from "../../../../cli/local-server/runtime-env.mjs";
import { SETTING_NAMES } from "../../../../src/app/config/setting-names.js";

describe("runtimeEnv", () => {
  it("passes only the allowed names that are set, then what the server sets itself", () => {
    const launcher: Record<string, string> = {
      PATH: "/usr/bin",
      HOME: "/nonexistent/u",
      TMPDIR: "/tmp",
      LANG: "C.UTF-8",
      MINIFLARE_WORKERD_V8_FLAGS: "--user-flag",
      // Settings and secrets of the user's shell: none of them may reach a workerd.
      MCP_API_KEY: "key-secret",
      API_TOKEN: "token-secret",
      UPSTREAM_MCP_AUTH: "Bearer upstream-secret",
      AWS_SECRET_ACCESS_KEY: "aws-secret",
      HTTPS_PROXY: "http://user:pass@proxy:3128",
      NODE_OPTIONS: "--require ./hook.js",
    };
    expect(runtimeEnv(launcher, { MINIFLARE_WORKERD_V8_FLAGS: "--server-flag" })).toEqual({
      PATH: "/usr/bin",
      HOME: "/nonexistent/u",
      TMPDIR: "/tmp",
      LANG: "C.UTF-8",
      MINIFLARE_WORKERD_V8_FLAGS: "--server-flag",
    });
  });

  it("names no product setting", () => {
    const settings: readonly string[] = SETTING_NAMES;
    expect(RUNTIME_ENV_NAMES.filter((name) => settings.includes(name))).toEqual([]);
  });
});
