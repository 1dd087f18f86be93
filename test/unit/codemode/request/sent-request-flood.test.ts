// Hostile (issue #40): a program floods `codemode.request()` with large raw bodies it chose. The
// credential check over each request (issue #41) ran synchronously over the whole request, so the
// host's thread, which serves every client, was held for every body in a row, for as many bodies
// as the program liked. Through the real path (apiRequester, one per run, the real redactor):
// other tasks run between the slices of the checks (counted, never timed), and past the run's
// budget a request is refused with nothing sent. Before the fix: 0 other tasks ran until every
// body was checked, and all 17 bodies were sent (the default budget not kept either).
import { describe, expect, it } from "vitest";
import { apiRequester } from "../../../../src/codemode/api-requester";
import { MAX_SENT_CHARS_PER_RUN } from "../../../../src/codemode/request/sent-check";
import { loadSpec } from "../../../../src/openapi/openapi-spec";

const TOKEN = "tok_Live.9f8e/7d6c-5b4a";
const secrets = Object.freeze([`Bearer ${TOKEN}`, TOKEN]);
const spec = loadSpec({
  openapi: "3.0.3",
  info: { title: "uploads", version: "1" },
  paths: {
    "/uploads": { post: { operationId: "upload", responses: { 201: { description: "ok" } } } },
  },
});
const run = (sent: unknown[], maxSentChars?: number) =>
  apiRequester({
    spec,
    handler: (request) => {
      sent.push(request.rawBody);
      return { status: 201, body: { ok: true } };
    },
    validate: true,
    secrets,
    mcp: {} as never,
    ...(maxSentChars !== undefined && { maxSentChars }),
  });
const signal = new AbortController().signal;
const upload = (rawBody: string) => ({
  method: "POST",
  path: "/uploads",
  rawBody,
  contentType: "text/plain",
});

describe("a program flooding codemode.request() with large bodies", () => {
  it("leaves the host's thread to other tasks while its requests are checked", async () => {
    const sent: unknown[] = [];
    const request = run(sent);
    const body = "%2541%25%41a%2525".repeat(65_536); // 1 MiB of escapes
    let others = 0;
    const other = setInterval(() => others++, 0);
    let duringChecks: number;
    try {
      const answers = Array.from({ length: 8 }, () => request(upload(body), signal));
      await Promise.all(answers);
      duringChecks = others;
    } finally {
      clearInterval(other);
    }
    expect(sent).toHaveLength(8);
    // Another client's work ran many times while the 8 bodies were checked.
    expect(duringChecks).toBeGreaterThan(8);
  });

  it("still refuses a large request that holds the credential, with nothing sent", async () => {
    const sent: unknown[] = [];
    const request = run(sent);
    const codes = [...TOKEN].map((c) => c.charCodeAt(0)).join(",");
    const hidden = `${"a%25 ".repeat(100_000)}[${codes}]`;
    // Refused (thrown or rejected: a small request's check answers at once).
    await expect(Promise.resolve().then(() => request(upload(hidden), signal))).rejects.toThrow(
      /holds the credential/,
    );
    expect(sent).toHaveLength(0);
  });

  it("asks for approval only after a large request was checked, and sends it once approved", async () => {
    const events: string[] = [];
    const request = apiRequester({
      spec,
      handler: () => {
        events.push("sent");
        return { status: 201 };
      },
      validate: true,
      secrets,
      mcp: {} as never,
      needsApproval: () => true,
      approve: async () => {
        events.push("asked");
        return { kind: "send", record: () => void events.push("recorded") };
      },
    });
    const large = upload("a".repeat(1_048_576));
    await request(large, signal);
    const codes = [...TOKEN].map((c) => c.charCodeAt(0)).join(",");
    await expect(request(upload(`${"a ".repeat(100_000)}[${codes}]`), signal)).rejects.toThrow(
      /holds the credential/,
    );
    expect(events).toEqual(["asked", "sent", "recorded"]);
  });

  // The budget's accounting through the real path, at a 16th of the default (filling the default
  // searched 64 MiB: 11-20 s of the test run): 16 bodies of 256 KiB (each searched in slices) fit
  // a budget of 16 such requests, the 17th is refused, the next run has a budget of its own.
  it("refuses requests past the run's budget, naming it, with nothing sent", async () => {
    const maxSentChars = 16 * 262_144;
    const sent: unknown[] = [];
    const request = run(sent, maxSentChars);
    const body = "a".repeat(262_144 - 64);
    const refusals: string[] = [];
    for (let i = 0; i < 17; i++) {
      try {
        await request(upload(body), signal);
      } catch (error) {
        refusals.push(`${(error as Error).name}: ${(error as Error).message}`);
      }
    }
    expect(sent).toHaveLength(16);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(
      new RegExp(`^LimitError: codemode\\.request\\(\\) was not sent: .*${maxSentChars}`),
    );
    // The next run has a budget of its own.
    const next: unknown[] = [];
    await run(next, maxSentChars)(upload(body), signal);
    expect(next).toHaveLength(1);
  });

  // The host's budget is MAX_SENT_CHARS_PER_RUN (16 requests of the default 4 MiB maxCallBytes):
  // a request larger than all of it is refused unsearched, naming it, with nothing sent.
  it("holds a run to MAX_SENT_CHARS_PER_RUN unless told otherwise", async () => {
    const sent: unknown[] = [];
    const request = run(sent);
    let refusal: unknown;
    try {
      await request(upload("a".repeat(MAX_SENT_CHARS_PER_RUN)), signal);
    } catch (error) {
      refusal = error;
    }
    expect(sent).toHaveLength(0);
    expect(`${(refusal as Error).name}: ${(refusal as Error).message}`).toMatch(
      new RegExp(`^LimitError: codemode\\.request\\(\\) was not sent: .*${MAX_SENT_CHARS_PER_RUN}`),
    );
  });
});
