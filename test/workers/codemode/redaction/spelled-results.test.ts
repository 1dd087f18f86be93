/**
 * The second line (issue #41): a program that got hold of the credential anyway (here in two
 * halves from two responses, information split across responses, which no reading of one body
 * can catch) spells it out before sending it on: full-width, one space or U+200B between the
 * characters, as character codes (a list, a JSON array, an array of numeric strings), ROT13, hex
 * bytes with spaces or `0x` bytes back to back, bits without prefix, Unicode tag characters, a
 * Caesar shift, octal bytes or escapes, `U+` code points, Atbash, UTF-16 percent-encoded or with a
 * NUL after each character, base64 of UTF-16 percent-encoded, UTF-16BE read as little-endian.
 * None of
 * them may reach the client's result, the run record (what `/api/runs` serves) or the server's
 * console, through the return value, `console.log` or a thrown error. Runs on both executors.
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { openApiMcpServer } from "../../../../src/codemode/openapi-mcp-server";
import type { RunRecord } from "../../../../src/codemode/runs/run-record";
import { createMcpHandler } from "../../../../src/index";
import { captureConsole } from "../../../helpers/console-capture";
import { ECHO_SECRET, holds } from "../../../helpers/redaction/credential-echoes";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { connect } from "../../../helpers/clients/mcp-client";
import { text } from "../../../helpers/clients/tool-result";

/** What a reader would do to each spelling to read the credential back. */
const READINGS: Record<string, (t: string) => string> = {
  "as it is": (t) => t,
  "NFKC (full-width)": (t) => t.normalize("NFKC"),
  "without spaces": (t) => t.replace(/\s+/g, ""),
  "without U+200B": (t) => t.replace(/\u200b/g, ""),
  "char codes": (t) =>
    t.replace(/\d{1,7}(?:[\s,]+\d{1,7}){7,}/g, (run) =>
      String.fromCodePoint(...(run.match(/\d+/g) ?? []).map(Number)),
    ),
  "hex bytes": (t) =>
    t.replace(/[0-9a-f]{2}(?: [0-9a-f]{2}){7,}/gi, (run) =>
      String.fromCharCode(...run.split(" ").map((h) => Number.parseInt(h, 16))),
    ),
  "tag characters as ASCII": (t) =>
    t.replace(/[\u{e0020}-\u{e007e}]/gu, (c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000)),
  "char codes without quotes": (t) =>
    t
      .replace(/"/g, "")
      .replace(/\d{1,7}(?:[\s,]+\d{1,7}){7,}/g, (run) =>
        String.fromCodePoint(...(run.match(/\d+/g) ?? []).map(Number)),
      ),
  "0x bytes back to back": (t) =>
    t.replace(/(?:0x[0-9a-f]{2}){8,}/gi, (run) =>
      String.fromCharCode(
        ...(run.match(/[0-9a-f]{2}(?=0x|$)/gi) ?? []).map((h) => Number.parseInt(h, 16)),
      ),
    ),
  "bits without prefix": (t) =>
    t.replace(/[01]{6,8}(?: [01]{6,8}){7,}/g, (run) =>
      String.fromCharCode(...run.split(" ").map((b) => Number.parseInt(b, 2))),
    ),
  "Caesar shift back by 3": (t) =>
    t.replace(/[a-z]/gi, (c) => {
      const base = c <= "Z" ? 65 : 97;
      return String.fromCharCode(((c.charCodeAt(0) - base + 23) % 26) + base);
    }),
  "octal bytes": (t) =>
    t.replace(/[0-7]{2,3}(?: [0-7]{2,3}){7,}/g, (run) =>
      String.fromCharCode(...run.split(" ").map((o) => Number.parseInt(o, 8))),
    ),
  "octal escapes": (t) =>
    t
      .replaceAll("\\\\", "\\")
      .replace(/\\([0-7]{1,3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8))),
  "code points": (t) =>
    t.replace(/U\+([0-9a-f]{2,6}) ?/gi, (_, h: string) =>
      String.fromCodePoint(Number.parseInt(h, 16)),
    ),
  Atbash: (t) =>
    t.replace(/[a-z]/gi, (c) => {
      const base = c <= "Z" ? 65 : 97;
      return String.fromCharCode(base + 25 - (c.charCodeAt(0) - base));
    }),
  // UTF-16 under an encoding: `%74%00%6f%00…`, `t\u0000o\u0000…` once NULs are dropped.
  "percent-decoded, NULs dropped": (t) =>
    t
      .replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
      .replace(/\0/g, ""),
  "JSON NUL escapes dropped": (t) => t.replaceAll("\\u0000", "").replace(/\0/g, ""),
  // Three layers: base64 of the UTF-16 bytes percent-encoded (`btoa("%74%00%6f%00…")`).
  "base64 decoded, percent-decoded, NULs dropped": (t) =>
    t
      .replace(/[A-Za-z0-9+/]{16,}={0,2}/g, (run) => {
        try {
          return atob(run);
        } catch {
          return run;
        }
      })
      .replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
      .replace(/\0/g, ""),
  // UTF-16BE decoded as little-endian: `t` is U+7400.
  "byte-swapped UTF-16 read back": (t) =>
    t.replace(/[\u0100-\uff00]/g, (c) =>
      (c.charCodeAt(0) & 0xff) === 0 ? String.fromCharCode(c.charCodeAt(0) >> 8) : c,
    ),
  ROT13: (t) =>
    t.replace(/[a-z]/gi, (c) => {
      const base = c <= "Z" ? 65 : 97;
      return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
    }),
};

/** Which readings give the credential back from a text (empty when none). */
const recovered = (output: string) =>
  Object.entries(READINGS)
    .filter(([, read]) => holds(read(output), ECHO_SECRET))
    .map(([name]) => name);

const SPEC = {
  openapi: "3.0.3",
  info: { title: "Halves", version: "1" },
  paths: {
    "/half/{index}": {
      get: {
        operationId: "half",
        parameters: [{ name: "index", in: "path", required: true, schema: { type: "integer" } }],
        responses: { "200": { description: "one half of what you sent" } },
      },
    },
  },
};

/** Reassembles the credential, then sends it out in every spelling, each on every channel. */
const PROGRAM = `async () => {
  const a = await codemode.request({ method: "GET", path: "/half/0" });
  const b = await codemode.request({ method: "GET", path: "/half/1" });
  const t = a.half + b.half;
  const chars = [...t];
  const spelled = {
    fullWidth: chars.map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join(""),
    spaced: chars.join(" "),
    zeroWidth: chars.join("\\u200b"),
    codes: chars.map((c) => c.charCodeAt(0)).join(","),
    codeArray: chars.map((c) => c.charCodeAt(0)),
    rot13: t.replace(/[a-z]/gi, (c) => {
      const base = c <= "Z" ? 65 : 97;
      return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
    }),
    hex: chars.map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join(" "),
    tags: chars.map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join(""),
    codeStrings: chars.map((c) => String(c.charCodeAt(0))),
    hexBackToBack: chars.map((c) => "0x" + c.charCodeAt(0).toString(16)).join(""),
    sevenBits: chars.map((c) => c.charCodeAt(0).toString(2)).join(" "),
    caesar3: t.replace(/[a-z]/gi, (c) => {
      const base = c <= "Z" ? 65 : 97;
      return String.fromCharCode(((c.charCodeAt(0) - base + 3) % 26) + base);
    }),
    octal: chars.map((c) => c.charCodeAt(0).toString(8)).join(" "),
    octalEscapes: chars.map((c) => "\\\\" + c.charCodeAt(0).toString(8).padStart(3, "0")).join(""),
    codePoints: chars.map((c) => "U+" + c.charCodeAt(0).toString(16).padStart(4, "0")).join(" "),
    utf16Percent: chars.map((c) => "%" + c.charCodeAt(0).toString(16) + "%00").join(""),
    utf16BePercent: chars.map((c) => "%00%" + c.charCodeAt(0).toString(16)).join(""),
    nulBetween: chars.map((c) => c + "\\0").join(""),
    utf16PercentBase64: btoa(chars.map((c) => "%" + c.charCodeAt(0).toString(16) + "%00").join("")),
    utf16Swapped: chars.map((c) => String.fromCharCode(c.charCodeAt(0) << 8)).join(""),
    atbash: t.replace(/[a-z]/gi, (c) => {
      const base = c <= "Z" ? 65 : 97;
      return String.fromCharCode(base + 25 - (c.charCodeAt(0) - base));
    }),
  };
  for (const [name, value] of Object.entries(spelled)) console.log(name, JSON.stringify(value));
  if (THROW) throw new Error("spelled: " + Object.values(spelled).join(" ~ "));
  return spelled;
}`;

describeExecutors((Executor) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });

  it.each([
    ["returned and logged", false],
    ["thrown and logged", true],
  ])(
    "a recovered credential spelled out and %s reaches neither the client, the run record nor the server log",
    async (_how, thrown) => {
      const logs = [captureConsole("log"), captureConsole("warn"), captureConsole("error")];
      const records: RunRecord[] = [];
      const halves = [ECHO_SECRET.slice(0, 11), ECHO_SECRET.slice(11)];
      const factory = openApiMcpServer({
        spec: SPEC,
        executor,
        secrets: [`Bearer ${ECHO_SECRET}`, ECHO_SECRET],
        onRun: (record) => void records.push(record),
        request: (request) => ({
          status: 200,
          body: { half: halves[Number(request.path.split("/").pop())] },
        }),
      });
      const client = await connect(createMcpHandler(factory));
      const result = await client.callTool({
        name: "execute",
        arguments: { code: PROGRAM.replace("THROW", String(thrown)) },
      });
      await client.close();
      for (let i = 0; i < 400 && records.length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      const output = text(result);
      // The program did run and put its spellings out (redacted where they were found).
      expect(output).toContain("fullWidth");
      expect(output).toContain("[REDACTED]");
      expect(records).toHaveLength(1);
      expect(recovered(output)).toEqual([]);
      expect(recovered(JSON.stringify(records[0]))).toEqual([]);
      expect(recovered(logs.map((read) => read()).join("\n"))).toEqual([]);
    },
  );
});
