// The tools' input schema converts to JSON Schema once (src/codemode/code-input.ts): the SDK
// asks for it per server, and servers are built per request.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CODE_INPUT, stableJsonSchema } from "../../../src/codemode/code-input";

describe("stableJsonSchema", () => {
  it("answers each direction and target with one frozen object, equal to zod's own", () => {
    const fresh = z.object({ code: z.string().describe("x") });
    const own = fresh["~standard"].jsonSchema.input({ target: "draft-2020-12" });
    const stable = stableJsonSchema(z.object({ code: z.string().describe("x") }));
    const first = stable["~standard"].jsonSchema.input({ target: "draft-2020-12" });
    expect(first).toEqual(own);
    expect(stable["~standard"].jsonSchema.input({ target: "draft-2020-12" })).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen((first as { properties: object }).properties)).toBe(true);
    const draft7 = stable["~standard"].jsonSchema.input({ target: "draft-07" });
    expect(draft7).not.toBe(first);
    expect(draft7).toEqual(fresh["~standard"].jsonSchema.input({ target: "draft-07" }));
    expect(stable["~standard"].jsonSchema.output({ target: "draft-2020-12" })).not.toBe(first);
  });

  it("still validates as the schema does", () => {
    expect(CODE_INPUT["~standard"].validate({ code: "async () => 1" })).toEqual({
      value: { code: "async () => 1" },
    });
    expect(CODE_INPUT["~standard"].validate({ code: 1 })).toHaveProperty("issues");
    expect(CODE_INPUT.parse({ code: "x" })).toEqual({ code: "x" });
  });
});
