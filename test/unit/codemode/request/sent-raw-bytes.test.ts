// Hostile (issue #41): a program that pieced the credential together sends it to the API as raw
// bytes in UTF-16 (little or big endian, with or without a byte order mark), a form an API may
// store text in and show again. The request's check read raw bytes only as UTF-8 text inside the
// request's JSON (api-requester.ts, `wireOf`), where UTF-16 is letters between NULs that no text
// search reads; the redactor's own byte search reads it. Through the real path (apiRequester,
// the real redactor): such a request is refused and nothing is sent, small or large (searched
// in slices). Before the fix, every one of these requests was sent.
import { describe, expect, it } from "vitest";
import { apiRequester } from "../../../../src/codemode/api-requester";
import { SLICED_BODY } from "../../../../src/codemode/request/api-response";
import { loadSpec } from "../../../../src/openapi/openapi-spec";

const TOKEN = "tok_Live.9f8e/7d6c-5b4a";
const spec = loadSpec({
  openapi: "3.0.3",
  info: { title: "uploads", version: "1" },
  paths: {
    "/uploads": { post: { operationId: "upload", responses: { 201: { description: "ok" } } } },
  },
});
const signal = new AbortController().signal;

const utf16 = (text: string, bigEndian: boolean) =>
  [...text].flatMap((c) => (bigEndian ? [0, c.charCodeAt(0)] : [c.charCodeAt(0), 0]));
const padding = (size: number) => Array.from({ length: size }, () => 0x41);

const bodies: Record<string, Uint8Array | string> = {
  // Raw text that is the credential's UTF-16 once sent as UTF-8.
  "text with a NUL after each character": [...TOKEN].map((c) => `${c}\0`).join(""),
  "UTF-16LE": new Uint8Array(utf16(TOKEN, false)),
  "UTF-16BE": new Uint8Array(utf16(TOKEN, true)),
  "UTF-16LE with a BOM": new Uint8Array([0xff, 0xfe, ...utf16(TOKEN, false)]),
  "UTF-16LE in a large body": new Uint8Array([
    ...padding(SLICED_BODY),
    ...utf16(TOKEN, false),
    ...padding(1000),
  ]),
};

/** The real requester with the real redactor, and the raw bodies its handler was sent. */
function uploader() {
  const sent: unknown[] = [];
  const request = apiRequester({
    spec,
    handler: (req) => {
      sent.push(req.rawBody);
      return { status: 201, body: { ok: true } };
    },
    validate: true,
    secrets: Object.freeze([TOKEN]),
    mcp: {} as never,
  });
  const upload = (rawBody: Uint8Array | string) =>
    request({ method: "POST", path: "/uploads", rawBody, contentType: "text/plain" }, signal);
  return { sent, upload };
}

describe("codemode.request() with the credential in raw bytes", () => {
  it.each(Object.entries(bodies))("refuses it, nothing sent: %s", async (_, rawBody) => {
    const { sent, upload } = uploader();
    await expect((async () => upload(rawBody))()).rejects.toThrow(/holds the credential/);
    expect(sent).toEqual([]);
  });

  it("still sends clean raw bytes, small and large", async () => {
    const { sent, upload } = uploader();
    for (const size of [16, SLICED_BODY + 10]) {
      await upload(new Uint8Array(utf16("x".repeat(size / 2), false)));
    }
    expect(sent).toHaveLength(2);
  });
});
