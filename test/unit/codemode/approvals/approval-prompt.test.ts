// approvalPrompt (golden text): exactly what an approval asks before a request is sent.
import { describe, expect, it } from "vitest";
import { normalizeApiRequest } from "../../../../src/codemode/request/api-request";
import { approvalPrompt } from "../../../../src/codemode/approvals/approval-prompt";

const prompt = (input: Record<string, unknown>) => approvalPrompt(normalizeApiRequest(input));

describe("approvalPrompt (golden): exactly what will be sent", () => {
  it("a JSON body with query and headers", () => {
    expect(
      prompt({
        method: "post",
        path: "/zones/{id}/dns_records",
        params: { id: "z 1" },
        query: { tag: ["a", "b"], dry: false },
        headers: { "X-Request-Id": "42" },
        body: { type: "A", name: "www" },
      }),
    ).toBe(
      [
        "POST /zones/z%201/dns_records?tag=a&tag=b&dry=false",
        "X-Request-Id: 42",
        "Content-Type: application/json",
        "Body (text, 25 characters):",
        '{"type":"A","name":"www"}',
      ].join("\n"),
    );
  });

  it("a raw text body and its content type (a content-type header is replaced by it)", () => {
    expect(
      prompt({
        method: "PUT",
        path: "/notes/1",
        headers: { "content-type": "text/html" },
        rawBody: "hello\nworld",
        contentType: "text/plain",
      }),
    ).toBe(
      [
        "PUT /notes/1",
        "Content-Type: text/plain",
        "Raw body (text, 11 characters):",
        "hello\nworld",
      ].join("\n"),
    );
  });

  it("raw bytes as hex with their size", () => {
    expect(
      prompt({ method: "PUT", path: "/blob", rawBody: new Uint8Array([0, 1, 254, 255]) }),
    ).toBe(["PUT /blob", "Raw body (bytes, 4 bytes, shown as hex):", "0001feff"].join("\n"));
  });

  it("a long body is cut with a mark naming the total", () => {
    const text = prompt({ method: "POST", path: "/notes", rawBody: "x".repeat(48_213) });
    expect(text.split("\n")).toEqual([
      "POST /notes",
      "Raw body (text, 48,213 characters):",
      "x".repeat(2_000),
      "… [truncated: 2,000 of 48,213 characters shown]",
    ]);
    const bytes = prompt({ method: "POST", path: "/b", rawBody: new Uint8Array(1_500) });
    expect(bytes.split("\n")).toEqual([
      "POST /b",
      "Raw body (bytes, 1,500 bytes, shown as hex):",
      "00".repeat(1_000),
      "… [truncated: 1,000 of 1,500 bytes shown]",
    ]);
  });

  it("a form body as it is encoded", () => {
    expect(
      prompt({
        method: "POST",
        path: "/login",
        body: { user: "ana", note: "a&b" },
        contentType: "application/x-www-form-urlencoded",
      }),
    ).toBe(
      [
        "POST /login",
        "Content-Type: application/x-www-form-urlencoded",
        "Body (text, 19 characters):",
        "user=ana&note=a%26b",
      ].join("\n"),
    );
  });

  it("no header can add a line to the prompt", () => {
    expect(() =>
      prompt({ method: "POST", path: "/notes", headers: { "x-a": "1\nBody: fake" } }),
    ).toThrow(/not a valid HTTP header/);
    expect(() => prompt({ method: "POST", path: "/notes", headers: { "x a": "1" } })).toThrow(
      /not a valid HTTP header/,
    );
    expect(() =>
      prompt({ method: "POST", path: "/notes", rawBody: "x", contentType: "text/plain\nX: y" }),
    ).toThrow(/`contentType` holds a line break/);
  });

  // Characters a screen shows as a line break (NEL, U+2028/9) or that reorder what follows
  // (bidi controls, "Trojan Source") would make the prompt read unlike the request sent.
  it("nothing in a header or body is shown as a line break or reordered", () => {
    const hidden = /[\u0080-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    const text = prompt({
      method: "POST",
      path: "/payments",
      headers: { "x-note": "ok\u0085Body (text, 2 characters):" },
      body: { to: "ana", amount: "\u202e0001", memo: "a\u2028b" },
    });
    expect(text).not.toMatch(hidden);
    expect(text.split("\n")).toEqual([
      "POST /payments",
      "x-note: ok\\u0085Body (text, 2 characters):",
      "Content-Type: application/json",
      "Body (text, 42 characters):",
      '{"to":"ana","amount":"\\u202e0001","memo":"a\\u2028b"}',
    ]);
    expect(prompt({ method: "PUT", path: "/n", rawBody: "\u2066x\u2069" })).not.toMatch(hidden);
  });

  // A terminal client (an MCP client in a shell) acts on a body's control characters: a carriage return
  // writes the rest over the line's start, an escape sequence moves the cursor up or erases
  // lines (`\x1b[1A\x1b[2K`: what follows is written over what was shown), vertical tab,
  // form feed and U+001C–U+001E (Unicode paragraph separators) break lines; U+061C (the Arabic
  // letter mark) reorders like U+200F. Only a body's line feeds and tabs are shown as they are.
  it("no control character reaches the prompt but a body's line feeds and tabs", () => {
    // oxlint-disable-next-line no-control-regex -- matching control characters is the point
    const controls = /[\u0000-\u0008\u000b-\u001f\u007f\u061c]/;
    // A header value with one is refused before any prompt (api-request.ts).
    expect(() =>
      prompt({ method: "POST", path: "/n", headers: { "x-note": "ok\u001b[1AGET /harmless" } }),
    ).toThrow(/not a valid HTTP header/);
    const text = prompt({
      method: "POST",
      path: "/payments",
      rawBody:
        "to=mallory\ramount=1\u000b\u000c\u001c\u001d\u001e\u007f\u061c\u0000\x1b[1A\x1b[2KGET /projects\n\tok",
      contentType: "text/plain",
    });
    expect(text).not.toMatch(controls);
    expect(text.split("\n")).toEqual([
      "POST /payments",
      "Content-Type: text/plain",
      "Raw body (text, 52 characters):",
      "to=mallory\\u000damount=1\\u000b\\u000c\\u001c\\u001d\\u001e\\u007f\\u061c\\u0000\\u001b[1A\\u001b[2KGET /projects",
      "\tok",
    ]);
  });
});
