/**
 * A hostile local process that hides its sockets from the callers' look behind a big descriptor
 * table (attack29), against a victim `search` every 100 ms from another process
 * (test/e2e/support/load-clients.mjs pollSearch). No SCM_RIGHTS, no child holding its sockets:
 * the process opens FDS descriptors of /dev/null first, so each socket it then connects gets a
 * descriptor past them, and the front's scan of its /proc/<pid>/fd runs out of its link budget
 * (callers/socket-process.mjs, LINKS_PER_LOOK) before it reaches one. The socket is given its
 * user's key only after SCANS_PER_SOCKET scans (one per SCAN_GAP_MS), later than the request's
 * wait for its caller (callers/caller-wait.mjs, CALLER_WAIT_MS): the request went on as
 * `unknown`, which the host places as nobody, never capped.
 *
 * Two phases on one server: the control (FDS 0: the process is found, one caller, kept to all
 * runners but one) and the attack (FDS descriptors first). Each phase: N threads, each sending
 * one `execute` of a CPU loop of HOLD s on a connection of its own. Prints the hostile answers
 * and the victim's longest wait and failures per phase. Bounded: every child has a deadline, and
 * the server is stopped whatever happens.
 *
 *   npm exec -- node bench/diagnostics/one-against-another/hidden-holder.mjs [N] [HOLD] [FDS]
 */
import { fileURLToPath } from "node:url";
import { runToEnd, searchVictim } from "./child-run.mjs";
import { startServer } from "../../../test/e2e/support/server.mjs";

const [n = "6", hold = "6", fds = "15000"] = process.argv.slice(2);

/** The hostile process (python3 -c HOSTILE PORT N HOLD FDS). */
const HOSTILE = String.raw`
import os, socket, sys, threading, time, json

port, n, hold, fds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
filler = [os.open("/dev/null", os.O_RDONLY) for _ in range(fds)]
code = "async () => { const e = Date.now() + %d; while (Date.now() < e); return 1 }" % int(hold * 1000)
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "execute", "arguments": {"code": code}}}).encode()
head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n").encode()
results = []


def one(i):
    start = time.time()
    s = socket.create_connection(("127.0.0.1", port))
    fd = s.fileno()
    s.sendall(head + body)
    s.settimeout(60)
    data = b""
    try:
        while b"\r\n0\r\n" not in data and b'"result"' not in data and b'"error"' not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except Exception as e:
        data += repr(e).encode()
    s.close()
    status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "none"
    text = data.decode("utf-8", "replace")
    err = text[text.find('"text"'):][:100] if "isError\":true" in text else ""
    results.append((i, fd, status, round(time.time() - start, 1), err))


threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
for t in threads:
    t.join(90)
print("hostile (status, s, fd):", [(r[2], r[3], r[1]) for r in sorted(results)], [r[4] for r in results if r[4]][:1])
`;

if (process.env.HIDDEN_VICTIM)
  await searchVictim(process.env.HIDDEN_VICTIM, Number(process.env.VICTIM_MS));

const server = await startServer({});
try {
  for (const phase of [0, Number(fds)]) {
    const victim = runToEnd(process.execPath, [fileURLToPath(import.meta.url)], {
      HIDDEN_VICTIM: server.url,
      VICTIM_MS: String((Number(hold) + 9) * 1000),
    });
    await new Promise((r) => setTimeout(r, 2_000));
    const hostile = await runToEnd("python3", [
      "-c",
      HOSTILE,
      String(server.port),
      n,
      hold,
      String(phase),
    ]);
    console.log(`phase fds=${phase}: ${hostile}\n  ${await victim}`);
    await new Promise((r) => setTimeout(r, 3_000));
  }
} finally {
  await server.stop();
}
