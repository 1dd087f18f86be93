/**
 * The front's `MCP_API_KEY` check (cli/local-server/front/front-api-key.mjs) against the Worker's own
 * (src/app/api-key.ts rendered by src/app/errors/http-error.ts): for the same headers, the same
 * verdict and the same answer (status, headers, body), so a client cannot tell which refused it.
 */
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { apiKeyCheck } from "../../../../cli/local-server/front/front-api-key.mjs";
import { checkApiKey } from "../../../../src/app/api-key";
import { renderHttpError } from "../../../../src/app/errors/http-error";

const KEY = "the-servers-key-0123456789";

/** workerd's `crypto.subtle.timingSafeEqual`, which Node lacks, for the Worker's check here. */
function withTimingSafeEqual(): void {
  const subtle = crypto.subtle as unknown as {
    timingSafeEqual?: (a: ArrayBuffer, b: ArrayBuffer) => boolean;
  };
  subtle.timingSafeEqual ??= (a: ArrayBuffer, b: ArrayBuffer) => {
    const x = new Uint8Array(a);
    const y = new Uint8Array(b);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  };
}

/** What the Worker answers for these headers: undefined when the key passes. */
async function workerAnswer(headers: [string, string][]) {
  withTimingSafeEqual();
  try {
    await checkApiKey(new Request("http://localhost/mcp", { method: "POST", headers }), KEY);
    return undefined;
  } catch (error) {
    const response = renderHttpError(error);
    return {
      status: response.status,
      headers: Object.fromEntries(
        [...response.headers].filter(([name]) => name !== "content-type"),
      ),
      body: await response.json(),
    };
  }
}

/** What the front answers for these headers. */
function frontAnswer(headers: [string, string][]) {
  const refused = apiKeyCheck(KEY)({ rawHeaders: headers.flat() } as unknown as IncomingMessage);
  return (
    refused && { status: refused.status, headers: refused.headers, body: { error: refused.error } }
  );
}

describe("the front's API key check", () => {
  const cases: [string, [string, string][]][] = [
    ["no Authorization", []],
    ["the key", [["Authorization", `Bearer ${KEY}`]]],
    ["the key, scheme in lower case and spaces around", [["authorization", `bearer   ${KEY}  `]]],
    ["a wrong key", [["Authorization", `Bearer ${KEY}x`]]],
    ["a prefix of the key", [["Authorization", `Bearer ${KEY.slice(0, 10)}`]]],
    ["the key as Basic", [["Authorization", `Basic ${KEY}`]]],
    ["Bearer alone", [["Authorization", "Bearer "]]],
    ["the key without a scheme", [["Authorization", KEY]]],
    ["the key in x-api-key (not a header the Worker reads)", [["x-api-key", KEY]]],
    [
      "two Authorization headers, the first the key",
      [
        ["Authorization", `Bearer ${KEY}`],
        ["Authorization", "Bearer other"],
      ],
    ],
  ];
  for (const [name, headers] of cases)
    it(`answers as the Worker does: ${name}`, async () => {
      expect(frontAnswer(headers)).toEqual(await workerAnswer(headers));
    });

  it("passes the key and refuses the rest (the cases above are not all alike)", () => {
    const verdicts = cases.map(([, headers]) => frontAnswer(headers)?.status ?? 200);
    expect(verdicts).toEqual([401, 200, 200, 401, 401, 401, 401, 401, 401, 401]);
  });
});
