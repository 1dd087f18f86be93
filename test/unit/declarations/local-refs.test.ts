// localizeRefs: `$id`/`$anchor` references become root-relative pointers; nothing else changes.
import { describe, expect, it } from "vitest";
import { localizeRefs } from "../../../src/declarations/local-refs";

describe("localizeRefs", () => {
  it("returns a document without $id, $anchor or non-pointer refs as it is", () => {
    const schema = { properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { type: "string" } } };
    expect(localizeRefs(schema)).toBe(schema);
  });

  it("resolves $id-named schemas against the base in force, nested bases included", () => {
    const out = localizeRefs({
      $id: "https://example.com/root/tool.json",
      properties: { a: { $ref: "node.json" }, b: { $ref: "https://example.com/root/deep/x.json" } },
      $defs: {
        node: { $id: "node.json", type: "number" },
        deep: { $id: "deep/", $defs: { x: { $id: "x.json", type: "string" } } },
      },
    }) as any;
    expect(out.properties.a.$ref).toBe("#/$defs/node");
    expect(out.properties.b.$ref).toBe("#/$defs/deep/$defs/x");
  });

  it("resolves $anchor, draft-07 fragment ids and pointers into nested resources", () => {
    const out = localizeRefs({
      $id: "urn:example:root",
      properties: {
        a: { $ref: "#tag" },
        b: { $ref: "#old" },
        c: { $ref: "urn:example:inner#/$defs/leaf" },
      },
      definitions: {
        t: { $anchor: "tag", const: 1 },
        o: { $id: "#old", const: 2 },
        inner: { $id: "urn:example:inner", $defs: { leaf: { type: "boolean" } } },
      },
    }) as any;
    expect(out.properties.a.$ref).toBe("#/definitions/t");
    expect(out.properties.b.$ref).toBe("#/definitions/o");
    expect(out.properties.c.$ref).toBe("#/definitions/inner/$defs/leaf");
  });

  it("leaves remote refs, data keywords and __proto__ keys alone", () => {
    const schema = JSON.parse(
      '{"$id":"https://e.com/s.json","properties":{"__proto__":{"$ref":"x.json"},"enum":{"$ref":"#a"},"r":{"$ref":"https://other.example/s.json"}},"enum":[{"$ref":"#a"}],"$defs":{"a":{"$anchor":"a","type":"string"},"x":{"$id":"x.json"}}}',
    );
    const out = localizeRefs(schema) as any;
    expect(Object.hasOwn(out.properties, "__proto__")).toBe(true);
    expect(out.properties["__proto__"].$ref).toBe("#/$defs/x");
    // A property named `enum` is a schema; the `enum` keyword's values are data.
    expect(out.properties.enum.$ref).toBe("#/$defs/a");
    expect(out.enum).toEqual([{ $ref: "#a" }]);
    expect(out.properties.r.$ref).toBe("https://other.example/s.json");
  });
});
