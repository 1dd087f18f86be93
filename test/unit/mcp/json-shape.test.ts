// The shape of a request body, read before its parse (src/mcp/common/json-shape.ts, issue #40):
// a client chooses how many values a body holds and the parse builds every one of them, so the
// host refuses a body past the limits unparsed. Edge values here: at a limit accepted, one past
// it refused; and the pass agrees with JSON.parse on what it counts.
import { describe, expect, it } from "vitest";
import {
  exceedsJsonShape,
  JSON_SHAPE_LIMITS,
  jsonShape,
  jsonShapeRefusal,
  MAX_ID_CHARS,
  MAX_IDS,
} from "../../../src/mcp/common/json-shape";

/** A tools/call whose `arguments` are `args` (JSON text), id 7. */
const call = (args: string) =>
  `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":${args}}}`;
/** Arrays nested `levels` deep. */
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

/** Every value and key of a parsed value, and its depth, counted the slow way. */
function counted(value: unknown): { depth: number; items: number } {
  if (Array.isArray(value)) {
    const inner = value.map(counted);
    return {
      depth: 1 + Math.max(0, ...inner.map((c) => c.depth)),
      items: 1 + inner.reduce((sum, c) => sum + c.items, 0),
    };
  }
  if (value !== null && typeof value === "object") {
    const inner = Object.values(value).map(counted);
    return {
      depth: 1 + Math.max(0, ...inner.map((c) => c.depth)),
      items: 1 + inner.length + inner.reduce((sum, c) => sum + c.items, 0),
    };
  }
  return { depth: 0, items: 1 };
}

describe("jsonShape", () => {
  it("counts depth, values and keys as a parse would build them", () => {
    const bodies = [
      call('{"code":"async () => 1"}'),
      call(`{"code":${nested(5)},"n":[1,-2.5e3,true,false,null,"x\\"]{["]}`),
      '  [ {"jsonrpc":"2.0","id":"a","method":"ping"} , 3, "s", {"x":{"y":[{}]}} ]  ',
      '"just a string with [ and { inside"',
      "12345",
      '{"a\\\\":"b\\\\","c":"\\\\\\"","d":[]}',
    ];
    for (const body of bodies) {
      const { depth, items, batch } = jsonShape(body);
      expect(batch, body).toBe(Array.isArray(JSON.parse(body)));
      expect({ depth, items }, body).toEqual(counted(JSON.parse(body)));
    }
  });

  it("finds each top-level message's id, not ids nested in params", () => {
    expect(jsonShape(call('{"id":99}')).ids).toEqual([7]);
    expect(
      jsonShape(
        '[{"method":"x","params":{"id":5},"id":"a\\"b"},{"id":3,"p":[{"id":9}]},5,{"x":{"id":1}},{"id":null}]',
      ).ids,
    ).toEqual(['a"b', 3]);
    expect(jsonShape('{"method":"id","params":"id"}').ids).toEqual([]);
    expect(jsonShape('{"\\u0069d":4,"method":"x"}').ids).toEqual([4]);
  });

  it("keeps the id JSON.parse keeps: the last, and none when that is no string or number", () => {
    // Each body's last id is not one to echo: the answer's id is null, not the earlier 1.
    for (const last of ["null", "true", "{}", "[1]", "1e400", "0x10", "+1", ".5", "01"])
      expect(jsonShape(`{"id":1,"id":${last}}`).ids, last).toEqual([]);
    expect(jsonShape('{"id":[1],"id":-2.5e1}').ids).toEqual([-25]);
    expect(jsonShape('{"id":"a","id":"b"}').ids).toEqual(["b"]);
  });

  it(`echoes at most ${MAX_IDS} ids: past that, none (one error with id null)`, () => {
    const batch = (n: number) =>
      `[${Array.from({ length: n }, (_, i) => `{"id":${i}}`).join(",")}]`;
    expect(jsonShape(batch(MAX_IDS)).ids).toHaveLength(MAX_IDS);
    // A 4 MB batch of 440,000 ids was answered with 121 MB, one error per id.
    expect(jsonShape(batch(MAX_IDS + 1))).toMatchObject({ ids: [], batch: true });
  });

  it(`measures the longest string id, and keeps none past ${MAX_ID_CHARS} characters to echo`, () => {
    const at = "a".repeat(MAX_ID_CHARS);
    expect(jsonShape(`{"id":"${at}"}`)).toMatchObject({ ids: [at], longestId: MAX_ID_CHARS });
    // One past: measured, never echoed (a 3 MiB id was parsed, kept and echoed whole).
    expect(jsonShape(`{"id":"${at}b"}`)).toMatchObject({ ids: [], longestId: MAX_ID_CHARS + 1 });
    // As JSON.parse decodes it: 257 escapes of 6 characters are 257 characters.
    expect(jsonShape(`{"id":"${"\\u0061".repeat(MAX_ID_CHARS + 1)}"}`).longestId).toBe(
      MAX_ID_CHARS + 1,
    );
    expect(jsonShape(`[{"id":1},{"id":"${at}bc"},{"id":"x"}]`)).toMatchObject({
      ids: [1, "x"],
      longestId: MAX_ID_CHARS + 2,
    });
    // Only the id JSON.parse keeps (the last), and only a top-level message's.
    expect(jsonShape(`{"id":"${at}b","id":2}`)).toMatchObject({ ids: [2], longestId: 0 });
    expect(jsonShape(`{"id":3,"params":{"id":"${at}b"}}`).longestId).toBe(0);
    expect(jsonShape(`{"id":1${"0".repeat(MAX_ID_CHARS)}}`).longestId).toBe(0);
  });

  it("counts what a parse would build before failing, valid JSON or not", () => {
    expect(jsonShape(`${nested(100)}x`).depth).toBe(100);
    expect(jsonShape('{"a":"unterminated').items).toBe(3);
  });
});

describe("the shape limits", () => {
  const { depth, items } = JSON_SHAPE_LIMITS;

  it(`takes a body nested ${depth} deep and refuses one ${depth + 1} deep`, () => {
    // The message's own object, params and arguments are three of the levels.
    expect(exceedsJsonShape(jsonShape(call(`{"a":${nested(depth - 3)}}`)))).toBeUndefined();
    expect(exceedsJsonShape(jsonShape(call(`{"a":${nested(depth - 2)}}`)))).toEqual({
      limit: "depth",
      found: depth + 1,
      max: depth,
    });
  });

  it(`takes ${items} values and keys and refuses ${items + 1}`, () => {
    // A bare array of n zeros: the array and its n elements.
    const zeros = (n: number) => `[${"0,".repeat(n - 1)}0]`;
    expect(exceedsJsonShape(jsonShape(zeros(items - 1)))).toBeUndefined();
    expect(exceedsJsonShape(jsonShape(zeros(items)))).toEqual({
      limit: "items",
      found: items + 1,
      max: items,
    });
    // Keys count: an object of n members is 1 + 2n items (the largest taken: n = 49,999).
    const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(",")}}`;
    const most = Math.floor((items - 1) / 2);
    expect(exceedsJsonShape(jsonShape(keys(most)))).toBeUndefined();
    expect(exceedsJsonShape(jsonShape(keys(most + 1)))?.limit).toBe("items");
  });

  it("refuses the reviewers' bodies: 1.9 million levels, 200,000 keys in one object", () => {
    const deep = jsonShape(call(`{"code":${nested(1_900_000)}}`));
    expect(exceedsJsonShape(deep)?.limit).toBe("depth");
    expect(deep.ids).toEqual([7]);
    const wide = `{"code":"x","extra":{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":0`).join(",")}}}`;
    expect(exceedsJsonShape(jsonShape(call(wide)))?.limit).toBe("items");
  });

  it("says which limit, what was found and what to do", () => {
    expect(jsonShapeRefusal({ limit: "depth", found: 1_900_003, max: 64 })).toMatch(
      /nests 1,900,003 levels deep; this server takes at most 64 .*Send the data with less nesting/,
    );
    expect(jsonShapeRefusal({ limit: "items", found: 400_005, max: 100_000 })).toMatch(
      /holds 400,005 values and object keys; this server takes at most 100,000 .*split the data over several requests/,
    );
  });
});
