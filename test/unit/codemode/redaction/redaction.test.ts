// secretRedactor and redactToolResult: the forms of a secret found, and results redacted without touching structure.
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { CodeModeError } from "../../../../src/errors";
import {
  assertRedactableSecrets,
  credentialSecrets,
  secretRedactor,
} from "../../../../src/codemode/redaction/redaction";
import { redactToolResult } from "../../../../src/codemode/redaction/result-redaction";

const SECRET = "sk-Live-0123456789";
const redactor = secretRedactor([SECRET]);
const bytes = new TextEncoder().encode(SECRET);
const latin1 = (b: Uint8Array) => String.fromCharCode(...b);
const base64 = (b: Uint8Array) => btoa(latin1(b));
const utf16 = (s: string, bigEndian: boolean) =>
  Uint8Array.from([...s].flatMap((c) => (bigEndian ? [0, c.charCodeAt(0)] : [c.charCodeAt(0), 0])));
const percentBytes = (b: Uint8Array) =>
  [...b].map((x) => `%${x.toString(16).padStart(2, "0")}`).join("");
/** UTF-16BE bytes decoded as UTF-16LE: `t` becomes U+7400. */
const swapped = (s: string) => new TextDecoder("utf-16le").decode(utf16(s, true));

describe("secretRedactor: the forms of a secret it finds", () => {
  it.each([
    ["plain", SECRET],
    ["upper case", SECRET.toUpperCase()],
    ["lower case", SECRET.toLowerCase()],
    ["reversed", [...SECRET].toReversed().join("")],
    ["percent-encoded", encodeURIComponent(`${SECRET}/ x`).slice(0, -6)],
    [
      "every byte percent-encoded",
      [...bytes].map((b) => `%${b.toString(16).toUpperCase()}`).join(""),
    ],
    [
      "every character \\u-escaped",
      [...SECRET].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join(""),
    ],
    ["hex", [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")],
    [
      "HEX",
      [...bytes]
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("")
        .toUpperCase(),
    ],
    ["base64", base64(bytes)],
    ["base64 at offset 1", base64(Uint8Array.from([1, ...bytes, 2]))],
    ["base64 at offset 2", base64(Uint8Array.from([1, 2, ...bytes]))],
    [
      "URL-safe base64",
      base64(Uint8Array.from([250, ...bytes]))
        .replace(/\+/g, "-")
        .replace(/\//g, "_"),
    ],
    ["UTF-16LE read as text", latin1(utf16(SECRET, false))],
    ["UTF-16BE read as text", latin1(utf16(SECRET, true))],
    // UTF-16 spelled with a character-level encoding: the NULs appear only once decoded.
    ["UTF-16LE percent-encoded", percentBytes(utf16(SECRET, false))],
    ["UTF-16BE percent-encoded", percentBytes(utf16(SECRET, true))],
    ["UTF-16LE as JSON \\u escapes", JSON.stringify(latin1(utf16(SECRET, false))).slice(1, -1)],
    ["UTF-16BE as HTML references", [...utf16(SECRET, true)].map((b) => `&#${b};`).join("")],
    ["UTF-16LE percent-encoded twice", percentBytes(utf16(SECRET, false)).replaceAll("%", "%25")],
    // Three layers, run over character over UTF-16 (no decoding reaches it: literal forms).
    ["base64 of UTF-16LE percent-encoded", btoa(percentBytes(utf16(SECRET, false)))],
    ["base64 of UTF-16BE percent-encoded", btoa(percentBytes(utf16(SECRET, true)))],
    [
      "base64 of UTF-16LE percent-encoded in upper case",
      btoa(percentBytes(utf16(SECRET, false)).toUpperCase()),
    ],
    [
      "base64 of UTF-16LE as JSON \\u escapes",
      btoa(JSON.stringify(latin1(utf16(SECRET, false))).slice(1, -1)),
    ],
    [
      "base64 of UTF-16LE as HTML references",
      btoa([...utf16(SECRET, false)].map((b) => `&#${b};`).join("")),
    ],
    // UTF-16BE decoded as UTF-16LE: one character per character, its code in the high byte.
    ["UTF-16BE read as little-endian", swapped(SECRET)],
    [
      "UTF-16BE read as little-endian, \\u-escaped",
      [...swapped(SECRET)].map((c) => `\\u${c.charCodeAt(0).toString(16)}`).join(""),
    ],
  ])("%s", (_form, form) => {
    const out = redactor.text(`before ${form} after`);
    expect(out).toContain("before ");
    expect(out).toContain(" after");
    expect(out).not.toContain(form);
    expect(out).toMatch(/\[REDACTED\]|\[\0?R/);
  });

  // A program asks an API to echo `q=%74%00%6f%00…` (the token as UTF-16LE, percent-encoded) and
  // returns the echo: the result is JSON text with the token spelled in it.
  it("finds a percent-encoded UTF-16 token inside a program's JSON result", () => {
    const token = "tok_Live.9f8e/7d6c-5b4a";
    const q = [...token].map((c) => `%${c.charCodeAt(0).toString(16)}%00`).join("");
    const result = JSON.stringify(["/x", { q }]);
    const out = secretRedactor([token]).text(result);
    expect(out).not.toContain(q);
    expect(out).toContain("[REDACTED]");
    expect(out).toContain('["/x",{"q":"');
  });

  it("finds percent-encoded and JSON-escaped copies of a secret with special characters", () => {
    const special = 'p@ss/w0rd "x" ü';
    const r = secretRedactor([special]);
    for (const form of [
      encodeURIComponent(special),
      encodeURIComponent(special).replaceAll("%20", "+"),
      JSON.stringify(special).slice(1, -1),
      latin1(new TextEncoder().encode(special)),
    ])
      expect(r.text(`<${form}>`)).toBe("<[REDACTED]>");
  });

  it("reads hex bytes made only of digits as hex too, not only as decimal codes", () => {
    // Every byte of this secret is two decimal digits in hex (`50 68 69 …`): the run reads as
    // decimal codes and as hex bytes, and the second reading (which reuses the first's runs) must
    // still be made, also in a list of numeric strings and after other numbers.
    const secret = "Phi2Qaxy7Pq";
    const r = secretRedactor([secret]);
    const hex = [...secret].map((c) => c.charCodeAt(0).toString(16));
    expect(r.text(`x ${hex.join(" ")} y`)).toBe("x [REDACTED] y");
    expect(r.text(`12 34 ${hex.join(" ")}`)).toBe("12 34 [REDACTED]");
    expect(r.text(JSON.stringify({ a: hex }))).toBe('{"a":[[REDACTED]]}');
  });

  it("replaces bytes in place, in the encoding it found them, at any offset", () => {
    const body = Uint8Array.from([
      0xff,
      ...bytes,
      7,
      ...utf16(SECRET, false),
      ...utf16(SECRET, true),
      0x80,
    ]);
    const clean = redactor.bytes(body);
    expect(latin1(clean)).toBe(
      `\xff[REDACTED]\x07${latin1(utf16("[REDACTED]", false))}${latin1(utf16("[REDACTED]", true))}\x80`,
    );
    const untouched = Uint8Array.from([1, 2, 3]);
    expect(redactor.bytes(untouched)).toBe(untouched);
  });

  it("decodes base64 payloads and re-encodes them only when something changed", () => {
    const blob = base64(Uint8Array.from([9, ...utf16(SECRET, false)]));
    expect(atob(redactor.base64(blob))).toBe(`\t${latin1(utf16("[REDACTED]", false))}`);
    const clean = base64(Uint8Array.from([1, 2, 3, 4]));
    expect(redactor.base64(clean)).toBe(clean);
  });

  it("copies values on write only, keys included, and never mutates the input", () => {
    const shared = { a: 1 };
    const input = JSON.parse(
      `{"ok": {"n": 1}, "list": ["x", "${SECRET}"], "${SECRET}": true, "__proto__": "${SECRET}"}`,
    );
    input.ok = shared;
    const out = redactor.data(input) as Record<string, unknown>;
    expect(out).not.toBe(input);
    expect(out["ok"]).toBe(shared);
    expect(out["list"]).toEqual(["x", "[REDACTED]"]);
    expect(Object.keys(out)).toEqual(["ok", "list", "[REDACTED]", "__proto__"]);
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toBe("[REDACTED]");
    expect(input["list"][1]).toBe(SECRET);
    const clean = { a: [1, "two", { b: new Uint8Array([1]) }] };
    expect(redactor.data(clean)).toBe(clean);
  });

  it("walks Maps, Sets, errors and cycles", () => {
    const cyclic: Record<string, unknown> = { token: SECRET };
    cyclic["self"] = cyclic;
    const out = redactor.data({
      map: new Map([[SECRET, SECRET]]),
      set: new Set([SECRET]),
      error: new TypeError(`bad ${SECRET}`),
      cyclic,
    });
    expect([...out.map]).toEqual([["[REDACTED]", "[REDACTED]"]]);
    expect([...out.set]).toEqual(["[REDACTED]"]);
    expect([out.error.name, out.error.message]).toEqual(["TypeError", "bad [REDACTED]"]);
    expect(out.cyclic).toEqual({ token: "[REDACTED]", self: "[Circular]" });
  });

  it("keeps object keys when asked for values only (documents whose keys are structure)", () => {
    const redactKeys = secretRedactor(["operations"]);
    expect(redactKeys.values({ operations: [{ summary: "List operations" }] })).toEqual({
      operations: [{ summary: "List [REDACTED]" }],
    });
  });
});

describe("redactToolResult: payload only, never structure", () => {
  const result = (): CallToolResult => ({
    content: [
      { type: "text", text: "a resource with mimeType in structuredContent" },
      {
        type: "resource",
        resource: { uri: "mem://resource", mimeType: "text/plain", text: "resource" },
      },
      { type: "resource_link", uri: "mem://x", name: "resource", mimeType: "text/plain" },
      { type: "image", mimeType: "image/png", data: base64(new TextEncoder().encode("resource")) },
    ],
    structuredContent: { resource: "resource", structuredContent: { mimeType: "x" } },
    isError: true,
    _meta: { note: "resource" },
  });

  it.each(["resource", "mimeType", "structuredContent", "resource_link"])(
    "with a secret equal to %s, the result keeps its shape",
    (secret) => {
      const out = redactToolResult(result(), secretRedactor([secret]));
      expect(out.content.map((block) => block.type)).toEqual([
        "text",
        "resource",
        "resource_link",
        "image",
      ]);
      expect(out.content[1]).toHaveProperty("resource.mimeType", "text/plain");
      expect(out.isError).toBe(true);
      expect(out._meta).toEqual({ note: "resource" });
      expect(Object.keys(out)).toEqual(Object.keys(result()));
      const payload = JSON.stringify([
        (out.content[0] as { text: string }).text,
        out.structuredContent,
      ]);
      expect(payload.toLowerCase()).not.toContain(`"${secret.toLowerCase()}"`);
    },
  );

  it("redacts text, uri, names, decoded data and structured content", () => {
    const out = redactToolResult(result(), secretRedactor(["resource"]));
    expect(out.content[1]).toEqual({
      type: "resource",
      resource: { uri: "mem://[REDACTED]", mimeType: "text/plain", text: "[REDACTED]" },
    });
    expect(out.content[2]).toMatchObject({ name: "[REDACTED]" });
    expect(atob((out.content[3] as { data: string }).data)).toBe("[REDACTED]");
    expect(out.structuredContent).toEqual({
      "[REDACTED]": "[REDACTED]",
      structuredContent: { mimeType: "x" },
    });
  });
});

describe("secret lengths and credential forms", () => {
  it("refuses a secret shorter than 8 characters, without quoting it", () => {
    expect(() => assertRedactableSecrets(["long-enough", "short7!"], "test")).toThrow(
      CodeModeError,
    );
    try {
      assertRedactableSecrets(["short7!"], "test");
    } catch (error) {
      expect((error as CodeModeError).code).toBe("secret_too_short");
      expect((error as Error).message).toContain("secrets[0]");
      expect((error as Error).message).not.toContain("short7!");
    }
    expect(() => assertRedactableSecrets(["", "exactly8"], "test")).not.toThrow();
  });

  it("names an unset secret as unset, not as too short (issue #42)", () => {
    // What `secrets: [env.API_TOKEN]` passes when the Worker secret is not set.
    const unset = () => assertRedactableSecrets([undefined as unknown as string], "test");
    expect(unset).toThrow(/secrets\[0\] is undefined, not a string: is the secret it names set\?/);
    expect(unset).toThrow(/npx wrangler secret put/);
    expect(unset).not.toThrow(/shorter than/);
  });

  it("derives the whole header value, the bare token and Basic's user:password", () => {
    expect(credentialSecrets("Bearer abcdefgh12")).toEqual(["Bearer abcdefgh12", "abcdefgh12"]);
    expect(credentialSecrets("X".repeat(10))).toEqual(["X".repeat(10)]);
    const basic = btoa("user:password1");
    expect(credentialSecrets(`Basic ${basic}`)).toEqual([
      `Basic ${basic}`,
      basic,
      "user:password1",
    ]);
  });
});
