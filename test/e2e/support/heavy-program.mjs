// What the "host work bounded" scripts (heavy-bodies.mjs, heavy-sends.mjs) share: a local API on a
// free port with a spec file that names its operations, and one heavy program run while another
// client polls a trivial `search`, so the script can read how long that client waited meanwhile.
import { createServer } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../../cli/local-server/free-port.mjs";
import { pollSearch, timedCall } from "./load-clients.mjs";

/**
 * @typedef {{ baseUrl: string, specFile: string, close: () => void }} LocalApi
 * @typedef {import("./load-clients.mjs").Outcome} Outcome
 */

/**
 * Starts `handler` on 127.0.0.1 and writes an OpenAPI 3.0 spec of `paths` titled `title` into a
 * fresh temporary folder; `close` stops the API and removes the folder.
 * @param {string} title
 * @param {Record<string, unknown>} paths
 * @param {import("node:http").RequestListener} handler
 * @returns {Promise<LocalApi>}
 */
export async function startLocalApi(title, paths, handler) {
  const api = createServer(handler);
  const port = await freePort();
  await new Promise((resolve) => api.listen(port, "127.0.0.1", () => resolve(undefined)));
  const dir = mkdtempSync(join(tmpdir(), "codemode-local-api-"));
  const specFile = join(dir, "api.json");
  writeFileSync(
    specFile,
    JSON.stringify({ openapi: "3.0.3", info: { title, version: "1.0.0" }, paths }),
  );
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    specFile,
    close: () => {
      api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `program` once with `client`'s `execute` while another client searches every 100 ms
 * (from 1 s before the run until 0.5 s after it): the run's outcome, that client's longest wait
 * within the run, its polling summary, and what `measure` read just before the call and just
 * after it answered (e.g. a process's CPU time: the searches' 1.5 s around the run left out).
 * @template [M=undefined]
 * @param {string} url
 * @param {import("@modelcontextprotocol/client").Client} client
 * @param {string} program
 * @param {() => M} [measure]
 * @returns {Promise<{ heavy: Outcome, waited: number, polled: Awaited<ReturnType<Awaited<ReturnType<typeof pollSearch>>["stop"]>>, measured: { before: M, after: M } }>}
 */
export async function runWhileSearching(url, client, program, measure) {
  const poller = await pollSearch(url);
  await new Promise((r) => setTimeout(r, 1_000));
  const read = () => /** @type {M} */ (measure?.());
  const before = read();
  const from = Date.now();
  const heavy = await timedCall(client, "execute", program, 300_000);
  const to = Date.now();
  const after = read();
  await new Promise((r) => setTimeout(r, 500));
  const waited = poller.longestWithin(from, to);
  const polled = await poller.stop();
  return { heavy, waited, polled, measured: { before, after } };
}
