/**
 * Odd binary values a program sends the host, on both executors. The harness reads a program's
 * binary value by the engine's own accessors (sandbox/binary-span.ts) and sends a copy of exactly
 * its bytes beside the call's text (sandbox/codec.ts `encodeParts`): a Proxy or a lookalike,
 * shared memory and a detached buffer get a clear TypeError the program can catch; getters the
 * program put on a view change nothing that crosses; a huge value is refused by its size before
 * it is copied; a small view of a large buffer sends its own bytes only.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";

describeExecutors((Executor) => {
  const executor = new Executor({
    loader: env.LOADER,
    limits: { timeoutMs: 15_000, maxCallBytes: 4_194_304 },
  });
  /** What each call's first argument was on the host: its kind and bytes. */
  const received: { kind: string; bytes: number[] | undefined; length: number }[] = [];
  const namespaces = {
    codemode: {
      take: ([value]: unknown[]) => {
        const bytes =
          value instanceof Uint8Array
            ? value
            : value instanceof ArrayBuffer
              ? new Uint8Array(value)
              : undefined;
        received.push({
          kind: value instanceof Uint8Array ? "bytes" : typeof value,
          length: bytes?.byteLength ?? -1,
          bytes: bytes && bytes.byteLength <= 4_096 ? [...bytes] : undefined,
        });
        return bytes?.byteLength ?? -1;
      },
    },
  };

  async function run(code: string) {
    received.length = 0;
    return executor.execute({ code, namespaces });
  }

  /** A call whose TypeError the program catches and returns. */
  const caught = (value: string) =>
    `try { await codemode.take(${value}); return "sent"; } catch (e) { return e.name + ": " + e.message; }`;

  describe("what only looks like binary data, shared memory, detached buffers", () => {
    it.each([
      ["a Proxy of a Uint8Array", "new Proxy(new Uint8Array(4000), {})", /looks like binary data/],
      ["a Proxy of an ArrayBuffer", "new Proxy(new ArrayBuffer(8), {})", /looks like binary data/],
      [
        "an object from Uint8Array.prototype",
        "Object.create(Uint8Array.prototype)",
        /looks like binary data/,
      ],
      ["a SharedArrayBuffer", "new SharedArrayBuffer(8)", /Shared memory/],
      ["a view of shared memory", "new Uint8Array(new SharedArrayBuffer(4000))", /Shared memory/],
      [
        "a detached view",
        "(() => { const b = new Uint8Array(4000).fill(9); b.buffer.transfer(); return b; })()",
        /detached ArrayBuffer/,
      ],
      [
        "a detached ArrayBuffer",
        "(() => { const b = new ArrayBuffer(16); b.transfer(); return b; })()",
        /detached ArrayBuffer/,
      ],
    ])("refuses %s with a TypeError the program catches", async (_label, value, message) => {
      const outcome = await run(caught(value));
      expect(outcome).toMatchObject({ status: "ok", calls: 0 });
      expect(outcome.result).toMatch(/^TypeError: /);
      expect(outcome.result).toMatch(message);
      expect(received).toEqual([]);
    });
  });

  it("ends a run whose result is shared memory with that TypeError (it was {} before)", async () => {
    const outcome = await run("return { raw: new SharedArrayBuffer(8) };");
    expect(outcome).toMatchObject({
      status: "error",
      error: { name: "TypeError", message: expect.stringMatching(/Shared memory/) },
    });
  });

  describe("getters and views", () => {
    it("sends a view's own bytes whatever getters the program put on it or its prototype", async () => {
      // 3,000,000 from every getter: read, the codec once made 3 MB of bytes out of 4 (over
      // the limit as base64), and a Proxy's traps chose the bytes.
      const outcome = await run(`
        const b = new Uint8Array([5, 6, 7, 8]);
        for (const key of ["length", "byteLength", "byteOffset"])
          Object.defineProperty(b, key, { get: () => 3000000 });
        const proto = Object.getPrototypeOf(Uint8Array.prototype);
        Object.defineProperty(proto, "buffer", { get: () => new ArrayBuffer(3000000), configurable: true });
        const big = new Uint8Array(3000);
        big[0] = 1; big[2999] = 2;
        Object.defineProperty(big, "length", { get: () => 3000000 });
        return [await codemode.take(b), await codemode.take(big)];`);
      expect(outcome).toMatchObject({ status: "ok", result: [4, 3_000] });
      expect(received[0]).toEqual({ kind: "bytes", length: 4, bytes: [5, 6, 7, 8] });
      expect(received[1]!.length).toBe(3_000);
      expect(received[1]!.bytes![0]).toBe(1);
      expect(received[1]!.bytes![2_999]).toBe(2);
    });

    it("sends a view of a view as its own bytes, not the buffer it looks into", async () => {
      const outcome = await run(`
        const all = new Uint8Array(3000000);
        for (let i = 1000000; i < 1010000; i++) all[i] = i & 255;
        const view = new Uint8Array(all.buffer, 1000000, 5000).subarray(100, 2100);
        return [await codemode.take(view), await codemode.take(new DataView(all.buffer, 1000001, 2)), await codemode.take(all.subarray(1000000, 1000003))];`);
      expect(outcome).toMatchObject({ status: "ok", result: [2_000, 2, 3] });
      const at = (start: number, n: number) =>
        Array.from({ length: n }, (_, i) => (start + i) & 255);
      expect(received[0]!.bytes).toEqual(at(1_000_100, 2_000));
      expect(received[1]!.bytes).toEqual(at(1_000_001, 2));
      expect(received[2]!.bytes).toEqual(at(1_000_000, 3));
    });
  });

  it("sends its own copies whatever the program's Array.prototype.push does", async () => {
    // The codec collected a call's buffers with the program's push: replaced, a call sent
    // 4,000 empty ArrayBuffers beside its text, which the host took at 0 bytes (nothing against
    // the call's or the in-flight bound). The host now refuses buffers under 1 KiB too
    // (host-bridge.test.ts); the harness no longer lets the program choose them.
    const outcome = await run(`
      const push = Array.prototype.push;
      Array.prototype.push = function (...items) {
        if (items.length === 1 && items[0] instanceof ArrayBuffer && items[0].byteLength === 2000) {
          for (let i = 0; i < 4000; i++) push.call(this, new ArrayBuffer(0));
          return this.length;
        }
        return push.apply(this, items);
      };
      Object.defineProperty(Array.prototype, "0", { set() {}, configurable: true });
      let r;
      try { r = await codemode.take(new Uint8Array(2000).fill(3)); } catch (e) { r = e.name + ": " + e.message; }
      finally { Array.prototype.push = push; delete Array.prototype[0]; }
      return r;`);
    expect(outcome).toMatchObject({ status: "ok", result: 2_000 });
    expect(received).toEqual([{ kind: "bytes", length: 2_000, bytes: Array(2_000).fill(3) }]);
  });

  describe("size", () => {
    it("refuses a huge value by its own size before it crosses (not its base64's)", async () => {
      const outcome = await run(
        "const b = new Uint8Array(6 * 1048576); try { await codemode.take(b); return 'sent'; } catch (e) { return e.name + ': ' + e.message; }",
      );
      expect(outcome).toMatchObject({ status: "ok", calls: 0 });
      // Counted while encoding: stopped at the limit, before the bytes were copied.
      expect(outcome.result).toMatch(
        /^RangeError: codemode\.take\(\) arguments are more than 4194304 bytes \(the limit, maxCallBytes\)/,
      );
      expect(received).toEqual([]);
    });

    // Each 1,023-byte view is 1,364 characters of base64 inside the text: a million of them were
    // 1.4 GB of text, all made (the per-run isolate past its memory, the engine for minutes)
    // before the call's size was checked.
    it.each([
      ["a small view a million times", "new Array(1_000_000).fill(new Uint8Array(1023))"],
      ["one string a thousand times", "new Array(1_000).fill('x'.repeat(1_000_000))"],
      [
        "one object a million times",
        "new Array(1_000_000).fill({ a: 'x'.repeat(100), b: [1, 2] })",
      ],
    ])("stops encoding %s at the limit, with a RangeError naming it", async (_label, value) => {
      const outcome = await run(
        `const v = ${value}; try { await codemode.take(v); return 'sent'; } catch (e) { return e.name + ': ' + e.message; }`,
      );
      expect(outcome).toMatchObject({ status: "ok", calls: 0 });
      expect(outcome.result).toMatch(/^RangeError: .* more than 4194304 bytes .*maxCallBytes/);
      expect(received).toEqual([]);
    });

    it("reads a program's arguments once: a getter, an iterator or toJSON adds nothing unseen", async () => {
      const outcome = await run(`
        const big = 'y'.repeat(1_000_000);
        const huge = () => new Array(100).fill(big);
        let reads = 0;
        const flip = { get v() { return ++reads === 1 ? 'small' : huge(); } };
        Map.prototype[Symbol.iterator] = function* () { for (const x of huge()) yield [x, x]; };
        Array.prototype.map = huge;
        const out = [await codemode.take([flip, new Map([[1, 2]])])];
        Array.prototype.toJSON = huge;
        out.push(await codemode.take([1]));
        delete Array.prototype.toJSON;
        return out;`);
      expect(outcome).toMatchObject({ status: "ok", calls: 2, result: [-1, -1] });
      expect(received).toEqual([
        { kind: "object", length: -1, bytes: undefined },
        { kind: "object", length: -1, bytes: undefined },
      ]);
    });

    it("takes 3 MiB of bytes in one call (4 MiB as base64, over the limit before)", async () => {
      const outcome = await run("return await codemode.take(new Uint8Array(3 * 1048576).fill(1));");
      expect(outcome).toMatchObject({ status: "ok", result: 3 * 1_048_576 });
    });
  });
});

describeExecutors((Executor, kind) => {
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 15_000 } });
  /** Host answers holding one buffer in two places (a view of it whole, or the buffer itself). */
  const namespaces = {
    codemode: {
      twice: () => {
        const b = new Uint8Array(2_000).fill(1);
        return [b, b];
      },
      resizable: () => {
        // The lib's typings lack the options argument that workerd takes.
        const b = new (ArrayBuffer as new (n: number, o: object) => ArrayBuffer)(2_000, {
          maxByteLength: 8_000_000,
        });
        return [b, new Uint8Array(b)];
      },
      viewAndBuffer: () => {
        const b = new Uint8Array(2_000).fill(1);
        return { view: b, buffer: b.buffer, data: new DataView(b.buffer) };
      },
    },
  };

  it("gives each binary value of a host answer its own bytes (one buffer twice shared them)", async () => {
    // Before the fix the per-run isolate decoded both values onto one buffer (RPC keeps one
    // buffer sent twice as one), so writing one changed the other; the engine copied each.
    const outcome = await executor.execute({
      namespaces,
      code: `
        const [a, b] = await codemode.twice();
        a[0] = 9;
        const o = await codemode.viewAndBuffer();
        o.view[1] = 7;
        return [b[0], a.buffer === b.buffer, new Uint8Array(o.buffer)[1], o.data[1] ?? o.data.getUint8?.(1), o.view.length, o.buffer.byteLength];`,
    });
    expect(outcome).toMatchObject({ status: "ok", result: [1, false, 1, 1, 2_000, 2_000] });
  });

  it("answers a host's resizable buffer as a fixed one on both executors", async () => {
    const outcome = await executor.execute({
      namespaces,
      code: `
        const [b, v] = await codemode.resizable();
        let grown;
        try { b.resize(4000); grown = b.byteLength; } catch (e) { grown = e.name; }
        return [b.resizable ?? false, grown, v.length];`,
    });
    expect(outcome).toMatchObject({ status: "ok", result: [false, "TypeError", 2_000] });
  });

  it("bounds the bytes a run's calls hold in the shared worker's runner", async () => {
    // The guest copies a call's binary value natively (almost no steps) and the runner copies
    // it out of the engine; un-awaited calls all wait for the runner's next turn. Before the
    // bound, 250 calls of one 4 MB Uint8Array all went through the worker every run shares
    // (1 GB). The per-run isolate holds its own calls' bytes in its own isolate, and the host
    // answers each at once (its in-flight bound counts calls still running): all arrive there.
    let calls = 0;
    const outcome = await executor.execute({
      namespaces: { codemode: { take: () => ++calls } },
      code: `
        const v = new Uint8Array(4000000);
        const ps = [];
        for (let i = 0; i < 250; i++) ps.push(codemode.take(v).then(() => "ok", (e) => e.name));
        const counts = {};
        for (const x of await Promise.all(ps)) counts[x] = (counts[x] ?? 0) + 1;
        return counts;`,
    });
    expect(outcome).toMatchObject({
      status: "ok",
      result: kind === "shared-worker" ? { ok: 4, LimitError: 246 } : { ok: 250 },
    });
    expect(calls).toBe(kind === "shared-worker" ? 4 : 250);
  });
});
