/**
 * Runners started at the same instant, with the real builder, Miniflare and workerd
 * (cli/local-server/runtime.mjs, worker-options.mjs runnerMessage): every one starts and serves.
 * All runners share one workerd configuration, so whatever file it names is every runner's. It
 * named the Cache API's Durable Object storage in Miniflare's temporary folder, whose alarm
 * `metadata.sqlite` each workerd opens as it starts: on a new file, two starting at once crashed
 * one with `SQLITE_BUSY` ("database is locked"), seen with runner 1 and the spare, and here with
 * 1–3 of 4 runners in each of 3 tries. Runners now keep no storage at all: nothing is written
 * under the server's folder but the sockets.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntimeHost } from "../../../../cli/local-server/runtime.mjs";
import { runnerMessage } from "../../../../cli/local-server/worker-options.mjs";
import { getOverSocket, writeStandInRunner } from "../../../helpers/cli/stand-in-runner";

const RUNNERS = 4;
const dir = mkdtempSync(join(tmpdir(), "cmm-at-once-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modules = join(dir, "modules");
mkdirSync(modules);
const script = writeStandInRunner(join(modules, "runner.js"), '() => new Response("serving")');

/** Every file (not folder, not socket) under `folder`, relative to it. */
function filesUnder(folder: string, prefix = ""): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    const stat = statSync(path);
    if (stat.isDirectory()) return filesUnder(path, `${prefix}${name}/`);
    return stat.isFile() ? [`${prefix}${name}`] : [];
  });
}

const message = (folder: string, index: number) =>
  runnerMessage({
    scriptPath: script,
    compatibilityDate: "2025-06-01",
    rpcHost: `unix:${join(folder, `runner-${index}.sock`)}`,
    secret: "at-once-secret-0123456789abcdef",
  });

describe("runners started at the same instant", () => {
  it("keep no storage: no Cache API and no data folder in a runner's options", () => {
    const options = message("/private", 1).options as {
      workers: Record<string, unknown>[];
      [key: string]: unknown;
    };
    expect(options.workers[0]!.cacheAPI).toBe(false);
    for (const key of Object.keys(options)) expect(key).not.toMatch(/persist/i);
    for (const key of Object.keys(options.workers[0]!)) expect(key).not.toMatch(/persist/i);
  });

  it(`all ${RUNNERS} start and serve, and share no file`, async () => {
    const folder = mkdtempSync(join(tmpdir(), "cmm-t-"));
    const host = createRuntimeHost({ PATH: process.env.PATH ?? "" }, folder);
    try {
      // One configuration is built for all (runtime.mjs), then every workerd starts at once.
      const runners = Array.from({ length: RUNNERS }, (_, i) =>
        host.start({
          name: `runner ${i + 1}`,
          message: message(folder, i + 1),
          onCrashLine: () => {},
        }),
      );
      const ready = await Promise.all(runners.map((r) => r.ready));
      const crashes = runners.flatMap((r, i) => (ready[i] ? [] : [r.recentOutput().join("\n")]));
      expect(crashes).toEqual([]);
      expect(await Promise.all(runners.map((r) => getOverSocket(r.socket)))).toEqual(
        Array(RUNNERS).fill("serving"),
      );
      expect(filesUnder(folder)).toEqual([]);
    } finally {
      await host.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});
