// Declarations must mean exactly what the schema means (issue #16). Each case emits the `code`
// tool's declarations for one input schema, then asks tsc whether the generated input type and
// the expected type accept the same values (each assignable to the other), and that the whole
// text compiles. The cases are the ones found wrong in review; the corpus test builds on this.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolDeclarations } from "../../../src/declarations/tool-declarations";
import { dtsDiagnostics } from "../../helpers/compile-dts";

interface Case {
  name: string;
  schema: Record<string, unknown>;
  /** The input type it must mean, as TypeScript. */
  expected: string;
  /** Whether the `input` parameter must be required. */
  inputRequired?: boolean;
}

const CASES: Case[] = [
  {
    name: "control: a plain object (the check itself passes on a correct declaration)",
    schema: { type: "object", properties: { a: { type: "string" } } },
    expected: "{ a?: string }",
  },
  {
    name: "$defs named like TypeScript built-ins",
    schema: {
      type: "object",
      properties: { at: { $ref: "#/$defs/Date" }, job: { $ref: "#/$defs/Promise" } },
      required: ["at"],
      $defs: {
        Date: { type: "string" },
        Promise: { type: "object", properties: { id: { type: "number" } }, required: ["id"] },
        Record: { type: "boolean" },
      },
    },
    expected: "{ at: string; job?: { id: number } }",
    inputRequired: true,
  },
  {
    name: "properties with a typed additionalProperties keep the value type",
    schema: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: { type: "number" },
    },
    expected: "{ name: string; [k: string]: string | number }",
    inputRequired: true,
  },
  {
    name: "prefixItems with minItems and no items: optional tail, open rest",
    schema: {
      type: "object",
      properties: {
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 1 },
      },
      required: ["pair"],
    },
    expected: "{ pair: [string, number?, ...unknown[]] }",
    inputRequired: true,
  },
  {
    name: "prefixItems with items: false and no minItems: every item optional, nothing more",
    schema: {
      type: "object",
      properties: {
        pair: {
          type: "array",
          prefixItems: [{ type: "string" }, { type: "number" }],
          items: false,
        },
      },
      required: ["pair"],
    },
    expected: "{ pair: [string?, number?] }",
    inputRequired: true,
  },
  {
    name: "a property named __proto__ is a real, quoted property",
    // JSON.parse: in an object literal, `__proto__:` would set the prototype, not a property.
    schema: JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"}},"required":["__proto__"]}',
    ),
    expected: '{ "__proto__": string; constructor?: number }',
    inputRequired: true,
  },
  {
    name: "required that appears only inside allOf branches",
    schema: {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      allOf: [{ required: ["a"] }],
    },
    expected: "{ a: string; b?: number }",
    inputRequired: true,
  },
  {
    name: "$ref with sibling keywords applies both",
    schema: {
      type: "object",
      properties: {
        item: {
          $ref: "#/$defs/Base",
          properties: { extra: { type: "boolean" } },
          required: ["extra"],
        },
      },
      required: ["item"],
      $defs: { Base: { type: "object", properties: { id: { type: "number" } }, required: ["id"] } },
    },
    expected: "{ item: { id: number } & { extra: boolean } }",
    inputRequired: true,
  },
  {
    name: "enum and const with object and array values",
    schema: {
      type: "object",
      properties: {
        mode: { enum: [{ kind: "a" }, { kind: "b", "max-size": 2 }] },
        fixed: { const: [1, "x"] },
      },
      required: ["mode", "fixed"],
    },
    expected: '{ mode: { kind: "a" } | { kind: "b"; "max-size": 2 }; fixed: [1, "x"] }',
    inputRequired: true,
  },
];

const dir = mkdtempSync(join(tmpdir(), "exactness-"));

/** Writes a module checking the generated input type against the expected one. */
function checkFile(index: number, test: Case): string {
  const { text, tools } = toolDeclarations([{ name: "probe", inputSchema: test.schema }]);
  const input = tools[0]!.types[0]!;
  const file = join(dir, `case-${index}.ts`);
  writeFileSync(
    file,
    `${text}
type Expected = ${test.expected};
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same: Same<${input}, Expected> = true;
type Param = Parameters<typeof codemode.probe>[0];
const required: undefined extends Param ? false : true = ${test.inputRequired ?? false};
export { same, required };
`,
  );
  return file;
}

describe("declarations mean exactly the schema", () => {
  it.each(CASES.map((c, i) => [c.name, i, c] as const))("%s", (_name, index, test) => {
    const file = checkFile(index, test);
    expect(dtsDiagnostics([file])).toEqual([]);
  });
});
