// Issue #13: stopping `npm start` leaves nothing behind. For each way a server is stopped (SIGTERM
// or SIGINT (Ctrl-C) to its process group, SIGTERM to npm alone, SIGKILL of the supervisor), a
// server with its warm standby running is stopped, every process it had (checked by pid: npm, the
// supervisor, the runtime host and every workerd: host, standby and runners) must be gone within a few seconds and the
// port free; the next server then starts on the same port with the same local data and serves it.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../cli/local-server/free-port.mjs";
import { processTree, stillRunning } from "./support/processes.mjs";
import { check, startServer } from "./support/server.mjs";

const GONE_WITHIN_MS = 5_000;
/** @type {[string, (npm: number, tree: import("./support/processes.mjs").Proc[]) => void][]} */
const STOPS = [
  ["SIGTERM to the process group", (npm) => process.kill(-npm, "SIGTERM")],
  ["SIGINT (Ctrl-C) to the process group", (npm) => process.kill(-npm, "SIGINT")],
  ["SIGTERM to npm alone", (npm) => process.kill(npm, "SIGTERM")],
  [
    "SIGKILL of the supervisor",
    (_npm, tree) => {
      // The Node process itself: npm runs it through `sh -c`, whose command line ends the same.
      const supervisor = tree.find(
        (p) => p.command.endsWith("scripts/start.mjs") && !/^(\S*\/)?sh -c /.test(p.command),
      );
      check(supervisor, `no supervisor in ${JSON.stringify(tree)}`);
      process.kill(supervisor.pid, "SIGKILL");
    },
  ],
];

/** Whether something accepts connections on the port. @param {number} port */
const listening = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

const port = String(await freePort());
const persist = mkdtempSync(join(tmpdir(), "codemode-e2e-restart-"));
let taskId = 0;
/** The private socket folder of the server that was SIGKILLed (left behind until the next start). */
let killedFolder = "";
try {
  for (const [label, stop] of STOPS) {
    // With a warm standby: every process the server can have must be gone.
    const server = await startServer({ PORT: port, PERSIST_TO: persist, HOST_STANDBY: "warm" });
    try {
      // The data of the earlier server is there; write one for the next.
      if (taskId) {
        const res = await fetch(`${server.url}/demo-api/tasks/${taskId}`);
        check(res.status === 200, `task ${taskId} of the earlier server: ${res.status}`);
      }
      const created = await fetch(`${server.url}/demo-api/tasks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ projectId: 1, title: `before ${label}` }),
      });
      taskId = (await created.json()).id;
      const deadline = Date.now() + 120_000;
      while (!server.output().includes(" stands by.")) {
        check(Date.now() < deadline, `no standby:\n${server.output()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      // The host, its standby and every sandbox runner running is one workerd each (the start
      // line says how many runners run: they start on demand, issue #43).
      const runners = Number(/, (\d+) running\)/.exec(server.output())?.[1] ?? 0);
      const tree = processTree(server.pid);
      const workerd = tree.filter((p) => p.command.includes("workerd serve")).length;
      check(
        workerd === 2 + runners,
        `expected host + standby + ${runners} runners = ${2 + runners} workerd, found ${workerd}`,
      );
      const pids = tree.map((p) => p.pid);
      // The server's private socket folder: where a workerd's entry socket is.
      const entry = tree
        .map((p) => /--socket-addr=entry=unix:(\S+)\/r\d+\.entry\.sock/.exec(p.command)?.[1])
        .find(Boolean);
      const folder = entry;
      check(folder && existsSync(folder), `no socket folder in ${JSON.stringify(tree)}`);
      stop(server.pid, tree);
      const stopped = Date.now();
      let left = stillRunning(pids);
      while (left.length > 0 && Date.now() - stopped < GONE_WITHIN_MS) {
        await new Promise((r) => setTimeout(r, 100));
        left = stillRunning(pids);
      }
      const ms = Date.now() - stopped;
      const leftover = tree
        .filter((p) => left.includes(p.pid))
        .map((p) => `${p.pid} ${p.command.slice(0, 100)}`);
      check(left.length === 0, `${label}: still running after ${ms} ms:\n${leftover.join("\n")}`);
      check(!(await listening(Number(port))), `${label}: port ${port} still taken`);
      // A stop removes the socket folder; a SIGKILLed supervisor cannot: the next start does.
      if (label.startsWith("SIGKILL")) killedFolder = folder;
      else check(!existsSync(folder), `${label}: the socket folder ${folder} is left`);
      console.log(
        `e2e stop-restart: ${label}: all ${pids.length} processes gone in ${ms} ms, port free — ok`,
      );
    } finally {
      await server.stop();
    }
  }
  const last = await startServer({ PORT: port, PERSIST_TO: persist });
  try {
    const res = await fetch(`${last.url}/demo-api/tasks/${taskId}`);
    check(res.status === 200, `the restarted server lost task ${taskId}: ${res.status}`);
    check(
      killedFolder && !existsSync(killedFolder),
      `the SIGKILLed server's socket folder ${killedFolder} is still there after the next start`,
    );
  } finally {
    await last.stop();
  }
  console.log(
    "e2e stop-restart: restarted on the same port and folder, data intact, the killed server's socket folder removed — ok",
  );
} finally {
  rmSync(persist, { recursive: true, force: true });
}
