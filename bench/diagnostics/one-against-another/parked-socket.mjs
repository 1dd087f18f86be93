/**
 * A hostile local process whose connections no process holds while the front looks for their
 * caller (attack28), against a victim `search` every 100 ms
 * from another process (test/e2e/support/load-clients.mjs pollSearch). Two phases on one server:
 * the control (sockets held as usual: the hostile process is one caller, kept to all runners
 * but one) and the attack (each socket parked in flight for PARK s: its request goes on as
 * `unknown`, placed as nobody). Prints the victim's longest wait and failures per phase.
 * Bounded: every child has a deadline, and the server is stopped whatever happens.
 *
 * The hostile process is Python ({@link HOSTILE}): Node cannot leave a socket in flight. Each of
 * N threads connects, sends one `execute` of a program holding its runner's thread for HOLD s,
 * then sends its socket over a Unix socket pair (SCM_RIGHTS) without reading it and closes its
 * own descriptor: /proc/net/tcp still shows the socket, but no /proc/<pid>/fd links it, so the
 * front's look (cli/local-server/front/callers/) never finds its holder; the request goes on as
 * `unknown` (written when the front waited up to a second for the look, since taken out: a new
 * connection's first requests now go on as `unknown` at once, parked or not), which the host
 * places as nobody (src/app/placement-caller.ts: ""), never capped. After PARK s the thread takes its socket back and reads the answer.
 *
 * PARK `task` instead: the attack phase sends the executes as tasks (`task: { ttl }`, answered
 * `working` at once), sockets held as usual: a task's rounds run in its Durable Object, outside
 * the creating request's caller (src/mcp/tasks/task-store.ts runRounds), so they are placed as
 * nobody too.
 *
 *   npm exec -- node bench/diagnostics/one-against-another/parked-socket.mjs [N] [HOLD] [PARK]
 */
import { fileURLToPath } from "node:url";
import { runToEnd, searchVictim } from "./child-run.mjs";
import { startServer } from "../../../test/e2e/support/server.mjs";

const [n = "6", hold = "6", parkArg = "3"] = process.argv.slice(2);
/** Seconds each socket is parked; -1: the tasks phase. */
const park = parkArg === "task" ? "-1" : parkArg;

/** The hostile process (python3 -c HOSTILE PORT N HOLD PARK); PARK 0: sockets held as usual. */
const HOSTILE = String.raw`
import array, socket, sys, threading, time, json

port, n, hold, park = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
code = "async () => { const e = Date.now() + %d; while (Date.now() < e); return 1 }" % int(hold * 1000)
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "execute", "arguments": {"code": code}}})
if park < 0:  # the tasks phase: task-augmented, answered "working" at once; sockets held
    body = body.replace('"name": "execute",', '"name": "execute", "task": {"ttl": 60000},')
body = body.encode()
head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n").encode()
results = []


def one(i):
    start = time.time()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(head + body)
    if park > 0:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [s.fileno()]))])
        s.close()  # only the message in flight holds it now
        time.sleep(park)
        _, fds, _, _ = socket.recv_fds(b, 1, 1)
        s = socket.socket(fileno=fds[0])
        a.close(); b.close()
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
    err = text[text.find('"text"'):][:160] if "isError\":true" in text else ""
    results.append((i, status, round(time.time() - start, 1), err))


threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
for t in threads:
    t.join(90)
print("hostile:", sorted(results))
`;

if (process.env.PARKED_VICTIM)
  await searchVictim(process.env.PARKED_VICTIM, Number(process.env.VICTIM_MS));

const server = await startServer({});
try {
  for (const phase of [0, Number(park)]) {
    const victim = runToEnd(process.execPath, [fileURLToPath(import.meta.url)], {
      PARKED_VICTIM: server.url,
      VICTIM_MS: String((Number(hold) + Number(phase) + 8) * 1000),
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
    console.log(`phase park=${phase}: ${hostile}\n  ${await victim}`);
    await new Promise((r) => setTimeout(r, 3_000));
  }
} finally {
  await server.stop();
}
