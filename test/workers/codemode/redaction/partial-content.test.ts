/**
 * A response cut into ranges must not carry a credential past redaction in pieces. Redaction
 * matches whole forms of a secret; an upstream that honours `Range` on a response echoing the
 * credential gave a program two halves that each passed, and the program joined them.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import type { ApiRequestHandler } from "../../../../src/codemode/request/api-request";
import { createMcpHandler } from "../../../../src/index";
import { CANARY, cloudflare } from "../cloudflare";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";
import { leakedForms } from "./leak-probe";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

/** Echoes the credential it got, and serves byte ranges of that answer as servers do. */
const ranged: ApiRequestHandler = (request) => {
  const echo = `{"authorization":"Bearer ${CANARY}"}`;
  const range = Object.entries(request.headers ?? {}).find(
    ([name]) => name.toLowerCase() === "range",
  )?.[1];
  const m = range ? /^bytes=(\d+)-(\d+)$/.exec(range) : null;
  if (!m) return new Response(echo, { headers: { "content-type": "text/plain" } });
  const [from, to] = [Number(m[1]), Number(m[2])];
  return new Response(echo.slice(from, to + 1), {
    status: 206,
    headers: {
      "content-type": "text/plain",
      "content-range": `bytes ${from}-${to}/${echo.length}`,
    },
  });
};

// Joined, then every character split by "|": the final redaction of results cannot undo that.
const HALVES = `async () => {
  try {
    const part = (range) => codemode.request({ method: "GET", path: "/zones", headers: { Range: range } });
    const joined = (await part("bytes=0-30")) + (await part("bytes=31-200"));
    return joined.split("").join("|");
  } catch (e) { return e.name + ": " + e.message; }
}`;

describe("partial responses", () => {
  it("a program cannot read an echoed credential in ranges", async () => {
    const client = await connect(
      createMcpHandler(
        openApiMcpServer({ spec: cloudflare, executor, request: ranged, secrets: [CANARY] }),
      ),
    );
    const result = await client.callTool({ name: "execute", arguments: { code: HALVES } });
    await client.close();
    const out = text(result);
    expect(leakedForms(out, [CANARY])).toEqual([]);
    expect(out).toMatch(/RequestRefusedError: .*"Range" header/);
  });
});
