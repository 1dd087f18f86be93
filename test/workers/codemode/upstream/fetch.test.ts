/**
 * The fetch layer under a remote upstream's transport (src/codemode/upstream/upstream-fetch.ts), driven
 * against a real dual-era upstream: the early `initialize` sent beside the era probe answers
 * the client's own `initialize` only when that is exactly the same message; otherwise the
 * client's goes out and the early session is ended; an unused early session is ended too.
 */
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { upstreamFetch } from "../../../../src/codemode/upstream/upstream-fetch";
import { recordedDualEraUpstream, type Seen } from "./recorder";

const URL_ = new URL("http://upstream.local/mcp");
const CLIENT_INFO = { name: "code-mode-mcp", version: "0.1.0" };
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function post(body: unknown): RequestInit {
  return { method: "POST", headers: HEADERS, body: JSON.stringify(body) };
}

const PROBE = { jsonrpc: "2.0", id: 0, method: "server/discover", params: {} };
const initialize = (clientInfo = CLIENT_INFO) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo },
});

function setup() {
  const seen: Seen[] = [];
  const sessions = { issued: [] as string[], ended: [] as string[] };
  const base = recordedDualEraUpstream(seen, sessions);
  const layer = upstreamFetch(base, false, { url: URL_, clientInfo: CLIENT_INFO });
  return { seen, sessions, layer };
}

describe("early initialize beside the era probe", () => {
  it("answers the client's identical initialize with the early answer (one initialize sent)", async () => {
    const { seen, sessions, layer } = setup();
    await (await layer.fetch(URL_, post(PROBE))).body?.cancel();
    const answer = await layer.fetch(URL_, post(initialize()));
    expect(answer.ok).toBe(true);
    expect(answer.headers.get("mcp-session-id")).toBe(sessions.issued[0]);
    await answer.body?.cancel();
    await layer.discardEarly();
    expect(seen.filter((s) => s.what === "POST initialize")).toHaveLength(1);
    expect(sessions.ended).toEqual([]);
  });

  it("sends a different initialize itself and ends the early session", async () => {
    const { seen, sessions, layer } = setup();
    await (await layer.fetch(URL_, post(PROBE))).body?.cancel();
    const other = await layer.fetch(URL_, post(initialize({ name: "other", version: "1" })));
    const own = other.headers.get("mcp-session-id");
    await other.body?.cancel();
    await layer.discardEarly();
    expect(seen.filter((s) => s.what === "POST initialize")).toHaveLength(2);
    expect(sessions.issued).toHaveLength(2);
    expect(sessions.ended).toEqual(sessions.issued.filter((id) => id !== own));
  });

  it("ends the early session when the client never sends initialize", async () => {
    const { sessions, layer } = setup();
    await (await layer.fetch(URL_, post(PROBE))).body?.cancel();
    await layer.discardEarly();
    expect(sessions.issued).toHaveLength(1);
    expect(sessions.ended).toEqual(sessions.issued);
  });
});
