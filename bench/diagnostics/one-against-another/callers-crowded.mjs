/**
 * Whether small processes can push an honest client out of the callers' look (issue #40;
 * attack27): SMALL `sleep` processes each holding FDS descriptors (/dev/null), fewer than the
 * honest client's, are read first by every scan (fewest descriptors first,
 * cli/local-server/front/callers/socket-process.mjs) and use up its link budget (LINKS_PER_LOOK)
 * before the client's process comes; after SCANS_PER_SOCKET such scans its socket is given its
 * user's key, `user:<uid>`, the key an attacker's storm hidden behind a big descriptor table has
 * too, whose turn it then shares in order of arrival. Prints the honest client's key and when it
 * came. Linux only; the machine's real /proc.
 *
 *   npm exec -- node bench/diagnostics/one-against-another/callers-crowded.mjs [SMALL=400] [FDS=15]
 */
import { spawn } from "node:child_process";
import { openSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { createPeerOwners, UNKNOWN } from "../../../cli/local-server/front/callers/peer-owners.mjs";

const SMALL = Number(process.argv[2] ?? 400);
const FDS = Number(process.argv[3] ?? 15);
const WAIT_MS = 8_000;

/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const server = createServer();
/** @type {import("node:net").Socket[]} */
const accepted = [];
server.on("connection", (socket) => accepted.push(socket));
await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
const port = /** @type {import("node:net").AddressInfo} */ (server.address()).port;
const devNull = openSync("/dev/null", "r");
const small = Array.from({ length: SMALL }, () =>
  spawn("sleep", [String(WAIT_MS / 1_000 + 30)], { stdio: Array(FDS).fill(devNull) }),
);
const honest = spawn(
  process.execPath,
  ["-e", `require("node:net").connect(${port}, "127.0.0.1"); setTimeout(() => {}, 60000)`],
  { stdio: "ignore" },
);
try {
  while (accepted.length === 0) await sleep(50);
  await sleep(500);
  const socket = /** @type {import("node:net").Socket} */ (accepted[0]);
  const owners = createPeerOwners();
  const began = Date.now();
  let key = owners.of(socket);
  while (key === UNKNOWN && Date.now() - began < WAIT_MS) {
    await sleep(100);
    key = owners.of(socket);
  }
  console.log(
    `load ${loadavg()[0]?.toFixed(1)}; ${SMALL} small processes of ${FDS} descriptors, the honest client's ${readdirSync(`/proc/${honest.pid}/fd`).length}: its key ${key} (pid ${honest.pid}) after ${Date.now() - began} ms`,
  );
} finally {
  honest.kill("SIGKILL");
  for (const child of small) child.kill("SIGKILL");
  server.close();
}
