/**
 * The schemas found declared wrongly in review (issue #16) and one per 2020-12/draft-07 keyword
 * that has a TypeScript meaning, each with the input type it must mean. Shared by the exactness
 * test (one program per case, readable failures) and the corpus test (all in one program).
 */

import type { Case } from "./listed-case";
import { VOCABULARY_CASES } from "./vocabulary-cases";

export type { Case } from "./listed-case";

/** The listed cases: the review's finds, then the vocabulary. */
export const CASES: Case[] = [
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
    name: "properties named __proto__, constructor and prototype are real properties",
    // JSON.parse: in an object literal, `__proto__:` would set the prototype, not a property.
    schema: JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"},"prototype":{"type":"boolean"}},"required":["__proto__","prototype"]}',
    ),
    expected: '{ "__proto__": string; constructor?: number; prototype: boolean }',
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
  ...VOCABULARY_CASES,
];
