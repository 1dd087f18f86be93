// A large API body is followed by a forced collection of the host's garbage
// (src/codemode/request/large-body-collection.ts), a binary one as a text one: a program reading
// 4 binary bodies of 4 MiB grew the host's workerd by ~100 MiB without it (issue #40,
// test/e2e/heavy-bodies.mjs with HEAVY_BODIES_KIND=random), with a credential or none.
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { toApiResult as ToApiResult } from "../../../../src/codemode/request/api-response";
import type { collectAfterLargeBody as CollectAfterLargeBody } from "../../../../src/codemode/request/large-body-collection";

vi.mock("../../../../src/codemode/request/large-body-collection", async (original) => ({
  ...(await original<typeof import("../../../../src/codemode/request/large-body-collection")>()),
  collectAfterLargeBody: vi.fn(() => false),
}));

const SECRET = "collection-test-secret-7d1e";

// The unit project shares one module registry between its files (`isolate: false`), so
// api-response may already be loaded with the real collection, which the mock above cannot
// replace: the modules are loaded afresh for this file (it passed alone and failed in the suite).
let toApiResult: typeof ToApiResult;
let collectAfterLargeBody: typeof CollectAfterLargeBody;
let COLLECT_AFTER_BYTES: number;
beforeAll(async () => {
  vi.resetModules();
  ({ toApiResult } = await import("../../../../src/codemode/request/api-response"));
  ({ collectAfterLargeBody, COLLECT_AFTER_BYTES } =
    await import("../../../../src/codemode/request/large-body-collection"));
});

describe("the collection after a large API body", () => {
  it.each([
    ["binary, a credential configured", "application/octet-stream", [SECRET]],
    ["binary, no credential", "application/octet-stream", []],
    ["text, a credential configured", "text/plain", [SECRET]],
  ])("is asked for after a body of %s", async (_label, type, secrets) => {
    vi.mocked(collectAfterLargeBody).mockClear();
    const body = new Uint8Array(COLLECT_AFTER_BYTES).fill(0x61);
    const result = await toApiResult(
      new Response(body, { headers: { "content-type": type } }),
      secrets,
    );
    expect(
      result.body instanceof Uint8Array ? result.body.byteLength : String(result.body).length,
    ).toBe(COLLECT_AFTER_BYTES);
    expect(vi.mocked(collectAfterLargeBody).mock.calls.map(([bytes]) => bytes)).toEqual([
      COLLECT_AFTER_BYTES,
    ]);
  });
});
