/**
 * One listed case per 2020-12 / draft-07 keyword with a TypeScript meaning (and the documented
 * approximations), plus the corpus's own finds; see exactness-cases.ts.
 */
import type { Case } from "./listed-case";

/** The vocabulary cases. */
export const VOCABULARY_CASES: Case[] = [
  {
    name: "not is a documented approximation: the declaration ignores it",
    schema: { type: "object", properties: { a: { type: "string", not: { const: "x" } } } },
    expected: "{ a?: string }",
  },
  {
    name: "if/then/else is a documented approximation: the declaration ignores it",
    schema: {
      type: "object",
      properties: { kind: { enum: ["a", "b"] }, x: { type: "number" } },
      // JSON.parse: a `then` key in an object literal would make it a thenable.
      ...JSON.parse('{"if":{"properties":{"kind":{"const":"a"}}},"then":{"required":["x"]}}'),
    },
    expected: '{ kind?: "a" | "b"; x?: number }',
  },
  {
    name: "dependentRequired is a documented approximation: both keys stay optional",
    schema: {
      type: "object",
      properties: { card: { type: "string" }, billing: { type: "string" } },
      dependentRequired: { card: ["billing"] },
    },
    expected: "{ card?: string; billing?: string }",
  },
  {
    name: "patternProperties with additionalProperties: false types every key",
    schema: {
      type: "object",
      patternProperties: { "^x-": { type: "string" } },
      additionalProperties: false,
    },
    expected: "{ [k: string]: string }",
  },
  {
    name: "patternProperties alone leave keys matching no pattern unconstrained",
    schema: { type: "object", patternProperties: { "^n_": { type: "number" } } },
    expected: "{ [k: string]: unknown }",
  },
  {
    name: "propertyNames is a documented approximation: keys are strings",
    schema: {
      type: "object",
      propertyNames: { pattern: "^[a-z]+$" },
      additionalProperties: { type: "number" },
    },
    expected: "{ [k: string]: number }",
  },
  {
    name: "propertyNames listing the keys declares exactly those keys",
    schema: {
      type: "object",
      properties: { a: { type: "string" }, z: { type: "string" } },
      propertyNames: { enum: ["a", "b"] },
      additionalProperties: { type: "number" },
    },
    expected: "{ a?: string; z?: never; b?: number }",
  },
  {
    name: "a required key only additionalProperties describes holds its type",
    schema: { type: "object", required: ["a"], additionalProperties: { type: "number" } },
    expected: "{ a: number; [k: string]: number }",
    inputRequired: true,
  },
  {
    name: "enum values the type refuses are left out",
    schema: {
      type: "object",
      properties: {
        mode: { type: "string", enum: ["a", "b", null, 1] },
        level: { type: "integer", enum: [1, 1.5, "2"] },
      },
    },
    expected: '{ mode?: "a" | "b"; level?: 1 }',
  },
  {
    name: "small minItems/maxItems are tuple shapes",
    schema: {
      type: "object",
      properties: {
        some: { type: "array", items: { type: "string" }, minItems: 1 },
        few: { type: "array", items: { type: "number" }, minItems: 1, maxItems: 3 },
      },
      required: ["some", "few"],
    },
    expected: "{ some: [string, ...string[]]; few: [number, number?, number?] }",
    inputRequired: true,
  },
  {
    name: "contains is a documented approximation: the items' type stays",
    schema: { type: "array", items: { type: "number" }, contains: { const: 5 } },
    expected: "number[]",
  },
  {
    name: "unevaluatedItems: false closes a tuple",
    schema: { type: "array", prefixItems: [{ type: "string" }], unevaluatedItems: false },
    expected: "[string?]",
  },
  {
    name: "unevaluatedProperties with a schema types the undeclared keys",
    schema: {
      type: "object",
      properties: { id: { type: "string" } },
      required: ["id"],
      unevaluatedProperties: { type: "number" },
    },
    expected: "{ id: string; [k: string]: string | number }",
    inputRequired: true,
  },
  {
    name: "readOnly properties are readonly",
    schema: {
      type: "object",
      properties: { id: { type: "string", readOnly: true }, note: { type: "string" } },
    },
    expected: "{ readonly id?: string; note?: string }",
    emits: "readonly id?: string;",
  },
  {
    name: "recursive $defs",
    schema: {
      $ref: "#/$defs/Node",
      $defs: {
        Node: {
          type: "object",
          properties: {
            value: { type: "number" },
            children: { type: "array", items: { $ref: "#/$defs/Node" } },
          },
          required: ["value"],
        },
      },
    },
    expectedTypes: "interface ExpNode { value: number; children?: ExpNode[] }",
    expected: "ExpNode",
    inputRequired: false,
  },
  {
    name: "mutually recursive $defs",
    schema: {
      type: "object",
      properties: { root: { $ref: "#/$defs/A" } },
      required: ["root"],
      $defs: {
        A: { type: "object", properties: { b: { $ref: "#/$defs/B" } } },
        B: { type: "object", properties: { a: { $ref: "#/$defs/A" } }, required: ["a"] },
      },
    },
    expectedTypes: "interface ExpA { b?: ExpB } interface ExpB { a: ExpA }",
    expected: "{ root: ExpA }",
    inputRequired: true,
  },
  {
    name: "$ref to an $id-named schema and to an $anchor",
    schema: {
      $id: "https://example.com/tool.json",
      type: "object",
      properties: { node: { $ref: "node.json" }, tag: { $ref: "#tag" } },
      required: ["node"],
      $defs: {
        n: {
          $id: "node.json",
          type: "object",
          properties: { v: { type: "number" } },
          required: ["v"],
        },
        t: { $anchor: "tag", enum: ["a", "b"] },
      },
    },
    expected: '{ node: { v: number }; tag?: "a" | "b" }',
    inputRequired: true,
  },
  {
    name: "boolean schemas: true is anything, false is nothing",
    schema: {
      type: "object",
      properties: { any: true, none: false },
      additionalProperties: false,
    },
    expected: "{ any?: unknown; none?: never }",
  },
  {
    name: "required keys in oneOf branches beside type object",
    schema: {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      oneOf: [{ required: ["a"] }, { required: ["b"] }],
    },
    expected: "{ a: string; b?: number } | { a?: string; b: number }",
  },
  {
    name: "type string beside anyOf branches with no type stays string",
    schema: { type: "string", anyOf: [{ maxLength: 2 }, { minLength: 4 }] },
    expected: "string",
  },
  {
    name: "an optional property beside a typed additionalProperties compiles",
    schema: {
      type: "object",
      properties: { foo: { type: "string" } },
      additionalProperties: { type: "string" },
    },
    expected: "{ foo?: string; [k: string]: string | undefined }",
  },
];
