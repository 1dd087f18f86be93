// The one token measure (cli/product/tools-list-tokens.mjs) and the counted text it shares with the
// Worker (src/app/tools-list-count.ts): what is counted, the digest it is kept under, and how the
// Worker reads counts a launcher hands it.
import { describe, expect, it } from "vitest";
import { measureToolsList } from "../../../../cli/product/tools-list-tokens.mjs";
import { apiToolText, DEMO_API_NOTE } from "../../../../src/app/api-tool-text";
import {
  parseToolsListCounts,
  toolEntryText,
  toolsListDigest,
  toolsListText,
} from "../../../../src/app/tools-list-count";
import { compileSpec } from "../../../../src/openapi/compile-spec";
import { oasExample } from "../../openapi/fixtures";

const PETSTORE = JSON.stringify(compileSpec(oasExample("3.0/json/petstore.json")));

describe("toolsListText", () => {
  it("is each tool's name, description and input schema, keys sorted whatever order they came in", () => {
    const a = { name: "t", description: "d", inputSchema: { type: "object", $schema: "s" } };
    const b = {
      inputSchema: { $schema: "s", type: "object" },
      name: "t",
      description: "d",
      title: "x",
    };
    expect(toolEntryText(a)).toBe(
      '{"description":"d","inputSchema":{"$schema":"s","type":"object"},"name":"t"}',
    );
    expect(toolEntryText(b)).toBe(toolEntryText(a));
    expect(toolsListText([a, { name: "u" }])).toBe(`[${toolEntryText(a)},{"name":"u"}]`);
  });

  it("is kept under its SHA-256 in hex", async () => {
    expect(await toolsListDigest("")).toBe(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    expect(await toolsListDigest("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("measureToolsList", () => {
  it("counts the listed text in o200k, whole and per tool, and names its digest", async () => {
    const measured = await measureToolsList(PETSTORE);
    expect(measured.tools).toEqual(["search", "execute"]);
    expect(measured.tokens).toBeGreaterThan(300);
    expect(Object.keys(measured.perTool)).toEqual(["search", "execute"]);
    expect(measured.perTool.search! + measured.perTool.execute!).toBeLessThanOrEqual(
      measured.tokens,
    );
    expect(measured.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("counts the text the Worker's options make: another note or limit is another text", async () => {
    const plain = await measureToolsList(PETSTORE);
    const demo = await measureToolsList(
      PETSTORE,
      apiToolText({ api: { kind: "demo" }, limits: {} }),
    );
    const limited = await measureToolsList(PETSTORE, { limits: { maxResultBytes: 65_536 } });
    // The note is added to both descriptions.
    expect(demo.perTool.search).toBeGreaterThan(plain.perTool.search! + 10);
    expect(demo.perTool.execute).toBeGreaterThan(plain.perTool.execute! + 10);
    expect(new Set([plain.digest, demo.digest, limited.digest]).size).toBe(3);
    expect(await measureToolsList(PETSTORE)).toEqual(plain);
  });
});

describe("apiToolText", () => {
  it("adds the demo note only for the demo API and passes the configured limits", () => {
    expect(apiToolText({ api: { kind: "demo" }, limits: {} })).toEqual({
      description: DEMO_API_NOTE,
      limits: {},
    });
    const http = { kind: "http" } as Parameters<typeof apiToolText>[0]["api"];
    expect(apiToolText({ api: http, limits: { maxResultBytes: 1000 } })).toEqual({
      limits: { maxResultBytes: 1000 },
    });
  });
});

describe("parseToolsListCounts", () => {
  const digest = "a".repeat(64);
  it("reads counts as the launcher writes them", () => {
    const counts = { [digest]: { tokens: 10, tools: { search: 4, execute: 5 } } };
    expect(parseToolsListCounts(JSON.stringify(counts))).toEqual(counts);
  });

  it("counts nothing from a malformed value, so the page shows its labelled estimate", () => {
    expect(parseToolsListCounts(undefined)).toEqual({});
    expect(parseToolsListCounts("{not json")).toEqual({});
    expect(parseToolsListCounts("[1]")).toEqual({});
    expect(
      parseToolsListCounts(
        JSON.stringify({
          "not-a-digest": { tokens: 1, tools: {} },
          [digest]: { tokens: "10", tools: {} },
          ["b".repeat(64)]: { tokens: 3, tools: { search: "x" } },
        }),
      ),
    ).toEqual({});
  });
});
