/**
 * The `code` tool's description at N = 1, 5, 12, 50 and 500 upstream tools: never over 2,048
 * characters, and as much type information as fits (inline declarations, then compact
 * signatures with outputs, without outputs, then the first tools' signatures and the rest's
 * names). Golden files: test/golden/code-description.<N>.txt (`-u` to regenerate).
 */
import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { codeToolDescription } from "../../../src/codemode/code-tool-description";
import { ToolCatalog } from "../../../src/codemode/upstream/tool-catalog";
import { golden } from "../../helpers/golden";

/** `n` realistic tools: nested input, an enum, optional fields, an output schema. */
function manyTools(n: number): Tool[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `resource_${i}_update`,
    description: `Update resource family ${i}: changes the settings of one item and returns the new version.`,
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: "Item id" },
        settings: {
          type: "object",
          properties: {
            mode: { enum: ["fast", "safe", "off"] },
            retries: { type: "integer" },
          },
          required: ["mode"],
        },
      },
      required: ["id", "settings"],
    },
    outputSchema: {
      type: "object",
      properties: { id: { type: "string" }, version: { type: "number" } },
      required: ["id", "version"],
    },
  }));
}

function describeTools(n: number): string {
  return codeToolDescription({
    catalog: new ToolCatalog(manyTools(n)),
    serverName: "the fixture server",
    budget: 2_048,
    maxResultBytes: 32_768,
  });
}

describe.each([1, 5, 12, 50, 500])("the code tool's description with %i tools", (n) => {
  const text = describeTools(n);

  it("stays within 2,048 characters", () => {
    expect(text.length).toBeLessThanOrEqual(2_048);
  });

  it("shows the first tool's input type, so the model can write code without a lookup", () => {
    expect(text).toContain("resource_0_update(input");
    expect(text).toContain('mode: "fast" | "safe" | "off"');
  });

  it("matches its golden file", async () => {
    await golden(`code-description.${n}.txt`, text);
  });
});

describe("the code tool's description tiers", () => {
  it("inlines full declarations while they fit, then compact signatures, then names", () => {
    expect(describeTools(1)).toContain("declare const codemode");
    expect(describeTools(5)).toContain("Compact signatures.");
    expect(describeTools(5)).toContain("Promise<{ id: string; version: number }>");
    expect(describeTools(500)).toContain("… 4");
    expect(describeTools(500)).toContain("more (use search)");
  });
});
