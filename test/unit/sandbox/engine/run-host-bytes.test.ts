/**
 * Binary values between a shared-worker run's engine and the host: the runner copies the
 * guest's buffers out natively (values.ts `readHostBytes`, never a property of theirs) and hands
 * a reply's buffers back as values it defines, so nothing the program put on a prototype runs or
 * answers in the runner. Plain Node with the real QuickJS WebAssembly and the real guest modules.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import { beforeAll, describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";
import { readHostBytes } from "../../../../sandbox/engine/values";
import { encodeParts } from "../../../../sandbox/codec";
import { decodeParts } from "../../../../sandbox/codec-decode";
import type { HostReply } from "../../../../sandbox/protocol";

let quickjs: QuickJSWASMModule;
beforeAll(async () => {
  quickjs = await newQuickJSWASMModuleFromVariant(variant);
});

describe("shared worker engine: binary values of host calls", () => {
  it("hands bytes both ways past setters and getters the program put on prototypes", async () => {
    const sent: unknown[] = [];
    // An echo as the host bridge answers: decoded with the buffers beside, encoded the same way.
    const host = (
      _ns: string,
      _name: string,
      text: string,
      _logs: unknown,
      bytes?: ArrayBuffer[],
    ) => {
      const args = bytes ? decodeParts(text, bytes) : JSON.parse(text);
      sent.push(args);
      const parts = encodeParts((args as unknown[])[0], Infinity, true);
      return Promise.resolve(
        (typeof parts === "string" ? parts : { text: parts.text, bytes: parts.bytes }) as HostReply,
      );
    };
    const run = new EngineRun(
      quickjs,
      engineRunRequest(`
        let seen = 0;
        // Sent first: the program's own encoding uses its own prototypes, and is its own to spoil.
        const answer = codemode.echo(new Uint8Array(5000).fill(3));
        for (const i of [0, 1, 2])
          Object.defineProperty(Array.prototype, i, { set() { seen++; }, get() { seen++; return "hooked"; }, configurable: true });
        Object.defineProperty(ArrayBuffer.prototype, "byteLength", { get() { seen++; return 1; }, configurable: true });
        const back = await answer;
        for (const i of [0, 1, 2]) delete Array.prototype[i];
        return [back.length, back[0], back[4999], seen];`),
      [],
      host,
    );
    const result = await run.result;
    run.dispose();
    if (typeof result !== "string") throw new Error(`the run stopped: ${JSON.stringify(result)}`);
    const response = JSON.parse(result) as { result?: string; error?: unknown };
    expect(response.error).toBeUndefined();
    expect(JSON.parse(response.result!)).toEqual([5_000, 3, 3, 0]);
    expect((sent[0] as Uint8Array[])[0]).toEqual(new Uint8Array(5_000).fill(3));
  });

  it("copies only real ArrayBuffers out of the engine, by their own length", () => {
    const ctx = quickjs.newContext();
    const handles: { dispose(): void }[] = [];
    try {
      const make = (code: string) => {
        const handle = ctx.unwrapResult(ctx.evalCode(code));
        handles.push(handle);
        return handle;
      };
      const lying = make(
        "const b = new ArrayBuffer(8); new Uint8Array(b).fill(65); Object.defineProperty(b, 'byteLength', { get: () => 4096 }); b",
      );
      const copies = readHostBytes(ctx, [lying], 10_000) as ArrayBuffer[];
      expect(copies.map((b) => [...new Uint8Array(b)])).toEqual([[65, 65, 65, 65, 65, 65, 65, 65]]);
      for (const code of [
        "new Uint8Array(8)",
        "new Proxy(new ArrayBuffer(8), {})",
        "({ byteLength: 8 })",
        "'text'",
        "8",
      ]) {
        expect(readHostBytes(ctx, [make(code)], 10_000)).toMatch(/must be ArrayBuffers/);
      }
      const big = make("new ArrayBuffer(6000)");
      expect(readHostBytes(ctx, [big, big], 10_000)).toMatch(/over the limit of 10000 bytes/);
      const many = Array.from({ length: 10 }, () => make("new ArrayBuffer(1)"));
      expect(readHostBytes(ctx, many, 10_000)).toMatch(/carries 10 binary values/);
      expect(readHostBytes(ctx, [], 10_000)).toBeUndefined();
    } finally {
      for (const handle of handles) handle.dispose();
      ctx.dispose();
    }
  });
});
