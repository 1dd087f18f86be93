/**
 * A spec compiled by a launcher (`npm start` with SPEC_FILE, `code-mode-mcp serve --spec`) reaches
 * the prebuilt Worker through the LAUNCH_SPECS var: the same entry serves it at /mcp, without a
 * generated copy of the entry.
 */
import { describe, expect, it } from "vitest";
import type { AppSettings } from "../../../../src/app/config/config";
import { compileSpec } from "../../../../src/openapi/compile-spec";
import { configured } from "../helpers";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

const TINY = {
  openapi: "3.0.3",
  info: { title: "Launch", version: "1" },
  servers: [{ url: "https://launch.example.com" }],
  paths: {
    "/widgets": {
      get: {
        operationId: "listWidgets",
        summary: 'Lists widgets — it\'s `ünïcode` "quoted"',
        responses: { "200": { description: "ok" } },
      },
    },
  },
};
const launched = (extra: Record<string, string> = {}) =>
  ({
    SPEC: "launch-tiny",
    // As the launchers write it (cli/serve.mjs): JSON text, spec name → compact spec.
    LAUNCH_SPECS: JSON.stringify({ "launch-tiny": compileSpec(TINY) }),
    ...extra,
  }) as AppSettings;

describe("LAUNCH_SPECS: specs compiled at launch", () => {
  it("serves a launch spec with the built-in Worker entry", async () => {
    const worker = configured(launched());
    const health = await (await worker("http://localhost/health")).json();
    expect(health).toEqual({ ok: true, name: "code-mode-mcp", spec: "launch-tiny" });
    const client = await connect(worker);
    const result = await client.callTool({
      name: "search",
      arguments: {
        code: `async () => { const s = await codemode.spec(); return Object.values(s.paths["/widgets"]).map((o) => o.operationId + " " + o.summary); }`,
      },
    });
    expect(text(result)).toContain("listWidgets Lists widgets — it's `ünïcode`");
    await client.close();
  });

  it("without the var, the launch spec is unknown and SPEC's problem names it", async () => {
    const worker = configured({ SPEC: "launch-tiny" });
    const status = (await (await worker("http://localhost/api/status")).json()) as {
      problems: { setting: string; message: string }[];
    };
    expect(status.problems[0]?.setting).toBe("SPEC");
    expect(status.problems[0]?.message).toContain('No compiled spec named "launch-tiny"');
    const health = (await (await worker("http://localhost/health")).json()) as {
      error: { code: string; message: string };
    };
    expect(health.error.code).toBe("misconfigured");
    expect(health.error.message).toContain('SPEC: No compiled spec named "launch-tiny"');
  });
});
