/**
 * The callers' keys (cli/local-server/front/callers/peer-owners.mjs, socket-process.mjs),
 * decision by decision: a made-up /proc (fake-proc.ts), the supervisor's fake clock, fake
 * sockets; no network, no timing.
 */
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import {
  createPeerOwners,
  LOOK_GAP_MS,
  LOOK_REST,
  SOCKETS_PER_LOOK,
  FAULT_REST_MS,
  UNKNOWN,
  UNNAMED,
  WAITING_MAX,
} from "../../../../../cli/local-server/front/callers/peer-owners.mjs";
import {
  createSocketProcesses,
  OWNERS_MAX,
  SCAN_GAP_MS,
} from "../../../../../cli/local-server/front/callers/socket-process.mjs";
import { fakeClock } from "../../supervisor/fake-clock";
import { type FakeProcess, fakeProc, HEADER, holding, line, v4 } from "./fake-proc";

const OUR_UID = 1000;
const FRONT = v4("127.0.0.1", 8080);

/** A socket as the front holds it: a connection from `port` (and `address`) to the front. */
function socket(port: number, address = "127.0.0.1") {
  return {
    remoteAddress: address,
    remotePort: port,
    localAddress: address.startsWith("::ffff:") || address.includes(".") ? "127.0.0.1" : "::1",
    localPort: 8080,
    destroyed: false,
  };
}
const as = (s: ReturnType<typeof socket>) => s as unknown as Socket;

/**
 * A machine: connections (client port, owner uid, inode) in the table, both sides, and processes.
 */
function machine(
  connections: { port: number; uid?: number; inode: string }[],
  processes: Record<number, FakeProcess>,
) {
  const state = {
    tcp: "",
    tcp6: HEADER,
    processes: new Map(Object.entries(processes).map(([pid, p]) => [Number(pid), p])),
    uncounted: false,
  };
  const write = (list: typeof connections) => {
    const lines = [HEADER];
    for (const { port, uid = OUR_UID, inode } of list) {
      lines.push(line(lines.length, FRONT, v4("127.0.0.1", port), OUR_UID, `9${inode}`));
      lines.push(line(lines.length, v4("127.0.0.1", port), FRONT, uid, inode));
    }
    state.tcp = `${lines.join("\n")}\n`;
  };
  write(connections);
  const fake = fakeProc(state);
  const clock = fakeClock();
  return { state, write, ...fake, clock };
}

describe("peer owners", () => {
  it("keys a client by the process holding its socket, once looked up", async () => {
    const m = machine([{ port: 50001, inode: "1001" }], {
      10: holding(["77"]),
      20: holding(["1001"]),
    });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const client = socket(50001);
    expect(owners.of(as(client))).toBe(UNKNOWN);
    await m.clock.advance(0);
    expect(owners.of(as(client))).toBe("process:20");
    // Kept for the socket's life: asked again, no look.
    for (let i = 0; i < 10; i++) owners.of(as(client));
    await m.clock.advance(10 * LOOK_GAP_MS);
    expect(m.counts.tables).toBe(1);
  });

  it("tells onKnown each key a look found, once per socket", async () => {
    const m = machine(
      [
        { port: 50001, inode: "1001" },
        { port: 50002, uid: 1005, inode: "1002" },
      ],
      { 20: holding(["1001"]) },
    );
    const known: [unknown, string][] = [];
    const owners = createPeerOwners({
      proc: m.proc,
      clock: m.clock,
      uid: OUR_UID,
      onKnown: (s, key) => known.push([s, key]),
    });
    const a = socket(50001);
    const b = socket(50002);
    owners.of(as(a));
    owners.of(as(b));
    owners.of(as(socket(40000, "10.1.2.3"))); // keyed at once: nothing to tell
    expect(known).toEqual([]);
    await m.clock.advance(0);
    expect(known).toEqual([
      [b, "user:1005"],
      [a, "process:20"],
    ]);
    owners.of(as(a));
    await m.clock.advance(10 * LOOK_GAP_MS);
    expect(known.length).toBe(2);
  });

  it("keys a remote peer by its address, without reading /proc", async () => {
    const m = machine([], {});
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    expect(owners.of(as(socket(40000, "10.1.2.3")))).toBe("address:10.1.2.3");
    expect(
      owners.of(as({ ...socket(40001, "::ffff:10.1.2.3"), localAddress: "::ffff:10.0.0.9" })),
    ).toBe("address:10.1.2.3");
    // A peer at the front's own non-loopback address is on this machine: looked up.
    expect(owners.of(as({ ...socket(40002, "10.0.0.9"), localAddress: "10.0.0.9" }))).toBe(UNKNOWN);
    expect(owners.waiting()).toBe(1);
    await m.clock.advance(0);
    expect(m.counts.tables).toBe(1);
  });

  it("keys another user's client by its uid, without reading that user's processes", async () => {
    const m = machine([{ port: 50001, uid: 1005, inode: "1001" }], { 20: "EACCES" });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const client = socket(50001);
    owners.of(as(client));
    await m.clock.advance(0);
    expect(owners.of(as(client))).toBe("user:1005");
    expect(m.counts.scans).toBe(0);
  });

  it("root reads every user's processes", async () => {
    const m = machine([{ port: 50001, uid: 1005, inode: "1001" }], { 20: holding(["1001"]) });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: 0 });
    const client = socket(50001);
    owners.of(as(client));
    await m.clock.advance(0);
    expect(owners.of(as(client))).toBe("process:20");
  });

  it("finds a client behind an IPv6 socket of the front (a mapped address)", async () => {
    const m = machine([{ port: 50001, inode: "1001" }], { 20: holding(["1001"]) });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const client = { ...socket(50001, "::ffff:127.0.0.1"), localAddress: "::ffff:127.0.0.1" };
    owners.of(as(client));
    await m.clock.advance(0);
    expect(owners.of(as(client))).toBe("process:20");
  });

  it("looks once for every socket asked about meanwhile, at most once per LOOK_GAP_MS", async () => {
    const connections = Array.from({ length: 100 }, (_, i) => ({
      port: 50000 + i,
      inode: String(2000 + i),
    }));
    const m = machine(connections, { 20: holding(connections.map((c) => c.inode)) });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const sockets = connections.map((c) => socket(c.port));
    for (const s of sockets.slice(0, 50)) for (let i = 0; i < 3; i++) owners.of(as(s));
    await m.clock.advance(0);
    expect(m.counts.tables).toBe(1);
    expect(sockets.slice(0, 50).every((s) => owners.of(as(s)) === "process:20")).toBe(true);
    // The next ones, right after: they wait for the gap, then share one look.
    for (const s of sockets.slice(50)) owners.of(as(s));
    await m.clock.advance(LOOK_GAP_MS - 1);
    expect(m.counts.tables).toBe(1);
    expect(owners.of(as(sockets[99]!))).toBe(UNKNOWN);
    await m.clock.advance(1);
    expect(m.counts.tables).toBe(2);
    expect(sockets.every((s) => owners.of(as(s)) === "process:20")).toBe(true);
  });

  it("runs one look at a time: a slow /proc delays the next, never doubles it, rests after it", async () => {
    const m = machine(
      [
        { port: 50001, inode: "1001" },
        { port: 50002, inode: "1002" },
      ],
      { 20: holding(["1001", "1002"]) },
    );
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const release = m.holdReads();
    owners.of(as(socket(50001)));
    await m.clock.advance(0);
    owners.of(as(socket(50002)));
    await m.clock.advance(5 * LOOK_GAP_MS);
    expect(m.counts.tables).toBe(1);
    release();
    await m.clock.advance(0);
    // The look took 5 gaps: the next one rests LOOK_REST times that first.
    expect(m.counts.tables).toBe(1);
    await m.clock.advance(LOOK_REST * 5 * LOOK_GAP_MS - 1);
    expect(m.counts.tables).toBe(1);
    await m.clock.advance(1);
    expect(m.counts.tables).toBe(2);
  });

  it("skips sockets that closed before their look", async () => {
    const m = machine([{ port: 50001, inode: "1001" }], { 20: holding(["1001"]) });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const client = socket(50001);
    owners.of(as(client));
    client.destroyed = true;
    await m.clock.advance(0);
    expect(m.counts.tables).toBe(0);
    expect(owners.waiting()).toBe(0);
  });

  it.each([
    ["counts", false],
    ["does not count", true],
  ])(
    "finds a small honest process beside one holding 50,000 descriptors (the kernel %s them)",
    async (_, uncounted) => {
      const attacker: FakeProcess = {
        fds: 50_000,
        link: (fd: number) => `socket:[${900_000 + fd}]`,
      };
      // The attacker's pid comes first in /proc.
      const m = machine([{ port: 50001, inode: "1001" }], { 10: attacker, 20: holding(["1001"]) });
      m.state.uncounted = uncounted;
      const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
      const client = socket(50001);
      owners.of(as(client));
      await m.clock.advance(0);
      expect(owners.of(as(client))).toBe("process:20");
      expect(m.counts.reads.get(10) ?? 0).toBe(0);
      expect(m.counts.listed).toBeLessThanOrEqual(20_010);
    },
  );

  it("lists small processes first where the kernel counts descriptors (big ones never)", async () => {
    const big = (): FakeProcess => ({ fds: 20_000, link: (fd: number) => `socket:[${800 + fd}]` });
    const m = machine([{ port: 50001, inode: "1001" }], {
      10: big(),
      11: big(),
      12: big(),
      13: big(),
      14: big(),
      20: holding(["1001"]),
    });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const client = socket(50001);
    owners.of(as(client));
    await m.clock.advance(0);
    expect(owners.of(as(client))).toBe("process:20");
    expect(m.counts.listed).toBe(4);
  });

  it("a remembered process with many descriptors leaves the scan its budget", async () => {
    // The attacker's own socket is its first descriptor: found, and remembered.
    const attacker: FakeProcess = {
      fds: 20_000,
      link: (fd: number) => (fd === 0 ? "socket:[1001]" : `socket:[${900_000 + fd}]`),
    };
    const m = machine([{ port: 50001, inode: "1001" }], { 10: attacker });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    owners.of(as(socket(50001)));
    await m.clock.advance(0);
    expect(owners.of(as(socket(50001)))).toBe(UNKNOWN); // another socket object: not the same
    // A new honest client, after the scan gap.
    m.state.processes.set(30, holding(["3003"]));
    m.write([
      { port: 50001, inode: "1001" },
      { port: 50003, inode: "3003" },
    ]);
    await m.clock.advance(SCAN_GAP_MS);
    const honest = socket(50003);
    owners.of(as(honest));
    await m.clock.advance(LOOK_GAP_MS);
    expect(owners.of(as(honest))).toBe("process:30");
  });

  it("scans every process at most once per SCAN_GAP_MS; waiting sockets get the next scan", async () => {
    const m = machine(
      [
        { port: 50001, inode: "1001" },
        { port: 50002, inode: "1002" },
      ],
      { 20: holding(["1001"]), 30: holding(["1002"]) },
    );
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    owners.of(as(socket(50001)));
    await m.clock.advance(0);
    expect(m.counts.scans).toBe(1);
    const late = socket(50002);
    owners.of(as(late));
    // Looks every LOOK_GAP_MS read the remembered process 20 only; no scan before the gap.
    await m.clock.advance(SCAN_GAP_MS - 1);
    expect(m.counts.scans).toBe(1);
    expect(m.counts.tables).toBe(2); // the table once for it: its owner is kept meanwhile
    expect(owners.of(as(late))).toBe(UNKNOWN);
    await m.clock.advance(LOOK_GAP_MS);
    expect(m.counts.scans).toBe(2);
    expect(owners.of(as(late))).toBe("process:30");
  });

  it("starts the next scan where listing ran out, so big processes only delay the rest", async () => {
    const big = (): FakeProcess => ({ fds: 30, link: (fd: number) => `socket:[${800 + fd}]` });
    const m = machine([{ port: 50001, inode: "1001" }], {
      10: big(),
      11: big(),
      20: holding(["1001"]),
    });
    // A kernel that does not count descriptors: the scan lists them, 40 at most, and processes
    // 10 and 11 use that up.
    m.state.uncounted = true;
    const owners = createPeerOwners({
      proc: m.proc,
      clock: m.clock,
      uid: OUR_UID,
      listedPerLook: 40,
    });
    const client = socket(50001);
    owners.of(as(client));
    await m.clock.advance(0);
    expect(owners.of(as(client))).toBe(UNKNOWN);
    await m.clock.advance(SCAN_GAP_MS);
    expect(owners.of(as(client))).toBe("process:20");
  });

  it("gives a socket of ours that stays hidden its user's key after SCANS_PER_SOCKET scans", async () => {
    const m = machine([{ port: 50001, inode: "1001" }], { 20: holding(["77"]), 30: "ENOENT" });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const hidden = socket(50001);
    owners.of(as(hidden));
    await m.clock.advance(0);
    expect(owners.of(as(hidden))).toBe(UNKNOWN);
    await m.clock.advance(SCAN_GAP_MS);
    expect(owners.of(as(hidden))).toBe(`user:${OUR_UID}`);
    expect(m.counts.scans).toBe(2);
    // Given up: no more looks.
    await m.clock.advance(10 * SCAN_GAP_MS);
    expect(m.counts.scans).toBe(2);
    expect(owners.waiting()).toBe(0);
  });

  it("tells the user's key of a socket the table showed while its holder is looked for", async () => {
    // A request on it that waited its most goes on by this key, not as `unknown` (caller-wait.mjs).
    const m = machine([{ port: 50001, inode: "1001" }], { 20: holding(["77"]) });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const hidden = socket(50001);
    owners.of(as(hidden));
    expect(owners.seenAs(as(hidden))).toBeUndefined(); // the table not read yet
    await m.clock.advance(0);
    expect(owners.of(as(hidden))).toBe(UNKNOWN);
    expect(owners.looking(as(hidden))).toBe(true);
    expect(owners.seenAs(as(hidden))).toBe(`user:${OUR_UID}`);
    await m.clock.advance(SCAN_GAP_MS);
    expect(owners.of(as(hidden))).toBe(`user:${OUR_UID}`);
    expect(owners.seenAs(as(hidden))).toBeUndefined(); // no longer waiting: of() tells it
    // Not in the table: nothing seen.
    const gone = socket(50009);
    owners.of(as(gone));
    await m.clock.advance(LOOK_GAP_MS);
    expect(owners.seenAs(as(gone))).toBeUndefined();
  });

  it("skips processes it may not read (EACCES) or that ended (ENOENT)", async () => {
    const m = machine([{ port: 50001, inode: "1001" }], {
      5: "EACCES",
      6: "ENOENT",
      20: holding(["1001"]),
    });
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const client = socket(50001);
    owners.of(as(client));
    await m.clock.advance(0);
    expect(owners.of(as(client))).toBe("process:20");
  });

  it("keys a socket whose holder closed it (inode 0) unknown, and one not in the table", async () => {
    const m = machine([{ port: 50001, inode: "0" }], {});
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    const orphan = socket(50001);
    const missing = socket(50009);
    owners.of(as(orphan));
    owners.of(as(missing));
    await m.clock.advance(0);
    expect(owners.waiting()).toBe(1); // the missing one is tried once more
    await m.clock.advance(LOOK_GAP_MS);
    expect(owners.waiting()).toBe(0);
    expect(m.counts.tables).toBe(2);
    expect(m.counts.scans).toBe(0);
    expect(owners.of(as(orphan))).toBe(UNKNOWN);
    expect(owners.of(as(missing))).toBe(UNKNOWN);
    await m.clock.advance(10 * LOOK_GAP_MS);
    expect(m.counts.tables).toBe(2);
  });

  it("without /proc/net/tcp, names no local client (UNNAMED) and never looks again", async () => {
    const m = machine([], {});
    m.state.tcp = undefined as unknown as string;
    const owners = createPeerOwners({ proc: m.proc, clock: m.clock, uid: OUR_UID });
    owners.of(as(socket(50001)));
    await m.clock.advance(0);
    expect(m.counts.tables).toBe(1);
    for (let i = 0; i < 20; i++) expect(owners.of(as(socket(50002 + i)))).toBe(UNNAMED);
    await m.clock.advance(10 * SCAN_GAP_MS);
    expect(m.counts.tables).toBe(1);
    expect(owners.waiting()).toBe(0);
    // A remote peer still has its key.
    expect(owners.of(as(socket(40000, "10.1.2.3")))).toBe("address:10.1.2.3");
  });

  it("rests after a look fails and tries again: a fault never blinds the front for good", async () => {
    const m = machine([{ port: 50001, inode: "1001" }], { 20: holding(["1001"]) });
    let faults = 1;
    const proc = {
      ...m.proc,
      readlinks: (paths: string[]) =>
        faults-- > 0 ? Promise.reject(new Error("a fault")) : m.proc.readlinks(paths),
    };
    const owners = createPeerOwners({ proc, clock: m.clock, uid: OUR_UID });
    const client = socket(50001);
    owners.of(as(client));
    await m.clock.advance(0);
    expect(m.counts.tables).toBe(1);
    // Still waiting, not blind; no look during the rest.
    expect(owners.waiting()).toBe(1);
    expect(owners.of(as(client))).toBe(UNKNOWN);
    await m.clock.advance(FAULT_REST_MS - 1);
    expect(owners.of(as(client))).toBe(UNKNOWN);
    await m.clock.advance(1);
    expect(owners.of(as(client))).toBe("process:20");
  });

  it("takes a table that fails to open for another reason (EMFILE) as a fault, not as absent", async () => {
    const m = machine([{ port: 50001, inode: "1001" }], { 20: holding(["1001"]) });
    let faults = 1;
    const proc = {
      ...m.proc,
      readFile: (path: string) =>
        faults-- > 0
          ? Promise.reject(
              Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" }),
            )
          : m.proc.readFile(path),
    };
    const owners = createPeerOwners({ proc, clock: m.clock, uid: OUR_UID });
    const client = socket(50001);
    owners.of(as(client));
    await m.clock.advance(0);
    expect(owners.of(as(client))).toBe(UNKNOWN);
    await m.clock.advance(FAULT_REST_MS);
    expect(owners.of(as(client))).toBe("process:20");
  });

  it("bounds the sockets waiting, and those one look resolves", async () => {
    const count = WAITING_MAX + 10;
    const connections = Array.from({ length: count }, (_, i) => ({
      port: 10000 + i,
      inode: String(100_000 + i),
    }));
    const m = machine(connections, { 20: holding(connections.map((c) => c.inode)) });
    const owners = createPeerOwners({
      proc: m.proc,
      clock: m.clock,
      uid: OUR_UID,
      linksPerLook: 100_000,
    });
    const sockets = connections.map((c) => socket(c.port));
    for (const s of sockets) owners.of(as(s));
    expect(owners.waiting()).toBe(WAITING_MAX);
    await m.clock.advance(0);
    expect(owners.waiting()).toBe(WAITING_MAX - SOCKETS_PER_LOOK);
    // One left out is asked about again at its next request.
    expect(owners.of(as(sockets[count - 1]!))).toBe(UNKNOWN);
    expect(owners.waiting()).toBe(WAITING_MAX - SOCKETS_PER_LOOK + 1);
  });

  it("remembers at most OWNERS_MAX processes", async () => {
    const processes = new Map<number, FakeProcess>();
    for (let pid = 100; pid < 100 + 2 * OWNERS_MAX; pid++) processes.set(pid, holding([`s${pid}`]));
    const m = fakeProc({ processes });
    const finder = createSocketProcesses({ proc: m.proc, clock: fakeClock() });
    const { found } = await finder.find(new Set([...processes.keys()].map((pid) => `s${pid}`)));
    expect(found.size).toBe(2 * OWNERS_MAX);
    expect(finder.owners()).toBe(OWNERS_MAX);
  });
});
