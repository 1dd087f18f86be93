/**
 * One token count everywhere: the status page's `/mcp` figure is the o200k count `code-mode-mcp
 * check` makes (cli/product/tools-list-tokens.mjs, run here in workerd too) for the same tools,
 * whether the build step counted them (the demo) or the launcher did (LAUNCH_TOOLS_LIST_TOKENS);
 * the demo's /mcp/code too (its upstream is fixed); text nobody counted is shown as a labelled
 * estimate, never as o200k.
 */
import { describe, expect, it } from "vitest";
import { apiToolText } from "../../../../src/app/api-tool-text";
import type { AppSettings } from "../../../../src/app/config/config";
import { LAUNCH_TOKENS_VAR } from "../../../../src/app/config/setting-names";
import { COMPACT_SPECS } from "../../../../src/app/generated/specs";
import {
  API_ESTIMATE_NOTE,
  CODE_ESTIMATE_NOTE,
  O200K_NOTE,
  type StatusReport,
} from "../../../../src/app/status-report";
import { compileSpec } from "../../../../src/openapi/compile-spec";
import { measureToolsList } from "../../../../cli/product/tools-list-tokens.mjs";
import { measureDemoCodeTools } from "../../../../scripts/demo-code-tools.mjs";
import { configured, entry, type WorkerFetch } from "../helpers";

const status = async (worker: WorkerFetch) =>
  (await (await worker("http://localhost/api/status")).json()) as StatusReport;

const TINY = compileSpec({
  openapi: "3.0.3",
  info: { title: "Counted", version: "1" },
  servers: [{ url: "https://counted.example.com" }],
  paths: {
    "/gadgets/{id}": {
      get: {
        operationId: "getGadget",
        summary: "Reads one gadget",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "ok" } },
      },
    },
  },
});
const TINY_TEXT = JSON.stringify(TINY);
const launched = (extra: Record<string, string> = {}): AppSettings =>
  ({ SPEC: "counted", LAUNCH_SPECS: JSON.stringify({ counted: TINY }), ...extra }) as AppSettings;

describe("/mcp's token count", () => {
  it("is the build step's o200k count for the demo, equal to check's measure of the same tools", async () => {
    const report = await status(entry);
    const api = report.endpoints.find((e) => e.route === "/mcp")!;
    const measured = await measureToolsList(
      COMPACT_SPECS["demo-api"]!,
      apiToolText({ api: { kind: "demo" }, limits: {} }),
    );
    expect(api.count).toEqual({ kind: "o200k", note: O200K_NOTE });
    expect(api.totalTokens).toBe(measured.tokens);
    expect(Object.fromEntries(api.tools.map((t) => [t.name, t.tokens]))).toEqual(measured.perTool);
    const html = await (await entry("http://localhost/")).text();
    expect(html).toContain(
      `<table class="tools" data-route="/mcp" data-count="o200k"><tr><th>tool</th><th>description chars</th><th>o200k tokens</th></tr>`,
    );
    expect(html).toMatch(
      new RegExp(
        `data-route="/mcp" data-count="o200k">[^]*?<td class="total-tokens">${measured.tokens}</td>`,
      ),
    );
  });

  it("is the launcher's o200k count for a launched spec (what check prints for it)", async () => {
    // As cli/serve.mjs measures it: the Worker's own text options for these settings.
    const measured = await measureToolsList(
      TINY_TEXT,
      apiToolText({ api: { kind: "http" } as never, limits: {} }),
    );
    const checkFigure = (await measureToolsList(TINY_TEXT)).tokens;
    expect(measured.tokens).toBe(checkFigure);
    const tokens = { [measured.digest]: { tokens: measured.tokens, tools: measured.perTool } };
    const report = await status(
      configured(launched({ [LAUNCH_TOKENS_VAR]: JSON.stringify(tokens) })),
    );
    const api = report.endpoints.find((e) => e.route === "/mcp")!;
    expect(api.count.kind).toBe("o200k");
    expect(api.totalTokens).toBe(checkFigure);
  });

  it("is a labelled estimate when nothing counted the listed text", async () => {
    const uncounted = await status(configured(launched()));
    expect(uncounted.endpoints[0]!.count).toEqual({ kind: "estimate", note: API_ESTIMATE_NOTE });
    // A setting that changes the descriptions (the stated result limit) leaves the build's count behind.
    const limited = await status(configured({ LIMIT_MAX_RESULT_BYTES: "65536" } as AppSettings));
    expect(limited.endpoints[0]!.count.kind).toBe("estimate");
    // A count for other text (a stale or forged digest) is never shown.
    const measured = await measureToolsList(TINY_TEXT);
    const forged = { ["0".repeat(64)]: { tokens: 1, tools: { search: 1, execute: 1 } } };
    const wrong = await status(
      configured(launched({ [LAUNCH_TOKENS_VAR]: JSON.stringify(forged) })),
    );
    expect(wrong.endpoints[0]!.count.kind).toBe("estimate");
    expect(wrong.endpoints[0]!.totalTokens).not.toBe(1);
    expect(wrong.endpoints[0]!.totalTokens).toBeGreaterThan(measured.tokens / 2);
    const html = await (await configured(launched())("http://localhost/")).text();
    expect(html).toContain('data-route="/mcp" data-count="estimate"');
    expect(html).toContain("<th>≈ tokens (estimate)</th>");
  });
});

describe("/mcp/code's token count", () => {
  it("is the build step's o200k count for the demo upstream's fixed tools", async () => {
    const report = await status(entry);
    const code = report.endpoints.find((e) => e.route === "/mcp/code")!;
    const measured = await measureDemoCodeTools();
    expect(code.count).toEqual({ kind: "o200k", note: O200K_NOTE });
    expect(code.totalTokens).toBe(measured.tokens);
    expect(code.tools.map((t) => t.tokens)).toEqual([measured.perTool.code]);
    const html = await (await entry("http://localhost/")).text();
    expect(html).toContain('<table class="tools" data-route="/mcp/code" data-count="o200k">');
  });

  it("is an estimate that says why when its text was not counted", async () => {
    const limited = await status(configured({ LIMIT_MAX_RESULT_BYTES: "65536" } as AppSettings));
    const code = limited.endpoints.find((e) => e.route === "/mcp/code")!;
    expect(code.count).toEqual({ kind: "estimate", note: CODE_ESTIMATE_NOTE });
    expect(code.totalTokens).toBeGreaterThan(100);
  });
});
