/**
 * planLaunch (cli/plan-launch.mjs) with SPEC_FILE's compiled spec kept by an earlier launch (issue #43):
 * the warm plan is the cold one, byte for byte, and it neither validates, compiles, parses nor
 * stringifies the spec again (the kept entry holds its ASCII text and what the check reads of it).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import * as product from "../../../../cli/product/index.mjs";
import { planLaunch } from "../../../../cli/plan-launch.mjs";
import { specLaunchEnv } from "../../../helpers/cli/spec-launch-env.js";

const root = mkdtempSync(join(tmpdir(), "code-mode-plan-warm-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SPEC = {
  openapi: "3.0.3",
  info: { title: "Warm API — test", version: "1" },
  servers: [{ url: "https://warm.example.com/v1" }],
  components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" } } },
  security: [{ key: [] }],
  paths: {
    "/items": { get: { operationId: "listItems", responses: { "200": { description: "ok" } } } },
  },
};

/** One plan, with its log, progress and notes, and the product's compile step counted. */
async function plan(env: NodeJS.ProcessEnv, productFile: string) {
  const lines: string[] = [];
  const loadSpecFile = vi.fn(product.loadSpecFile);
  const parse = vi.spyOn(JSON, "parse");
  const stringify = vi.spyOn(JSON, "stringify");
  try {
    const planned = await planLaunch({
      label: "code-mode-mcp",
      product: { ...product, loadSpecFile },
      env,
      log: (line) => lines.push(`log ${line}`),
      progress: (line) => lines.push(`progress ${line}`),
      warn: (line) => lines.push(`warn ${line}`),
      productFile,
    });
    const specParses = parse.mock.calls.filter(([text]) => String(text).includes("listItems"));
    const specStringifies = stringify.mock.calls.filter(
      ([value]) => typeof value === "object" && value !== null && "operations" in value,
    );
    return {
      planned,
      lines,
      compiled: loadSpecFile.mock.calls.length,
      specParses: specParses.length,
      specStringifies: specStringifies.length,
    };
  } finally {
    parse.mockRestore();
    stringify.mockRestore();
  }
}

describe("planLaunch with a kept compiled spec", () => {
  it("plans the same launch without validating, compiling, parsing or stringifying it again", async () => {
    const spec = join(root, "warm-api.json");
    writeFileSync(spec, JSON.stringify(SPEC));
    const productFile = join(root, "product.js");
    writeFileSync(productFile, "export const build = 1;");
    const env = await specLaunchEnv(root, spec);
    const cold = await plan(env, productFile);
    const warm = await plan(env, productFile);
    expect(cold.compiled).toBe(1);
    expect(warm.compiled).toBe(0);
    expect(warm.specParses).toBe(0);
    expect(warm.specStringifies).toBe(0);
    expect(warm.planned).toEqual(cold.planned);
    // The same log and notes (the missing API_TOKEN noted: the spec defines authentication),
    // but for the line that says where the compiled spec came from.
    const same = (lines: string[]) => lines.filter((line) => !/validat/.test(line));
    expect(same(warm.lines)).toEqual(same(cold.lines));
    expect(warm.lines.join("\n")).toMatch(/API_TOKEN is not set/);
    expect(warm.lines.join("\n")).toMatch(/was validated and compiled by an earlier start/);
  });
});
