/**
 * Console text a shared-worker run sends out of the engine. The guest's console budget keeps an
 * honest run's lines within `maxLogBytes`, but a program that takes over the capture's buffer
 * (or hooks `toJSON`) writes whatever JSON it likes: the runner parsed every batch (1,000,000
 * entries a call: ~75 MB of the shared worker's V8 heap, which every run shares) and forwarded
 * it for the host to deserialize. Plain Node with the real engine, as run-pending.test.ts.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { engineRunRequest } from "../../../helpers/executor/engine-run-request";
import { EngineRun } from "../../../../sandbox/engine/run";

const MAX_LOG_BYTES = 65_536;

/** Runs `code`, counting the console entries the host receives with its calls. */
async function run(code: string) {
  const quickjs = await newQuickJSWASMModuleFromVariant(variant);
  let entries = 0;
  let lines = 0;
  const engineRun = new EngineRun(
    quickjs,
    engineRunRequest(code, { maxLogBytes: MAX_LOG_BYTES }),
    [],
    async (_ns, _name, args, logs) => {
      if (Array.isArray(logs)) {
        entries += Object.keys(logs).length;
        lines += logs.length;
      }
      return args;
    },
  );
  const result = await engineRun.result;
  engineRun.dispose();
  return { result, entries, lines };
}

/** Program text: `buffer` is the capture's pending array after each `console.log("mark")`. */
const TAKE_OVER = `
  const push = Array.prototype.push, apply = Reflect.apply;
  let buffer;
  Array.prototype.push = function (...items) {
    const item = items[0];
    if (item && typeof item === "object" && item.message === "mark") buffer = this;
    return apply(push, this, items);
  };
  const many = new Array(200000).fill({ level: "log", message: "" });
`;

describe("shared worker engine: console text out of a tampered guest", () => {
  it("forwards no more console entries with host calls than the log budget allows, counting the rest", async () => {
    const { result, entries, lines } = await run(`${TAKE_OVER}
      for (let i = 0; i < 3; i++) { console.log("mark"); Object.assign(buffer, many); await codemode.echo(i); }
      return "done";
    `);
    expect(JSON.parse(result as string)).toMatchObject({ result: '"done"' });
    // Parsed over the whole run: at most the lines an honest guest sends; before, every entry of
    // every call (200,000 a call here, 3 times the bound in one call; the 1,000,000 a call this
    // test sent before took 5 times as long and proved the same).
    expect(entries).toBeLessThanOrEqual(MAX_LOG_BYTES);
    // Every line is still counted (the ones past the room cross as holes): three marks, 600,000.
    expect(lines).toBe(600_000);
    // The engine builds 600,000 entries of JSON: seconds on a loaded machine.
  }, 60_000);

  it("an honest run's console text still arrives whole", async () => {
    const { entries } = await run(`
      for (let i = 0; i < 1000; i++) console.log("\\u0001".repeat(30));
      await codemode.echo(1);
      for (let i = 0; i < 70000; i++) console.log();
      await codemode.echo(2);
      return "done";
    `);
    // 1,000 lines of 31 bytes, then empty lines (1 byte each) until the budget is spent.
    expect(entries).toBe(1_000 + (MAX_LOG_BYTES - 31_000));
  });
});
