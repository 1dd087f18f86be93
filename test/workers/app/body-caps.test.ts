// The product routes' body caps (src/app/errors/capped-body.ts, issue #40): counted in bytes as
// the body arrives, never by characters after reading it whole, on /api/search, /api/skills/import
// and the demo API.
import { describe, expect, it } from "vitest";
import { configured } from "./helpers";

const demo = configured({});

/** A chunked body (no Content-Length) of `total` bytes of `x`, counting what was pulled. */
function countedStream(total: number): {
  stream: ReadableStream<Uint8Array>;
  pulled: () => number;
} {
  const chunk = new Uint8Array(4096).fill(0x78);
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

describe("body caps count bytes", () => {
  it("/api/search: the cap is stated in bytes, as it is counted", async () => {
    // 66,011 characters, 198,011 bytes: past the cap of 3 × 65,536 bytes.
    const body = JSON.stringify({ code: "日".repeat(66_000) });
    const response = await demo("http://localhost/api/search", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(413);
    const error = await errorOf(response);
    expect(error.code).toBe("body_too_large");
    // Before: "The program is larger than 64 KiB." of a cap counted in characters.
    expect(error.message).toMatch(/196,608 bytes \(192 KiB\) of UTF-8/);
  });

  it("/api/search: a chunked body is not read past the cap", async () => {
    const { stream, pulled } = countedStream(8 * 1024 * 1024);
    const response = await demo("http://localhost/api/search", { method: "POST", body: stream });
    expect(response.status).toBe(413);
    // Before: request.text() read all 8 MiB, then compared its length.
    expect(pulled()).toBeLessThan(3 * 65_536 + 3 * 4096);
  });

  it("/demo-api: a body past 64 KiB is 413, and a chunked one is not read past it", async () => {
    const big = JSON.stringify({ name: "p", description: "d".repeat(70_000) });
    const response = await demo("http://localhost/demo-api/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: big,
    });
    // Before: read whole in the Worker, parsed whole in the store, answered 400 on a field.
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toMatchObject({
      code: "body_too_large",
      message: expect.stringMatching(/65,536 bytes/),
    });
    const { stream, pulled } = countedStream(8 * 1024 * 1024);
    const chunked = await demo("http://localhost/demo-api/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
    });
    expect(chunked.status).toBe(413);
    expect(pulled()).toBeLessThan(65_536 + 3 * 4096);
  });

  it("/demo-api: a body of bytes that are not UTF-8 reaches the store as it came, not 3× larger", async () => {
    // 60,000 bytes of 0xFF inside a JSON string: under the 64 KiB cap. The Worker decoded the
    // body to text and sent that on: each 0xFF became U+FFFD, 3 bytes, so the store got 180,000
    // bytes and refused a body the client kept under the cap (413), after the Worker held 3×.
    const head = new TextEncoder().encode('{"name":"');
    const tail = new TextEncoder().encode('"}');
    const body = new Uint8Array(head.length + 60_000 + tail.length).fill(0xff);
    body.set(head);
    body.set(tail, body.length - tail.length);
    const response = await demo("http://localhost/demo-api/projects", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    // The store reads it (each 0xFF one U+FFFD character) and judges the field.
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).not.toBe("body_too_large");
  });

  it("/api/skills/import: a chunked body is not read past its 4 MiB cap", async () => {
    const { stream, pulled } = countedStream(16 * 1024 * 1024);
    const response = await demo("http://localhost/api/skills/import", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
    });
    expect(response.status).toBe(413);
    expect(pulled()).toBeLessThan(4 * 1024 * 1024 + 3 * 4096);
  });
});
