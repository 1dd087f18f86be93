/**
 * cli/local-server/early-host.mjs (issue #43): the host started beside the launch check from the
 * last launch's memo serves only when the check plans exactly that host; any other plan ends it
 * and the planned host starts as before. Its bindings come from this launch's environment and
 * kept spec, or not at all.
 */
import { describe, expect, it } from "vitest";
import {
  guessedBindings,
  messageDigest,
  startEarlyHost,
} from "../../../../cli/local-server/early-host.mjs";
import { memoOfPlan, sha256 } from "../../../../cli/kept/launch-memo.mjs";
import { fakeRuntime, type FakeRuntime } from "./fake-runtime";

const SPEC_TEXT = `{"operations":[${'{"path":"/a"},'.repeat(500)}{"path":"/b"}]}`;
const SPEC_VALUE = `{"api":${SPEC_TEXT}}`;
const plan = {
  runners: 3,
  launchSpec: { binding: "LAUNCH_SPECS", name: "api" },
  bindings: {
    API_TOKEN: "secret-token-value",
    SPEC: "api",
    LAUNCH_SPECS: SPEC_VALUE,
    LAUNCH_TOOLS_LIST_TOKENS: '{"d":{"tokens":6}}',
  },
};
const env = { API_TOKEN: "secret-token-value", HOME: "/users/x" };

/** A host message as hostMessage (worker-options.mjs) shapes one, with these bindings. */
const message = (bindings: Record<string, string>, runners = ["unix:/f/runner-1.sock:0"]) => ({
  direct: { worker: "code-mode-mcp" },
  v8Flags: ["--max-old-space-size=512"],
  options: { workers: [{ name: "code-mode-mcp", bindings, runners }] },
});

/** A runtime host whose starts are fake runtimes, and what was started. */
function fakeRuntimes() {
  const started: { name: string; runtime: FakeRuntime; onCrashLine: () => void }[] = [];
  return {
    started,
    start: ({ name, onCrashLine }: { name: string; onCrashLine: () => void }) => {
      const runtime = fakeRuntime(name);
      started.push({ name, runtime, onCrashLine });
      return runtime as any;
    },
  };
}

describe("guessedBindings", () => {
  const memo = memoOfPlan(plan, env)!;

  it("rebuilds the planned bindings from this launch's environment and kept spec", () => {
    expect(guessedBindings(memo, env, () => SPEC_TEXT)).toEqual(plan.bindings);
  });

  it("guesses nothing when a variable the memo names is unset now", () => {
    expect(guessedBindings(memo, { HOME: "/users/x" }, () => SPEC_TEXT)).toBeUndefined();
  });

  it("guesses nothing when the spec is no longer kept", () => {
    expect(guessedBindings(memo, env, () => undefined)).toBeUndefined();
  });

  it("takes a changed value of a variable from this launch (the plan then decides)", () => {
    const guessed = guessedBindings(memo, { API_TOKEN: "another" }, () => SPEC_TEXT);
    expect(guessed?.API_TOKEN).toBe("another");
  });
});

describe("messageDigest", () => {
  it("differs for any difference, a long binding's included", () => {
    const base = messageDigest(message(plan.bindings));
    expect(messageDigest(message({ ...plan.bindings }))).toBe(base);
    expect(messageDigest(message({ ...plan.bindings, API_TOKEN: "secret-token-valuf" }))).not.toBe(
      base,
    );
    expect(
      messageDigest(message({ ...plan.bindings, LAUNCH_SPECS: SPEC_VALUE.replace("/a", "/x") })),
    ).not.toBe(base);
    expect(messageDigest(message(plan.bindings, ["unix:/f/runner-2.sock:0"]))).not.toBe(base);
    expect(sha256(SPEC_VALUE)).toHaveLength(64);
  });

  it("tells a long binding from a short one that spells its digest", () => {
    // A setting whose value is "#" and the hex digest of the last launch's long value is
    // another host: two messages with one digest must be the same message.
    const base = messageDigest(message(plan.bindings));
    const spelled = { ...plan.bindings, LAUNCH_SPECS: `#${sha256(SPEC_VALUE)}` };
    expect(messageDigest(message(spelled))).not.toBe(base);
    const long = { ...plan.bindings, API_TOKEN: "t".repeat(5_000) };
    const short = { ...plan.bindings, API_TOKEN: `#${sha256("t".repeat(5_000))}` };
    expect(messageDigest(message(short))).not.toBe(messageDigest(message(long)));
    // A short value that starts with "#" still counts as itself.
    const hashed = { ...plan.bindings, API_TOKEN: "#abc" };
    expect(messageDigest(message(hashed))).not.toBe(
      messageDigest(message({ ...plan.bindings, API_TOKEN: "##abc" })),
    );
  });
});

describe("messageDigest of long strings kept between calls", () => {
  it("gives an equal copy the same digest, and a same-length change another", () => {
    // Long strings' digests are kept (workerd-config/json-digest.mjs longDigest), and V8 hashes a long string by
    // its length: only the content may decide which digest a string gets.
    const spec = `{"api":${SPEC_TEXT.repeat(4)}}`;
    const base = messageDigest(message({ ...plan.bindings, LAUNCH_SPECS: spec }));
    const copy = JSON.parse(JSON.stringify(spec)) as string;
    expect(messageDigest(message({ ...plan.bindings, LAUNCH_SPECS: copy }))).toBe(base);
    const changed = `${spec.slice(0, -2)}x}`;
    expect(changed.length).toBe(spec.length);
    const other = messageDigest(message({ ...plan.bindings, LAUNCH_SPECS: changed }));
    expect(other).not.toBe(base);
    expect(other).toBe(
      messageDigest(message({ ...plan.bindings, LAUNCH_SPECS: `${spec.slice(0, -2)}x}` })),
    );
    // After other long strings came and went, the first still gets its own digest.
    for (const filler of ["a", "b", "c"])
      messageDigest(message({ ...plan.bindings, LAUNCH_SPECS: filler.repeat(spec.length) }));
    expect(messageDigest(message({ ...plan.bindings, LAUNCH_SPECS: spec }))).toBe(base);
  });
});

describe("startEarlyHost", () => {
  it("starts the guessed host at once and hands it over when the plan is the same", () => {
    const runtimes = fakeRuntimes();
    const early = startEarlyHost(runtimes, message(plan.bindings), "runtime 1");
    expect(runtimes.started.map((s) => s.name)).toEqual(["runtime 1"]);
    let crashes = 0;
    const taken = early.take(message({ ...plan.bindings }), () => crashes++);
    expect(taken).toBe(runtimes.started[0]?.runtime);
    // Its crash lines reach the supervisor's handler from now on.
    runtimes.started[0]?.onCrashLine();
    expect(crashes).toBe(1);
    expect(taken?.killedBecause).toBeUndefined();
    // Once only; and it is no longer this module's to end.
    expect(early.take(message(plan.bindings), () => {})).toBeUndefined();
    void early.end("stop");
    expect(taken?.isRunning()).toBe(true);
  });

  it("ends the guessed host when the plan differs in anything", () => {
    const runtimes = fakeRuntimes();
    const early = startEarlyHost(runtimes, message(plan.bindings), "runtime 1");
    const planned = message({ ...plan.bindings, ALLOWED_HOSTNAMES: "example.com" });
    expect(early.take(planned, () => {})).toBeUndefined();
    expect(runtimes.started[0]?.runtime.killedBecause).toBe(
      "the launch check planned another host",
    );
  });

  it("does not hand over a guessed host that has ended", () => {
    const runtimes = fakeRuntimes();
    const early = startEarlyHost(runtimes, message(plan.bindings), "runtime 1");
    runtimes.started[0]?.runtime.exit();
    expect(early.take(message(plan.bindings), () => {})).toBeUndefined();
  });

  it("ends the guessed host on a refused plan", async () => {
    const runtimes = fakeRuntimes();
    const early = startEarlyHost(runtimes, message(plan.bindings), "runtime 1");
    await early.end("the configuration is invalid");
    expect(runtimes.started[0]?.runtime.killedBecause).toBe("the configuration is invalid");
    expect(early.take(message(plan.bindings), () => {})).toBeUndefined();
  });
});
