/**
 * Which socket folders of killed servers are removed (cli/local-server/stale-folders.mjs), and
 * nothing else: a folder is stale when its lock socket refuses (its process is gone), never only
 * because its owner pid looks gone from here (another PID namespace sharing /tmp, issue #40
 * review); a lockless folder (an older server's) only when old, its pid gone and no socket in it
 * answering; never another user's, a link, a file, or this process's own. Real folders and
 * sockets in a scratch folder; owners, the process table and the clock are given; one lock is
 * held by a real child process that is then SIGKILLed.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  holdLock,
  LOCK_NAME,
  LOCKLESS_GRACE_MS,
  probeSocket,
  removeStaleFolders,
  staleFolder,
} from "../../../../cli/local-server/stale-folders.mjs";
import { scratchFolders } from "../../../helpers/cli/scratch-folders";

const { folder } = scratchFolders("cmm-test-stale-");

const uid = process.getuid?.();

describe("removeStaleFolders", () => {
  it("removes this user's folders of servers that are gone, and nothing else", async () => {
    const base = folder(0o1777);
    const gone = join(base, "cmm-4001-AbC123");
    const running = join(base, "cmm-4002-AbC123");
    const own = join(base, "cmm-77-AbC123");
    const older = join(base, "cmm-AbC123"); // an older server's: no owner to look up
    const elsewhere = folder(0o700);
    writeFileSync(join(elsewhere, "keep"), "");
    const link = join(base, "cmm-4004-AbC123");
    const file = join(base, "cmm-4005-AbC123");
    for (const path of [gone, running, own, older]) mkdirSync(path);
    writeFileSync(join(gone, "runner-1.sock:0"), "");
    symlinkSync(elsewhere, link);
    writeFileSync(file, "");
    const deps = {
      uid,
      pid: 77,
      alive: (pid: number) => pid === 4002,
      probe: probeSocket,
      // Lockless folders (servers older than the lock), past their grace.
      now: () => Date.now() + LOCKLESS_GRACE_MS + 1,
    };
    // Seen as another user: not ours to remove.
    if (uid !== undefined)
      expect(await removeStaleFolders(base, { ...deps, uid: uid + 1 })).toEqual([]);
    expect(await removeStaleFolders(base, deps)).toEqual([gone]);
    expect([gone, running, own, older, link, file].map((p) => existsSync(p))).toEqual([
      false,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(existsSync(join(elsewhere, "keep"))).toBe(true);
  });
});

describe("a folder's lock decides whether it is stale (issue #40 review)", () => {
  const base = () => folder(0o1777);
  const deps = (over: object = {}) => ({
    uid,
    pid: 77,
    alive: () => false,
    probe: probeSocket,
    now: () => Date.now() + LOCKLESS_GRACE_MS + 1,
    ...over,
  });

  it("keeps a folder whose lock answers, though its owner pid runs nowhere here (another PID namespace)", async () => {
    // A server in a container sharing /tmp: its pid is not a process here, yet it serves. The
    // pid check alone removed its folder, sockets and all.
    const parent = base();
    const live = join(parent, "cmm-4242-AbC123");
    mkdirSync(live);
    writeFileSync(join(live, "runner-1.sock:0"), "");
    const unlock = holdLock(live);
    try {
      expect(await probeSocket(join(live, LOCK_NAME))).toBe("answers");
      expect(await removeStaleFolders(parent, deps())).toEqual([]);
      expect(existsSync(join(live, "runner-1.sock:0"))).toBe(true);
    } finally {
      unlock();
    }
  });

  it("removes a folder whose lock is refused, though a process of its owner's pid runs here (a pid reused)", async () => {
    const parent = base();
    const dead = join(parent, "cmm-4343-AbC123");
    mkdirSync(dead);
    // A real server process holds the lock, then is SIGKILLed: its socket file stays.
    const module = new URL("../../../../cli/local-server/stale-folders.mjs", import.meta.url).href;
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { holdLock } = await import(${JSON.stringify(module)}); holdLock(${JSON.stringify(dead)}); setInterval(() => {}, 1000); console.log("held");`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise((r) => child.stdout.once("data", r));
    expect(await probeSocket(join(dead, LOCK_NAME))).toBe("answers");
    expect(await removeStaleFolders(parent, deps({ alive: () => true }))).toEqual([]);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(existsSync(join(dead, LOCK_NAME))).toBe(true);
    expect(await probeSocket(join(dead, LOCK_NAME))).toBe("refused");
    expect(await removeStaleFolders(parent, deps({ alive: () => true }))).toEqual([dead]);
  });

  it("without a lock (an older server's folder): kept while young, while its pid runs here, or while a socket in it answers", async () => {
    const path = join(base(), "cmm-4444-AbC123");
    mkdirSync(path);
    writeFileSync(join(path, "r1.entry.sock"), "");
    const info = { mtimeMs: 1_000_000 };
    const answers = new Set<string>();
    const probe = async (p: string) =>
      p.endsWith(LOCK_NAME) ? "missing" : answers.has(p) ? "answers" : "refused";
    const given = { pid: 77, probe, alive: () => false, now: () => 1_000_000 + LOCKLESS_GRACE_MS };
    expect(await staleFolder(path, 4444, info, given as never)).toBe(true);
    expect(await staleFolder(path, 4444, info, { ...given, now: () => 1_000_001 } as never)).toBe(
      false,
    );
    expect(await staleFolder(path, 4444, info, { ...given, alive: () => true } as never)).toBe(
      false,
    );
    answers.add(join(path, "r1.entry.sock"));
    expect(await staleFolder(path, 4444, info, given as never)).toBe(false);
    // Never this process's own, nor one whose lock cannot be told (a full backlog, a timeout).
    expect(await staleFolder(path, 77, info, given as never)).toBe(false);
    const unknown = async () => "unknown" as const;
    expect(await staleFolder(path, 4444, info, { ...given, probe: unknown } as never)).toBe(false);
  });
});
