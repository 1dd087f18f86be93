/**
 * The bound on tasks running at once (`tasks.limits`, task-places.ts), in real workerd with the
 * real task Durable Objects: past a bound a task-augmented call is refused at once; a task's end,
 * its cancel (even of a run that ignores the cancel) and a lapsed lease give the place back.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  acceptedContent,
  createMcpHandler,
  inputRequired,
  setTaskSupport,
} from "../../../src/index";
import { connect, GO, until, untilAsked, untilEnded } from "./task-clients";
import { roundCaller } from "./worker";

/**
 * Which held runs may end. Flags polled on timers, not shared promises: the tool runs in the
 * task object's context, the test in its own. Every wait is bounded so a failed test never
 * leaves a run spinning.
 */
const opened = new Set<string>();

function holding(
  name: string,
  ignoreCancel: boolean,
  limits = { perCaller: 2, total: 3 },
  countAs?: () => string,
) {
  return createMcpHandler(
    () => {
      const server = new McpServer({ name: "holding", version: "1.0.0" });
      const tool = server.registerTool(
        "hold",
        { description: "Runs until the test opens its key", inputSchema: { key: z.string() } },
        async ({ key }, ctx) => {
          for (let i = 0; i < 1500 && !opened.has(key); i++) {
            if (!ignoreCancel && ctx.mcpReq.signal.aborted) break;
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          return { content: [{ type: "text", text: `held ${key}` }] };
        },
      );
      setTaskSupport(tool);
      // Asks once, then answers: a task that waits at input_required between its two rounds.
      const ask = server.registerTool("ask", { description: "Asks, then answers" }, (ctx) => {
        if (acceptedContent(ctx.mcpReq.inputResponses, "go") !== undefined) {
          return { content: [{ type: "text", text: "went" }] };
        }
        return inputRequired({
          inputRequests: {
            go: inputRequired.elicit({
              message: "Go?",
              requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
            }),
          },
        });
      });
      setTaskSupport(ask);
      // Says which caller its round runs as (worker.ts, roundCaller).
      const who = server.registerTool("who", { description: "Names its round's caller" }, () => ({
        content: [{ type: "text", text: `round of ${roundCaller.getStore() ?? "nobody"}` }],
      }));
      setTaskSupport(who);
      return server;
    },
    {
      tasks: {
        namespace: () => env.MCP_TASKS,
        name,
        pollIntervalMs: 50,
        limits,
        ...(countAs && { countAs }),
      },
    },
  );
}

// Module scope, as documented: the task objects find the handlers by name.
const bounded = holding("places-test-bounded", false);
const stubborn = holding("places-test-stubborn", true);
const single = holding("places-test-single", false, { perCaller: 1, total: 1 });
/**
 * Who the handler says is calling (as the app names the local process a request came from:
 * src/app/placement-caller.ts): read by `countAs` while each creating request is served.
 */
let callerNow = "";
const perProcess = holding(
  "places-test-per-process",
  false,
  { perCaller: 2, total: 4 },
  () => callerNow,
);
const perProcessSingle = holding(
  "places-test-per-process-single",
  false,
  { perCaller: 1, total: 2 },
  () => callerNow,
);

type Session = Awaited<ReturnType<typeof connect>>["session"];
type Task = Awaited<ReturnType<typeof start>>;

async function start(session: Session, key: string, tool = "hold") {
  const execution = await session.callTool(tool, { key });
  expect(execution.kind).toBe("task");
  await execution.detach();
  return session.task(execution.handle!.taskId);
}

/** Lets the held runs end and waits until they have (so no place is still held for the next test). */
async function finish(tasks: Task[], keys: string[]) {
  for (const key of keys) opened.add(key);
  for (const task of tasks) {
    await until(
      () => task.snapshot(),
      (view) => view.status !== "working",
    );
  }
}

describe("tasks running at once are bounded", () => {
  it("refuses the caller's third task and the server's fourth at once, and takes them after one ends", async () => {
    const alice = await connect(bounded, { clientId: "alice" });
    const bob = await connect(bounded, { clientId: "bob" });
    const carol = await connect(bounded, { clientId: "carol" });
    const first = await start(alice.session, "a1");
    const second = await start(alice.session, "a2");
    // Alice's third: the per-caller bound (2), named, with what to do.
    await expect(alice.session.callTool("hold", { key: "a3" })).rejects.toThrow(
      /Too many tasks: you already have 2 tasks running.*Wait for one of your tasks to end.*without a task/,
    );
    const third = await start(bob.session, "b1");
    // Carol has none, but the server runs 3 (its total).
    await expect(carol.session.callTool("hold", { key: "c1" })).rejects.toThrow(
      /Too many tasks: this server already runs 3 tasks/,
    );
    // One of Alice's ends: its place is back, for her and for Carol in turn.
    opened.add("a1");
    await until(
      () => first.snapshot(),
      (view) => view.status === "completed",
    );
    const fourth = await start(carol.session, "c1");
    await expect(alice.session.callTool("hold", { key: "a3" })).rejects.toThrow(/Too many tasks/);
    await finish([second, third, fourth], ["a2", "b1", "c1"]);
    await Promise.all([alice.close(), bob.close(), carol.close()]);
  });

  it("a cancelled task gives its place back at once, even when its run ignores the cancel", async () => {
    const mallory = await connect(stubborn, { clientId: "mallory" });
    const first = await start(mallory.session, "m1");
    const second = await start(mallory.session, "m2");
    await expect(mallory.session.callTool("hold", { key: "m3" })).rejects.toThrow(/Too many tasks/);
    await first.cancel();
    expect((await first.snapshot()).status).toBe("cancelled");
    // m1's run goes on (it ignores the cancel), but holds no place any more.
    const third = await start(mallory.session, "m3");
    await finish([second, third], ["m1", "m2", "m3"]);
    await mallory.close();
  });

  it("a place whose task's host stopped renewing it lapses", async () => {
    const trent = await connect(stubborn, { clientId: "trent" });
    const tasks = [await start(trent.session, "t1"), await start(trent.session, "t2")];
    await expect(trent.session.callTool("hold", { key: "t3" })).rejects.toThrow(/Too many tasks/);
    // As if t1's host were gone: its lease is not renewed and runs out.
    const ledger = env.MCP_TASKS.get(env.MCP_TASKS.idFromName("places:places-test-stubborn"));
    await runInDurableObject(ledger, async (_instance, state) => {
      const rows = state.storage.sql
        .exec<{ task: string }>("SELECT task FROM place WHERE owner = ?", "client:trent")
        .toArray();
      expect(rows).toHaveLength(2);
      state.storage.sql.exec("UPDATE place SET until = 0 WHERE task = ?", rows[0]!.task);
    });
    tasks.push(await start(trent.session, "t3"));
    await finish(tasks, ["t1", "t2", "t3"]);
    await trent.close();
  });

  it("a task object that finds itself working with no round (restarted mid-round) gives its place back", async () => {
    const uma = await connect(stubborn, { clientId: "uma" });
    const tasks = [await start(uma.session, "u1"), await start(uma.session, "u2")];
    await expect(uma.session.callTool("hold", { key: "u3" })).rejects.toThrow(/Too many tasks/);
    // As after a restart: the object has no round in memory when its heartbeat alarm fires.
    const object = env.MCP_TASKS.get(env.MCP_TASKS.idFromName(tasks[0]!.taskId));
    await runInDurableObject(object, async (instance) => {
      (instance as unknown as { running: AbortController | undefined }).running = undefined;
      await instance.alarm();
    });
    tasks.push(await start(uma.session, "u3"));
    await finish(tasks, ["u1", "u2", "u3"]);
    await uma.close();
  });

  it("a task waiting for input holds no place, and an answer past the bound is refused unapplied", async () => {
    const bob = await connect(single, { person: "away", clientId: "bob" });
    const asking = await start(bob.session, "q", "ask");
    await untilAsked(asking);
    // Its round has ended: the one place is free for another run.
    const held = await start(bob.session, "s1");
    // The answer would resume a run while s1 holds the place: refused, nothing applied.
    await expect(asking.update(GO)).rejects.toThrow(/Too many tasks/);
    expect((await asking.snapshot()).status).toBe("input_required");
    await finish([held], ["s1"]);
    await asking.update(GO);
    expect((await untilEnded(asking)).status).toBe("completed");
    await bob.close();
  });

  it("counts each caller `countAs` names apart, though they are one owner (two local processes)", async () => {
    // Before: the bound counted by owner alone, and every anonymous client (each local process)
    // was one owner: one process's 16 tasks refused every other process's first.
    const one = await connect(perProcess, { clientId: "anonymous" });
    const two = await connect(perProcess, { clientId: "anonymous" });
    callerNow = "local:process:101";
    const held = [await start(one.session, "p1"), await start(one.session, "p2")];
    await expect(one.session.callTool("hold", { key: "p3" })).rejects.toThrow(
      /Too many tasks: you already have 2 tasks running/,
    );
    callerNow = "local:process:202";
    held.push(await start(two.session, "q1"), await start(two.session, "q2"));
    await expect(two.session.callTool("hold", { key: "q3" })).rejects.toThrow(/you already have 2/);
    const ledger = env.MCP_TASKS.get(env.MCP_TASKS.idFromName("places:places-test-per-process"));
    await runInDurableObject(ledger, async (_instance, state) => {
      const owners = state.storage.sql
        .exec<{ owner: string }>("SELECT owner FROM place ORDER BY owner")
        .toArray()
        .map((row) => row.owner);
      expect(owners).toEqual([
        "local:process:101",
        "local:process:101",
        "local:process:202",
        "local:process:202",
      ]);
    });
    await finish(held, ["p1", "p2", "q1", "q2"]);
    callerNow = "";
    await Promise.all([one.close(), two.close()]);
  });

  it("runs a task's round as the caller that created the task", async () => {
    // Before: a round ran in the task's object as nobody, so the product placed a task's runs on
    // the sandbox runners uncapped (one process's tasks took every runner: attack28).
    const one = await connect(perProcess, { clientId: "anonymous" });
    callerNow = "local:process:505";
    const task = await start(one.session, "w", "who");
    callerNow = "";
    expect((await untilEnded(task)).status).toBe("completed");
    expect(JSON.stringify(await task.result())).toContain("round of local:process:505");
    await one.close();
  });

  it("a resumed round takes its place as the caller that created the task", async () => {
    const one = await connect(perProcessSingle, { person: "away", clientId: "anonymous" });
    callerNow = "local:process:303";
    const asking = await start(one.session, "q", "ask");
    await untilAsked(asking);
    const held = await start(one.session, "r1");
    // The answer comes while another process is being served: the round still counts as 303's,
    // which holds its one place.
    callerNow = "local:process:404";
    await expect(asking.update(GO)).rejects.toThrow(
      /Too many tasks: you already have 1 tasks running/,
    );
    await finish([held], ["r1"]);
    await asking.update(GO);
    expect((await untilEnded(asking)).status).toBe("completed");
    callerNow = "";
    await one.close();
  });
});
