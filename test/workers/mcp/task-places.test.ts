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
import { createMcpHandler, setTaskSupport } from "../../../src/index";
import { connect, until } from "./task-clients";

/**
 * Which held runs may end. Flags polled on timers, not shared promises: the tool runs in the
 * task object's context, the test in its own. Every wait is bounded so a failed test never
 * leaves a run spinning.
 */
const opened = new Set<string>();

function holding(name: string, ignoreCancel: boolean) {
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
      return server;
    },
    {
      tasks: {
        namespace: () => env.MCP_TASKS,
        name,
        pollIntervalMs: 50,
        limits: { perCaller: 2, total: 3 },
      },
    },
  );
}

// Module scope, as documented: the task objects find the handlers by name.
const bounded = holding("places-test-bounded", false);
const stubborn = holding("places-test-stubborn", true);

type Session = Awaited<ReturnType<typeof connect>>["session"];
type Task = Awaited<ReturnType<typeof start>>;

async function start(session: Session, key: string) {
  const execution = await session.callTool("hold", { key });
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
});
