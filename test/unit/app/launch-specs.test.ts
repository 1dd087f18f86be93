/**
 * specsWithLaunch (src/app/config/launch-specs.ts): the launch var's one spec is served as a
 * slice of the var's own text (no second copy of a multi-megabyte spec in the host; issue #43),
 * and any other shape of the var still gives each spec's JSON text.
 */
import { describe, expect, it, vi } from "vitest";
import { asciiJson } from "../../../cli/ascii-json.mjs";
import { specsWithLaunch } from "../../../src/app/config/launch-specs";
import { LAUNCH_SPECS_VAR } from "../../../src/app/config/setting-names";
import { specDocument } from "../../../src/app/config/spec-documents";

const env = (text: string) => ({ [LAUNCH_SPECS_VAR]: text }) as unknown as Cloudflare.Env;
const BASE = { demo: '{"format":"demo"}' };

describe("specsWithLaunch", () => {
  it("serves the one launch spec as the var's own text, as the launcher writes it", () => {
    const compact = { format: "codemode-compact-spec/1", info: { title: "API — 2024 → now" } };
    const text = asciiJson({ mine: compact });
    const specs = specsWithLaunch(BASE, env(text));
    // The var's text between `{"mine":` and `}`: ASCII as written (JSON.stringify of the parsed
    // spec would have the characters themselves).
    expect(specs.mine).toBe(text.slice('{"mine":'.length, -1));
    expect(specs.mine).toContain("\\u2014");
    expect(JSON.parse(specs.mine ?? "")).toEqual(compact);
    expect(specs.demo).toBe(BASE.demo);
  });

  it("replaces a built-in spec of the same name", () => {
    const specs = specsWithLaunch(BASE, env(JSON.stringify({ demo: { format: "mine" } })));
    expect(specs.demo).toBe('{"format":"mine"}');
  });

  it("stringifies each spec of a var it cannot slice (spaces, several specs)", () => {
    const spaced = specsWithLaunch(BASE, env('{ "a": { "x": 1 } }'));
    expect(spaced.a).toBe('{"x":1}');
    const two = specsWithLaunch(BASE, env('{"a":{"x":1},"b":{"y":2}}'));
    expect(two.a).toBe('{"x":1}');
    expect(two.b).toBe('{"y":2}');
  });

  it("leaves the built-in specs when the var is empty or not JSON", () => {
    expect(specsWithLaunch(BASE, env(""))).toBe(BASE);
    expect(specsWithLaunch(BASE, env("{not json"))).toEqual(BASE);
  });
});

describe("specDocument", () => {
  it("gives the launch var's parse of its spec: one JSON.parse for the var, the check and the endpoints", () => {
    const compact = { format: "codemode-compact-spec/1", servers: [{ url: "https://x.test" }] };
    const text = asciiJson({ parsedOnce: compact });
    const parse = vi.spyOn(JSON, "parse");
    try {
      const specs = specsWithLaunch(BASE, env(text));
      const first = specDocument(specs.parsedOnce ?? "");
      expect(first).toEqual(compact);
      expect(specDocument(specs.parsedOnce ?? "")).toBe(first);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it("parses any other text once, and throws on text that is not JSON", () => {
    const text = '{"format":"other","n":1}';
    expect(specDocument(text)).toBe(specDocument(`${text}`));
    expect(() => specDocument("{not json")).toThrow(SyntaxError);
  });
});
