/**
 * The product's approval ledger (a Durable Object) makes an approval single-use across isolates:
 * two handlers stand for two isolates that each get one copy of the same accepted round.
 * With per-isolate memory ledgers the second copy would be sent too (the documented limit of
 * the default); with the Durable Object ledger it is refused and nothing is sent.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { durableApprovalLedger } from "../../../../src/app/approval-ledger-store";
import type { ApiRequest } from "../../../../src/codemode/request/api-request";
import type { ApprovalLedger } from "../../../../src/codemode/approvals/approval-ledger";
import { WorkerLoaderExecutor } from "../../../../src/executor/loader/worker-loader-executor";
import { createMcpHandler, MemoryApprovalLedger, openApiMcpServer } from "../../../../src/index";
import { COMPACT_SPECS } from "../../../../src/app/generated/specs";
import { modernRequest, rpcBody } from "../../mcp/fixtures";

const executor = new WorkerLoaderExecutor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
const KEY = "approval-ledger-store-test-key-0123456789ab";
const code = `async () => (await codemode.request({ method: "POST", path: "/projects", body: { name: "Ledger" }, response: "full" })).status`;

function isolate(ledger: ApprovalLedger, sent: ApiRequest[]) {
  const handler = createMcpHandler(
    openApiMcpServer({
      spec: COMPACT_SPECS["demo-api"],
      executor,
      approval: true,
      approvalLedger: ledger,
      request: (request) => {
        sent.push(request);
        return { status: 201, body: {} };
      },
    }),
    { requestState: { key: KEY } },
  );
  let id = 1;
  return async (extra: Record<string, unknown> = {}) =>
    rpcBody(
      await handler.fetch(
        modernRequest(
          "tools/call",
          { name: "execute", arguments: { code }, ...extra },
          { capabilities: { elicitation: { form: {} } }, id: id++ },
        ),
      ),
    );
}

async function replayAcrossIsolates(ledgers: [ApprovalLedger, ApprovalLedger]) {
  const sent: ApiRequest[] = [];
  const a = isolate(ledgers[0], sent);
  const b = isolate(ledgers[1], sent);
  const asked = await a();
  const accepted = {
    requestState: asked.result.requestState,
    inputResponses: { approve_request: { action: "accept", content: { approve: true } } },
  };
  const first = await a(accepted);
  const second = await b(accepted);
  return { first, second, sent };
}

describe("the Durable Object approval ledger", () => {
  it("refuses the same accepted round in a second isolate; nothing is sent twice", async () => {
    const ledger = durableApprovalLedger(env.APPROVAL_LEDGER);
    const { first, second, sent } = await replayAcrossIsolates([ledger, ledger]);
    expect(first.result.content[0].text).toBe("201");
    expect(second.result.isError).toBe(true);
    expect(second.result.content[0].text).toContain("this approval was already used");
    expect(sent).toHaveLength(1);
  });

  it("(the limit it removes) per-isolate memory ledgers each accept the round once", async () => {
    const { sent } = await replayAcrossIsolates([
      new MemoryApprovalLedger(),
      new MemoryApprovalLedger(),
    ]);
    expect(sent).toHaveLength(2);
  });

  it("claims an id once", async () => {
    const stub = env.APPROVAL_LEDGER.get(env.APPROVAL_LEDGER.idFromName("approvals"));
    const id = crypto.randomUUID();
    expect(await stub.claim(id, Date.now() + 60_000)).toBe(true);
    expect(await stub.claim(id, Date.now() + 60_000)).toBe(false);
  });
});
