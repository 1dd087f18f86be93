// A parsed JSON body walked for the secrets in slices (issue #40): when a secret holds a
// character that starts an escape (`%&\=`, e.g. a Basic credential's `=`), a JSON answer's parsed
// strings are searched again; one synchronous `redactor.data` walk over 4 MB of them held the host
// thread 0.4–0.6 s (one long string) to 12.8 s (700,000 short ones).
import { afterEach, describe, expect, it, vi } from "vitest";
import { secretRedactor } from "../../../../src/codemode/redaction/redaction";
import { SLICED_BODY, toApiResult } from "../../../../src/codemode/request/api-response";

const secrets = Object.freeze([
  "Basic dXNlcjpwYXNzd29yZA==",
  "dXNlcjpwYXNzd29yZA==",
  "user:password",
]);
const redactor = secretRedactor(secrets);

/** Values as a parsed body (and a few a data value may hold besides), with copies inside. */
const values: Record<string, unknown> = {
  "a long string": { a: `${"%2541\\x".repeat(20_000)}user:password` },
  "many short strings": Array.from({ length: 5_000 }, (_, i) =>
    i % 97 === 0 ? "user:password" : `a\\${i % 10}`,
  ),
  "keys and nesting": { "user:password": { b: [{ c: "dXNlcjpwYXNzd29yZA==" }, 12, null, true] } },
  "maps, sets, dates and bytes": new Map<unknown, unknown>([
    ["user:password", new Set(["x", "user:password"])],
    ["d", new Date(0)],
    ["b", new TextEncoder().encode("user:password")],
  ]),
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe("data in slices", () => {
  it.each(Object.entries(values))("makes the copy data makes: %s", async (_, value) => {
    const clean = await redactor.dataInSlices(value, async () => {});
    expect(clean).toEqual(redactor.data(value));
    expect(clean).not.toEqual(value);
  });

  // Clean, the copy would be the value itself: it is not made (its walk was one more unsliced
  // pass). Nesting past the copy's depth, or bytes, still get the copy data makes.
  it("hands a clean value back as it is, unless the copy would mark or search more", async () => {
    const clean = { a: ["x\\y", 12, { b: null, c: true }] };
    expect(await redactor.dataInSlices(clean, async () => {})).toBe(clean);
    let deep: unknown = "x";
    for (let i = 0; i < 250; i++) deep = { d: deep };
    const marked = await redactor.dataInSlices(deep, async () => {});
    expect(marked).toEqual(redactor.data(deep));
    expect(JSON.stringify(marked)).toContain("[Too deep]");
    const bytes = { b: new TextEncoder().encode("user:password") };
    expect(await redactor.dataInSlices(bytes, async () => {})).toEqual(redactor.data(bytes));
    expect(redactor.data(bytes)).not.toEqual(bytes);
  });

  it("pauses through many short strings", async () => {
    const value = Array.from({ length: 100_000 }, (_, i) => `v${i % 5_000}\\n`);
    let pauses = 0;
    const clean = await redactor.dataInSlices(value, async () => {
      pauses++;
    });
    expect(clean).toBe(value);
    expect(pauses).toBeGreaterThan(4);
  });

  it("walks a large JSON answer's strings in slices when a secret holds an escape character", async () => {
    expect(redactor.escapable).toBe(true);
    const body = JSON.stringify({
      a: "%2541\\n".repeat(SLICED_BODY / 4),
      echo: "user\\u003apassword",
    });
    const whole = vi.spyOn(redactor, "data");
    const sliced = vi.spyOn(redactor, "dataInSlices");
    const result = await toApiResult(
      new Response(body, { headers: { "content-type": "application/json" } }),
      secrets,
    );
    // Before, one synchronous walk: `data` over the whole parsed body.
    expect(whole).not.toHaveBeenCalled();
    expect(sliced).toHaveBeenCalledOnce();
    expect(result.body).toEqual(redactor.data(JSON.parse(body)));
    expect(JSON.stringify(result.body)).not.toContain("user:password");
  });
});
