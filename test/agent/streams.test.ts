// Resumable streams of McpAgent sessions: Last-Event-ID replay from the Durable Object event store.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { initializeBody, rpc, workerFetch } from "./helpers";
import { messageOf, SseReader } from "./sse";

const PATH = "/slow";

/** Opens a raw 2025-11-25 session on the slow agent and returns its headers. */
async function openSession() {
  const init = await rpc(PATH, initializeBody());
  const sessionId = init.headers.get("mcp-session-id")!;
  await init.text();
  const headers = {
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-11-25",
  };
  const initialized = await rpc(
    PATH,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    headers,
  );
  expect(initialized.status).toBe(202);
  return { sessionId, headers };
}

function callLong(headers: Record<string, string>, id: number, steps: number, delayMs: number) {
  return rpc(
    PATH,
    {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "long",
        arguments: { id, steps, delayMs },
        _meta: { progressToken: id },
      },
    },
    headers,
  );
}

function resume(headers: Record<string, string>, lastEventId?: string) {
  return workerFetch(`http://localhost${PATH}`, {
    headers: {
      accept: "text/event-stream",
      ...headers,
      ...(lastEventId !== undefined && { "last-event-id": lastEventId }),
    },
  });
}

async function storedEventKeys(sessionId: string): Promise<string[]> {
  const stub = env.SLOW_AGENT.get(env.SLOW_AGENT.idFromString(sessionId));
  return runInDurableObject(stub, async (_agent, state) => [
    ...(await state.storage.list({ prefix: "mcp:event:" })).keys(),
  ]);
}

describe("resumable streams", () => {
  it("a POST stream carries `: keepalive` comments while the tool runs, then its events are deleted", async () => {
    const { sessionId, headers } = await openSession();
    const frames = await new SseReader((await callLong(headers, 1, 3, 60)).body!).rest();
    expect(frames.some((frame) => frame.comment === "keepalive")).toBe(true);
    expect(messageOf(frames.at(-1)!)).toMatchObject({
      id: 1,
      result: { content: [{ text: "done 1" }] },
    });
    expect(await storedEventKeys(sessionId)).toEqual([]);
  });

  it("Last-Event-ID replays every missed event up to the final response, then ends and forgets", async () => {
    const { sessionId, headers } = await openSession();
    const reader = new SseReader((await callLong(headers, 2, 6, 10)).body!);
    const seen: unknown[] = [];
    let lastId: string | undefined;
    while (seen.length < 2) {
      const frame = (await reader.next())!;
      lastId = frame.id ?? lastId;
      const message = messageOf(frame);
      if (message !== undefined) seen.push(message.params.progress);
    }
    await reader.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 150)); // the tool finishes meanwhile

    const replayed = await new SseReader((await resume(headers, lastId)).body!).rest();
    const messages = replayed.map(messageOf).filter((message) => message !== undefined);
    expect(messages.slice(0, -1).map((message) => message.params.progress)).toEqual([3, 4, 5, 6]);
    expect(messages.at(-1)).toMatchObject({
      id: 2,
      result: { content: [{ text: "done 2" }] },
    });
    expect(await storedEventKeys(sessionId)).toEqual([]);

    const again = await resume(headers, lastId);
    expect(again.status).toBe(400);
    await again.body?.cancel();
  });

  it("a client whose POST stream dropped resumes it at once (no 409) and receives the final result", async () => {
    const { headers } = await openSession();
    const reader = new SseReader((await callLong(headers, 3, 8, 15)).body!);
    let lastId: string | undefined;
    let progress = 0;
    while (progress < 1) {
      const frame = (await reader.next())!;
      lastId = frame.id ?? lastId;
      if (messageOf(frame) !== undefined) progress++;
    }
    // The connection dropped, but the server has not noticed yet (at the edge only a failed
    // write reveals it, up to a keep-alive interval later): the client just stops reading.
    // No wait: the tool is still running when the client comes back.
    const resumed = await resume(headers, lastId);
    expect(resumed.status).toBe(200);
    const messages = (await new SseReader(resumed.body!).rest())
      .map(messageOf)
      .filter((message) => message !== undefined);
    expect(messages.slice(0, -1).map((message) => message.params.progress)).toEqual([
      2, 3, 4, 5, 6, 7, 8,
    ]);
    expect(messages.at(-1)).toMatchObject({
      id: 3,
      result: { content: [{ text: "done 3" }] },
    });
  });

  it("the standalone GET stream keeps alive and replays missed notifications with Last-Event-ID", async () => {
    const { headers } = await openSession();
    const announce = async (text: string, id: number) => {
      const response = await rpc(
        PATH,
        {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "announce", arguments: { text } },
        },
        headers,
      );
      await response.text();
    };
    const listen = new SseReader((await resume(headers)).body!);
    await announce("one", 10);
    let first = (await listen.next())!;
    while (first.data === undefined) first = (await listen.next())!;
    expect(messageOf(first)).toMatchObject({
      method: "notifications/message",
      params: { data: "one" },
    });
    // keepAliveMs is 20 on this agent: a comment frame follows soon on the idle stream.
    let frame = await listen.next();
    while (frame !== undefined && frame.comment !== "keepalive") frame = await listen.next();
    expect(frame?.comment).toBe("keepalive");
    await listen.disconnect();

    await announce("two", 11);
    await announce("three", 12);
    const replay = new SseReader((await resume(headers, first.id)).body!);
    const data: unknown[] = [];
    while (data.length < 2) {
      const message = messageOf((await replay.next())!);
      if (message !== undefined) data.push(message.params.data);
    }
    expect(data).toEqual(["two", "three"]);
    await replay.disconnect();
  });
});
