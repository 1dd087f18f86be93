/**
 * A compressed response must not carry a credential past redaction. workerd decodes `gzip` and
 * `br` responses but passes `deflate` on as it came, and redaction reads the bytes it is given: a
 * program that asked for `Accept-Encoding: deflate` got an echoed credential compressed, out of
 * sight, and inflated it inside the sandbox.
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

async function deflate(body: string): Promise<Uint8Array> {
  const stream = new Blob([body]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Answers like a server that negotiates content coding and echoes the credential it got. */
const negotiating: ApiRequestHandler = async (request) => {
  const echo = JSON.stringify({ authorization: `Bearer ${CANARY}` });
  const accepts = Object.entries(request.headers ?? {}).find(
    ([name]) => name.toLowerCase() === "accept-encoding",
  )?.[1];
  if (accepts?.includes("deflate"))
    return new Response(await deflate(echo), {
      headers: { "content-type": "application/octet-stream", "content-encoding": "deflate" },
    });
  return new Response(echo, { headers: { "content-type": "application/octet-stream" } });
};

/** Answers compressed whatever was asked (a server set to `deflate`, or a user's own callback). */
const alwaysDeflate: ApiRequestHandler = async () =>
  new Response(await deflate(JSON.stringify({ authorization: `Bearer ${CANARY}` })), {
    headers: { "content-type": "application/octet-stream", "content-encoding": "deflate" },
  });

/** A gzip body a callback built itself: no runtime decoded it. */
const undecodedGzip: ApiRequestHandler = async () => {
  const echo = JSON.stringify({ authorization: `Bearer ${CANARY}` });
  const stream = new Blob([echo]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Response(stream, {
    headers: { "content-type": "application/octet-stream", "content-encoding": "gzip" },
  });
};

/** UTF-32LE bytes of a text (no TextEncoder for it). */
function utf32(value: string): Uint8Array {
  const out = new Uint8Array(value.length * 4);
  for (let i = 0; i < value.length; i++) out[i * 4] = value.charCodeAt(i);
  return out;
}

/** Answers in the charset asked for, as servers that negotiate `Accept-Charset` do. */
const charsets: ApiRequestHandler = (request) => {
  const echo = JSON.stringify({ authorization: `Bearer ${CANARY}` });
  const wants = Object.entries(request.headers ?? {}).find(
    ([name]) => name.toLowerCase() === "accept-charset",
  )?.[1];
  return wants === "utf-32"
    ? new Response(utf32(echo), { headers: { "content-type": "text/plain; charset=utf-32" } })
    : new Response(echo, { headers: { "content-type": "text/plain; charset=utf-8" } });
};

async function run(code: string, request: ApiRequestHandler = negotiating) {
  const factory = openApiMcpServer({
    spec: cloudflare,
    executor,
    request,
    secrets: [CANARY],
  });
  const client = await connect(createMcpHandler(factory));
  const result = await client.callTool({ name: "execute", arguments: { code } });
  await client.close();
  return text(result);
}

// Returned with every character split by "|": the final redaction of results cannot undo that,
// so only a credential that never entered the sandbox stays hidden.
const INFLATE = `async () => {
  try {
    const res = await codemode.request({
      method: "GET", path: "/zones", headers: { "Accept-Encoding": "deflate" }, response: "full",
    });
    const stream = new Blob([res.body]).stream().pipeThrough(new DecompressionStream("deflate"));
    const plain = await new Response(stream).text();
    return plain.split("").join("|");
  } catch (e) { return e.name + ": " + e.message; }
}`;

describe("content coding is the host's choice", () => {
  it("a program cannot ask for a compressed echo of the credential", async () => {
    const out = await run(INFLATE);
    expect(leakedForms(out, [CANARY])).toEqual([]);
    expect(out).toMatch(/RequestRefusedError: .*"Accept-Encoding"/);
  });

  it.each([
    ["deflate", alwaysDeflate],
    ["gzip", undecodedGzip],
  ] as const)(
    "a body still compressed (%s) is withheld, not passed on",
    async (coding, handler) => {
      const code = INFLATE.replace(', headers: { "Accept-Encoding": "deflate" }', "")
        .replace(
          "const stream",
          `if (typeof res.body === "string") return res.body;
    const stream`,
        )
        .replace('new DecompressionStream("deflate")', `new DecompressionStream("${coding}")`);
      const out = await run(code, handler);
      expect(leakedForms(out, [CANARY])).toEqual([]);
      expect(out).toContain(
        `[response body withheld: it came compressed (Content-Encoding: ${coding})`,
      );
    },
  );

  it("a program cannot ask for the credential's echo in a charset redaction does not read", async () => {
    const out = await run(
      `async () => {
        try {
          const body = await codemode.request({
            method: "GET", path: "/zones", headers: { "Accept-Charset": "utf-32" },
          });
          return body.replace(/\\0/g, "").split("").join("|");
        } catch (e) { return e.name + ": " + e.message; }
      }`,
      charsets,
    );
    expect(leakedForms(out, [CANARY])).toEqual([]);
    expect(out).toMatch(/RequestRefusedError: .*"Accept-Charset"/);
  });
});
