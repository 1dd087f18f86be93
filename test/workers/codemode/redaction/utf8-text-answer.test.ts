/**
 * A UTF-8 text answer's bytes are not read as UTF-8 by the byte search (its decoded text is that
 * reading, searched as text: src/codemode/request/api-response.ts); in workerd, through a real
 * program, a credential spelled full-width or as byte-swapped UTF-16 in a CJK JSON answer must
 * still never reach the program, which folds and unswaps everything it gets.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import type { ApiRequestHandler } from "../../../../src/codemode/request/api-request";
import { utf8Work } from "../../../../src/codemode/redaction/decoding/utf8-bytes-view";
import { createMcpHandler } from "../../../../src/index";
import { CANARY, cloudflare } from "../cloudflare";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";
import { leakedForms } from "./leak-probe";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

const fullWidth = (s: string) =>
  [...s].map((c) => String.fromCharCode(c.charCodeAt(0) - 0x20 + 0xff00)).join("");
const swapped = (s: string) =>
  [...s].map((c) => String.fromCharCode(c.charCodeAt(0) << 8)).join("");

/** An API answering CJK JSON in UTF-8 that echoes the credential spelled as given. */
const echoing =
  (spelled: string, type: string): ApiRequestHandler =>
  () =>
    new Response(`{"名前":"東京都千代田区","token":"${spelled}","説明":"中文"}`, {
      headers: { "content-type": type },
    });

// Folds full-width letters (NFKC), reads byte-swapped UTF-16 back, and returns it all split by
// "|": the final redaction of results cannot undo that.
const UNFOLD = `async () => {
  let got;
  try { got = JSON.stringify(await codemode.request({ method: "GET", path: "/zones" })); }
  catch (e) { got = String(e.message); }
  const unswapped = [...got].map((c) => String.fromCharCode(c.charCodeAt(0) >> 8 || c.charCodeAt(0))).join("");
  return [got.normalize("NFKC"), unswapped].join(" ").split("").join("|");
}`;

// Reads the answer's UTF-8 bytes as windows-1252 and compacts that (NFKC, whitespace dropped):
// `ゲ` (E3 82 B2) becomes `ã‚2`, so `ゲxq7…` spells `2xq7…`.
const REREAD = `async () => {
  let got;
  try { got = JSON.stringify(await codemode.request({ method: "GET", path: "/zones" })); }
  catch (e) { got = String(e.message); }
  const reread = new TextDecoder("windows-1252").decode(new TextEncoder().encode(got));
  return [got, reread.normalize("NFKC").replace(/\\s/g, "")].join(" ").split("").join("|");
}`;

async function run(request: ApiRequestHandler, secrets = [CANARY], code = UNFOLD) {
  const factory = openApiMcpServer({ spec: cloudflare, executor, request, secrets });
  const client = await connect(createMcpHandler(factory));
  const before = utf8Work.positions;
  const result = await client.callTool({ name: "execute", arguments: { code } });
  const read = utf8Work.positions - before;
  await client.close();
  return { out: text(result), read };
}

describe("a UTF-8 text answer with a spelled credential, bytes not read as UTF-8", () => {
  it.each([
    ["full-width letters", fullWidth(CANARY)],
    ["byte-swapped UTF-16", swapped(CANARY)],
  ])("%s never reach the program", async (_, spelled) => {
    for (const type of ["application/json; charset=utf-8", "application/json"]) {
      const { out, read } = await run(echoing(spelled, type));
      expect(leakedForms(out, [CANARY])).toEqual([]);
      expect(out).toContain("R|E|D|A|C|T|E|D");
      expect(out).toContain("東|京");
      expect(read).toBe(0);
    }
  });

  it("a latin1-declared answer holding the UTF-8 spelling keeps the reading", async () => {
    const { out, read } = await run(echoing(fullWidth(CANARY), "text/plain; charset=iso-8859-1"));
    expect(leakedForms(out, [CANARY])).toEqual([]);
    expect(read).toBeGreaterThan(0);
  });
});

describe("a credential only the bytes' compaction reads, in a UTF-8 CJK answer (hostile)", () => {
  // windows-1252 shows the byte 0x82 as `‚` (not read as UTF-8) and 0xB2 as `²`, which folds to
  // `2`: no view of the answer's text holds `2xq7…`, its bytes' compact view does
  // (test/unit/codemode/redaction/decoding/cjk-byte-spellings.test.ts has more such characters).
  it("never reaches a program that reads the bytes as windows-1252", async () => {
    const secret = "2xq7Lm9PzkR4";
    const { out } = await run(
      echoing("ゲxq7Lm9PzkR4", "application/json; charset=utf-8"),
      [secret],
      REREAD,
    );
    expect(leakedForms(out, [secret])).toEqual([]);
    expect(out).toContain("東|京");
  });
});
