/**
 * Built-ins whose native work grows with their data are charged to the run's budget by that
 * work (sandbox/native-charges.ts), on both executors. Counted only by the program's loop turns,
 * `while (true) a.set(b)` over 16 MiB (~3 ms a turn) ran for minutes: the shared worker's
 * engine held its worker (issue #19), and the per-run isolate held its runner until the local
 * server's watchdog replaced it after 10 s, ending every other run on it (issue #28). Each probe
 * must end as `limit` while the executor keeps serving. Every probe first passes the
 * instrumentation guard; no elapsed time is asserted beyond the test's own timeout, which only
 * guards against a hang: the large probes run a bounded number of turns, so a built-in charged
 * too little ends `ok` instead of `limit`, however loaded the machine is.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeExecutors } from "../../../helpers/executor/executor-matrix";
import { guardProbe } from "../../../helpers/executor/instrumentation-check";

/** A probe held for longer than this fails by timeout (each ends within ~1 s now). */
const HELD_MS = 20_000;

/** Probes whose turns are cheap to count but expensive to run. */
const PROBES: [string, string][] = [
  ["a repeat loop that keeps nothing", "while (true) 'x'.repeat(1e5)"],
  ["a memory fill", "const a = []; while (true) a.push('x'.repeat(1e5))"],
  ["a padEnd loop", "while (true) ''.padEnd(1e5, 'ab')"],
  ["a join loop over holes", "const a = new Array(1e5); while (true) a.join()"],
  ["a scan loop", "const a = new Array(1e5).fill(0); while (true) a.indexOf(1)"],
  ["a stringify loop", "const o = { s: 'x'.repeat(1e5) }; while (true) JSON.stringify(o)"],
  ["a parse loop", "const t = JSON.stringify('x'.repeat(1e5)); while (true) JSON.parse(t)"],
  [
    "a keys loop",
    "const o = {}; for (let i = 0; i < 2e4; i++) o['k' + i] = i; while (true) Object.keys(o)",
  ],
  ["a loop that swallows the limit", "while (true) { try { 'x'.repeat(1e5) } catch (e) {} }"],
  [
    "a 16 MiB typed-array copy loop",
    "const a = new Uint8Array(16 * 1024 * 1024); const b = new Uint8Array(a.length); while (true) a.set(b)",
  ],
  ["a typed-array fill loop", "const a = new Float64Array(2 ** 21); while (true) a.fill(1)"],
  [
    "a copy loop that hides its byteLength",
    "Object.defineProperty(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength', { get: () => 0 }); const a = new Uint8Array(16 * 1024 * 1024); const b = new Uint8Array(a.length); while (true) a.set(b)",
  ],
  ["a sort loop", "const a = Array.from({ length: 1e5 }, (_, i) => i); while (true) a.sort()"],
];

/**
 * Probes of built-ins charged since 2026-12-05: label, the built-in charged, the loop. Their
 * set-up (a string or array of ~10⁶) costs tens of interrupts itself, so they run on a larger
 * budget than {@link PROBES}. Uncharged, each turn counted a few operations and a probe held the
 * test pool for minutes (its thread runs the sandbox): each runs only once a first program has
 * seen that its built-in is wrapped.
 */
const LARGE_PROBES: [string, string, string][] = [
  // 10⁶ pairs: NFC composes each, so the result (what normalize is charged by) is 10⁶ long,
  // as the other probes' data is. 5 × 10⁴ pairs took ~260 turns to spend the budget, 3–5 s on
  // the shared worker's engine and over 20 s under load.
  [
    "a normalize loop",
    "String.prototype.normalize",
    "const s = 'e\\u0301'.repeat(1e6); while (true) s.normalize('NFC')",
  ],
  [
    "a toReversed loop",
    "Array.prototype.toReversed",
    "const a = new Array(1e6).fill(0); while (true) a.toReversed()",
  ],
  [
    "a typed-array from loop",
    "Uint8Array.from",
    "const a = new Array(1e6).fill(1); while (true) Uint8Array.from(a)",
  ],
  [
    "an ArrayBuffer slice loop",
    "ArrayBuffer.prototype.slice",
    "const b = new ArrayBuffer(16 * 1024 * 1024); while (true) b.slice(0)",
  ],
  [
    "a TextEncoder loop",
    "TextEncoder.prototype.encode",
    "const s = 'x'.repeat(1e6); const e = new TextEncoder(); while (true) e.encode(s)",
  ],
  [
    "a string concat loop",
    "String.prototype.concat",
    "const s = 'x'.repeat(1e6); while (true) s.concat(s)",
  ],
  [
    "a localeCompare loop",
    "String.prototype.localeCompare",
    "const a = 'x'.repeat(1e6); const b = a + 'y'; while (true) a.localeCompare(b)",
  ],
  [
    "a toSorted loop",
    "Array.prototype.toSorted",
    "const a = new Array(1e6).fill(0); while (true) a.toSorted()",
  ],
  [
    "a toSpliced loop",
    "Array.prototype.toSpliced",
    "const a = new Array(1e6).fill(0); while (true) a.toSpliced(0, 1)",
  ],
  [
    "a with loop",
    "Array.prototype.with",
    "const a = new Array(1e6).fill(0); while (true) a.with(0, 1)",
  ],
  [
    "a copyWithin loop",
    "Array.prototype.copyWithin",
    "const a = new Array(1e6).fill(0); while (true) a.copyWithin(0, 1)",
  ],
  [
    "a splice loop",
    "Array.prototype.splice",
    "const a = new Array(1e6).fill(0); while (true) { a.splice(0, 1); a.push(0) }",
  ],
  [
    "an unshift loop",
    "Array.prototype.unshift",
    "const a = new Array(1e6).fill(0); while (true) { a.unshift(1); a.pop() }",
  ],
];

/**
 * The budget of {@link LARGE_PROBES}: room for their set-up (up to ~305,000 operations: a
 * string of 2 × 10⁶), then a few turns of their loops (each ~152,500 operations or more).
 * 2,000,000 ran each loop ~12 turns, seconds of native work on the shared worker's engine.
 */
const LARGE_BUDGET = 600_000;

/**
 * The turns a large probe's loop may take before it must have ended as `limit` (each spends the
 * budget in 3 turns or fewer): its `while (true)` runs this many turns, then the probe returns.
 * A built-in charged less than a tenth of what it should (or not at all) ends `ok`: a failure
 * that does not depend on the machine's speed, where the unbounded loop's only sign was the
 * test's timeout (a normalize charged a twentieth ended `ok` on both executors).
 */
const LARGE_TURNS = 30;

/**
 * `code` with its `while (true)` bounded to {@link LARGE_TURNS} turns, then returning "finished".
 * @param code - a probe: set-up, then one `while (true)` loop, last
 */
function bounded(code: string): string {
  const [setUp, loop, ...rest] = code.split("while (true)");
  if (setUp === undefined || loop === undefined || rest.length > 0)
    throw new Error(`a large probe has one \`while (true)\` loop, last: ${code}`);
  return `${setUp}for (let turn = 0; turn < ${LARGE_TURNS}; turn++)${loop}; return "finished"`;
}

/**
 * Constructor loops (charged since 2026-12-05): each turn allocates or copies 16 MiB (or reads
 * a million elements) natively, and counted one operation. Uncharged, each held its local runner
 * until the watchdog replaced it (10 s), on both executors; in the test pool it would hold the
 * pool's thread. A constructor wrapped in a Proxy still prints `[native code]`, so each probe runs
 * only once {@link CONSTRUCTOR_GUARD}, bounded either way, has ended as `limit`.
 */
const CONSTRUCTOR_PROBES: [string, string][] = [
  ["a typed-array allocation loop", "while (true) new Uint8Array(16 * 1024 * 1024)"],
  [
    "a typed-array copy loop",
    "const b = new Float64Array(2 ** 21); while (true) new Float64Array(b)",
  ],
  [
    "a typed array made from an array, in a loop",
    "const a = new Array(1e6).fill(1); while (true) new Int32Array(a)",
  ],
  ["an ArrayBuffer allocation loop", "while (true) new ArrayBuffer(16 * 1024 * 1024)"],
];
/** Eight 16 MiB allocations: ~64 interrupts each when charged, so `limit` at 100,000. */
const CONSTRUCTOR_GUARD =
  "for (let i = 0; i < 8; i++) new Uint8Array(16 * 1024 * 1024); for (let i = 0; i < 2; i++) {} return 'uncharged'";

describeExecutors((Executor, kind) => {
  // Low budgets: the probes end soon either way, and a regression shows as the test's timeout.
  const executor = new Executor({ loader: env.LOADER, limits: { timeoutMs: 20_000 } });
  const alive = async () =>
    expect(await executor.execute({ code: "return 'alive'" })).toMatchObject({ result: "alive" });

  describe("slow built-ins are charged by the data they produce or scan", () => {
    it.each(PROBES)(
      "stops %s with status limit",
      async (_label, code) => {
        const outcome = await executor.execute({
          code: guardProbe(code),
          limits: { maxOperations: 100_000 },
        });
        expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
        await alive();
      },
      HELD_MS,
    );

    /**
     * Runs `code` on the large budget and expects `limit`, once `unchargedBecause` (what the
     * built-in's check found, or undefined when it is charged) says the probe cannot hold the
     * pool: a probe of an uncharged built-in would hold the test pool's thread for minutes.
     */
    const stopsOnceCharged = async (unchargedBecause: string | undefined, code: string) => {
      if (unchargedBecause !== undefined)
        throw new Error(
          `${unchargedBecause}: refusing to run a probe that would hold the test pool for minutes`,
        );
      const outcome = await executor.execute({
        code: guardProbe(bounded(code)),
        limits: { maxOperations: LARGE_BUDGET },
      });
      expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
      await alive();
    };

    it.each(LARGE_PROBES)(
      "stops %s with status limit",
      async (_label, builtIn, code) => {
        const seen = await executor.execute({
          code: `return String(${builtIn}).includes("[native code]")`,
        });
        await stopsOnceCharged(
          seen.result === false
            ? undefined
            : `${builtIn} is not charged (${JSON.stringify(seen.result)})`,
          code,
        );
      },
      HELD_MS,
    );

    it.each(CONSTRUCTOR_PROBES)(
      "stops %s with status limit",
      async (_label, code) => {
        const seen = await executor.execute({
          code: guardProbe(CONSTRUCTOR_GUARD),
          limits: { maxOperations: 100_000 },
        });
        await stopsOnceCharged(
          seen.status === "limit"
            ? undefined
            : `typed-array constructors are not charged (the check ended ${seen.status})`,
          code,
        );
      },
      HELD_MS,
    );

    it("keeps the wrapped constructors what they were: new, instanceof, subclasses, species, views", async () => {
      const outcome = await executor.execute({
        code: `class Sub extends Uint8Array {}
        const s = new Sub(4);
        const u = new Uint8Array([1, 2, 3]);
        const view = new Uint8Array(new ArrayBuffer(8), 2, 3);
        let called;
        try { Uint8Array(2); called = "no error" } catch (e) { called = e.constructor.name }
        return [u instanceof Uint8Array, u.constructor === Uint8Array, s instanceof Sub,
          s instanceof Uint8Array, s.slice(1) instanceof Sub, Uint8Array.name,
          Uint8Array.BYTES_PER_ELEMENT, Uint8Array.length,
          Object.getPrototypeOf(Uint8Array) === Object.getPrototypeOf(Int8Array),
          Array.from(Uint8Array.from([4, 5])), Array.from(Uint8Array.of(6)),
          Array.from(u.subarray(1)), Array.from(u.map((x) => x * 2)), new ArrayBuffer(8).byteLength,
          view.length, view.byteOffset, called, Object.prototype.toString.call(u),
          ArrayBuffer.isView(u), new ArrayBuffer(4).constructor === ArrayBuffer,
          Array.from(new Float64Array(new Uint8Array([7, 8])))]`,
      });
      expect(outcome).toMatchObject({
        status: "ok",
        result: [
          true,
          true,
          true,
          true,
          true,
          "Uint8Array",
          1,
          3,
          true,
          [4, 5],
          [6],
          [2, 3],
          [2, 4, 6],
          8,
          3,
          2,
          "TypeError",
          "[object Uint8Array]",
          true,
          true,
          [7, 8],
        ],
      });
    });

    // The wrappers are Proxies: traps a program adds to Object.prototype must not become theirs
    // (before the fix, this program read 99 and called the constructor without `new`).
    it("keeps the wrapped constructors' behaviour when Object.prototype grows Proxy traps", async () => {
      const outcome = await executor.execute({
        code: `Object.prototype.get = (t, k, r) => (k === "BYTES_PER_ELEMENT" ? 99 : Reflect.get(t, k, r));
        Object.prototype.apply = () => "called";
        let called;
        try { called = Uint8Array(1) } catch (e) { called = e.constructor.name }
        const seen = [Uint8Array.BYTES_PER_ELEMENT, called, new Uint8Array(2).length];
        delete Object.prototype.get;
        delete Object.prototype.apply;
        return seen;`,
      });
      expect(outcome).toMatchObject({ status: "ok", result: [1, "TypeError", 2] });
    });

    // A size the program controls (a Proxy's `length`) must not poison the charge: NaN made
    // the V8 isolate's count NaN, so no later operation ever passed the budget; −Infinity
    // stopped every later charge. Bounded probes: before the fix they ended `ok`, not hung.
    it.each([
      ["NaN", "for (let i = 0; i < 1e6; i++) {}"],
      [
        "-Infinity",
        "const a = new Uint8Array(16 * 1024 * 1024); const b = new Uint8Array(a.length); for (let i = 0; i < 20; i++) a.set(b)",
      ],
    ])("keeps charging after a Proxy reports its length as %s", async (length, rest) => {
      const outcome = await executor.execute({
        code: guardProbe(
          `const p = new Proxy([], { get: (t, k) => (k === "length" ? ${length} : Reflect.get(t, k)) }); new Uint8Array(1).set(p); [].concat.call(p); ${rest}; return "done"`,
        ),
        limits: { maxOperations: 100_000 },
      });
      expect(outcome).toMatchObject({ status: "limit", error: { name: "LimitError" } });
      await alive();
    });

    // `Uint8Array.from(array)` reads element by element, as `Array.from` does: charged by bytes
    // (a sixteenth of its elements), a loop of it ran 13 s on a 2,000,000 budget. The set-up
    // (`fill` of a million) costs ~152,500 operations; each `from` of it ~152,500 more by
    // elements, ~9,500 by bytes, so 250,000 ends the first two and not the bulk copy.
    it.each([
      ["Array.from(a)", "limit"],
      ["Uint8Array.from(a)", "limit"],
      ["Uint8Array.from(new Uint8Array(a.length))", "ok"],
    ])("charges %s by what it reads", async (call, status) => {
      const outcome = await executor.execute({
        // The loop after it: the isolate checks its count at the program's next counted operation.
        code: guardProbe(
          `const a = new Array(1e6).fill(1); ${call}; for (let i = 0; i < 2; i++) {} return "done"`,
        ),
        limits: { maxOperations: 250_000 },
      });
      expect(outcome.status).toBe(status);
    });

    it("says the built-ins spent the budget, when they did", async () => {
      const outcome = await executor.execute({
        code: guardProbe(
          "const a = new Uint8Array(16 * 1024 * 1024); const b = new Uint8Array(a.length); while (true) a.set(b)",
        ),
        limits: { maxOperations: 1_000_000 },
      });
      expect(outcome.error?.message).toMatch(
        kind === "isolate-per-run"
          ? /^Operation budget of 1000000 exceeded, \d+ of it by built-ins working on large data/
          : /^Operation budget of 1000000 exceeded: the engine stopped the code/,
      );
    });

    it("keeps built-ins working as before", async () => {
      const outcome = await executor.execute({
        code: "return ['ab'.repeat(3), 'x'.padStart(3, '-'), 'y'.padEnd(2), [1, 2].join('+'), [1, 2].indexOf(2), [3].includes(3), Array.from({ length: 2 }, (_, i) => i), new Array(3).fill(7), String.prototype.repeat.name, String.prototype.repeat.length, [3, 1, 2].sort(), JSON.parse(JSON.stringify({ a: [1] })), Object.keys({ x: 1, y: 2 })]",
      });
      expect(outcome).toMatchObject({
        status: "ok",
        result: [
          "ababab",
          "--x",
          "y ",
          "1+2",
          1,
          true,
          [0, 1],
          [7, 7, 7],
          "repeat",
          1,
          [1, 2, 3],
          { a: [1] },
          ["x", "y"],
        ],
      });
      const typed = await executor.execute({
        code: "const a = new Uint8Array(4); a.set([1, 2], 1); a.fill(9, 3); return [Array.from(a), a.indexOf(2), a.includes(9), Array.from(a.slice(1, 3)), a.join('-'), Uint8Array.prototype.set.name, Uint8Array.prototype.set.length]",
      });
      expect(typed).toMatchObject({
        status: "ok",
        result: [[0, 1, 2, 9], 2, true, [1, 2], "0-1-2-9", "set", 1],
      });
    });

    it("lets honest work on large data finish within the default budget", async () => {
      // 8 MiB of copies, a 1 MB string searched, a 100,000-element sort: well under a second of
      // native work, far under the default budget's allowance.
      const outcome = await executor.execute({
        code: "const a = new Uint8Array(1 << 20); const b = new Uint8Array(a.length); for (let i = 0; i < 8; i++) a.set(b); const s = 'x'.repeat(1e6) + 'y'; const n = Array.from({ length: 1e5 }, (_, i) => (i * 7919) % 100003).sort((x, y) => x - y); return [s.indexOf('y'), n[0], n.length]",
      });
      expect(outcome).toMatchObject({ status: "ok", result: [1e6, 0, 1e5] });
    });
  });
});
