/**
 * One shared-worker run's looks at what it holds in the engine (run.ts): after charged native
 * work and from the engine's step check, and whether it holds past its `memoryBytes`. The
 * engine's own memory limit does not say so in this build (ffi.ts {@link memoryUsage}), and the
 * engine's memory is bounded as a whole by memory-gate.ts; this is the run's side of it.
 */
import type { QuickJSContext } from "quickjs-emscripten-core";
import { engineMemory, memoryUsage } from "./ffi";
import type { GateShare, MemoryGate } from "./memory-gate";

/**
 * Native work charged between two looks at what the run's memory holds ({@link MemoryLook}):
 * one interrupt's worth is 262,144 bytes of typed-array data or 16,384 characters
 * (sandbox/native-charges.ts), so 32 of them are 8 MiB of ArrayBuffers made (or 512 Ki
 * characters of strings) between two looks. Each look walks what is alive, so the next one
 * waits longer in a run holding many objects (see {@link OBJECTS_PER_CHARGED_INTERRUPT}).
 */
export const MEMORY_CHECK_INTERRUPTS = 32;

/**
 * Objects alive per charged interrupt between two memory looks: a look walks every object, so
 * with 400,000 alive the next one comes after 100 interrupts' worth of native work, not 32. The
 * look's cost stays a small share of the work charged between looks.
 */
export const OBJECTS_PER_CHARGED_INTERRUPT = 4_096;

/**
 * Bytes one charged interrupt is taken to stand for at most, for the next look's wait: 16,384
 * units (sandbox/native-charges.ts) of 64 bytes. A typed-array byte is 1/16 of a unit, an array
 * element a unit of 16 bytes, a character a unit of at most 2; `JSON.parse` is charged a unit a
 * character of its text, and `[[],[],…]` builds an array of ~40 bytes for every 2 characters,
 * hence the margin. A run that held `used` bytes at a look cannot pass its limit by charged work
 * before `(memoryBytes − used) / 1 MiB` more charged interrupts, so the next look waits that long.
 */
export const MAX_BYTES_PER_CHARGED_INTERRUPT = 1_048_576;

/** What one run has looked at of its memory, and when it looks next. */
export class MemoryLook {
  /** Interrupts charged for native work since the run's memory was last looked at. */
  private chargedSinceLook = 0;
  /** Charged interrupts until the next look ({@link MEMORY_CHECK_INTERRUPTS}, or more). */
  private lookEvery = MEMORY_CHECK_INTERRUPTS;
  /** Step interrupts (10,000 engine steps each) since the run's memory was last looked at. */
  private stepsSinceLook = 0;
  /** The engine's memory length at the last look: growth past it is looked at at the next step check. */
  private lookedLength = 0;
  /** The engine's refused growths at the last look (memory-gate.ts): more are looked at too. */
  private lookedRefusals: number;
  /** The run's own refused growths at the last look (memory-gate.ts `ownRefusals`). */
  private lookedOwnRefusals = 0;

  /**
   * Made when the run begins: what earlier runs did to the engine is not this run's, so its
   * looks count from here. From zero, the first step check of every run after a refused growth
   * stopped it for memory.
   * @param limit - the run's `memoryBytes`
   * @param gate - what bounds the engine's memory, when it has one
   * @param share - the run's part of it ({@link MemoryGate.hold})
   */
  constructor(
    private readonly limit: number,
    private readonly gate: MemoryGate | undefined,
    private readonly share: GateShare | undefined,
  ) {
    this.lookedRefusals = gate?.refusals ?? 0;
  }

  /**
   * After native work of built-ins (sandbox/native-charges.ts): looks once enough was charged.
   * QuickJS's own limit bounds each allocation alone in this build, not their sum (ffi.ts
   * {@link memoryUsage}): a program kept 64 ArrayBuffers of 4 MiB (256 MiB) under a 32 MiB
   * limit, all in the WebAssembly memory of the shared worker every run shares. Looked at after
   * native work that makes large values (the charged built-ins: ArrayBuffer and typed-array
   * constructors, `slice`, `repeat`, …), so what a run holds past its limit is at most the
   * charged work between two looks and one value (itself under the limit).
   * @param ctx - the run's engine context
   * @param charged - interrupts just charged
   * @returns true when the run holds more than its limit
   */
  afterCharge(ctx: QuickJSContext, charged: number): boolean {
    this.chargedSinceLook += charged;
    if (this.chargedSinceLook < this.lookEvery) return false;
    return this.overLimit(ctx);
  }

  /**
   * From the engine's step check (its interrupt handler, every ~10,000 steps), for what no
   * charged built-in makes: objects pushed one by one, `Map` entries, closures, and ropes
   * (`big + n`, one step) that a later read (`s.charCodeAt(0)`, one uncharged step) makes flat,
   * a copy of `big` (those grow the engine fast: memory-gate.ts bounds them). With looks after
   * charged work alone, a 32 MiB run kept 1.5 million objects (143 MiB of engine memory) or a
   * million closures (172 MiB), and the shared worker's memory never shrinks. Looked at every
   * `lookEvery` step checks, as after charged work, and at once when the engine's memory grew
   * since the last look (growth is what a run holding too much causes). The walk makes one
   * object in the run's context mid-instruction (inside a regular expression's match, too):
   * QuickJS allocates, and may collect cycles, at any allocation of any instruction, and the
   * values the interrupted instruction uses are counted references the collector leaves alone
   * (test/unit/sandbox/engine/run-memory-steps.test.ts walks inside a match).
   *
   * The looks do not bound what a run makes between two of them: the step check comes every
   * 10,000 ticks of QuickJS's counter (calls and backward jumps, not instructions), and one turn
   * of a loop can make thousands of objects (`kept.push([], [], …)`, 2,000 a turn, grew a bare
   * engine to 143.5 MiB under a 32 MiB limit before the look that stopped it). The gate bounds
   * that growth (memory-gate.ts): alone, to the gate (125.6 MiB for the same loop); with other
   * runs under way, to the run's own room, room the engine already has included where the
   * allocator's break is known (heap-break.ts): a run past it is stopped at this check or at its
   * next turn (run.ts `pumpJobs`), whichever comes first.
   * @param ctx - the run's engine context
   * @returns true when the run holds more than its limit: the step check ends it then
   */
  atStep(ctx: QuickJSContext): boolean {
    const grew =
      engineMemory(ctx.runtime).byteLength > this.lookedLength ||
      (this.gate?.refusals ?? 0) > this.lookedRefusals ||
      this.share?.pastRoom === true;
    if (!grew && ++this.stepsSinceLook < this.lookEvery) return false;
    return this.overLimit(ctx);
  }

  /** Whether the run's runtime holds more than its limit, looked at now. */
  private overLimit(ctx: QuickJSContext): boolean {
    this.chargedSinceLook = 0;
    this.stepsSinceLook = 0;
    const limit = this.limit;
    this.lookedLength = engineMemory(ctx.runtime).byteLength;
    this.lookedRefusals = this.gate?.refusals ?? 0;
    const ownRefusals = this.share?.ownRefusals ?? 0;
    const refused = ownRefusals > this.lookedOwnRefusals;
    this.lookedOwnRefusals = ownRefusals;
    // The engine refused a growth this run asked for, and the refusal was its own (memory-gate.ts:
    // the run was alone in the engine, past twice the limit and room for the engine; or others
    // were under way and the run's growths passed its own room): this run holds that much. Not
    // refusals another run asked for, nor a refusal when the whole gate was full with the run
    // within its room (a neighbour may hold it). The walk below cannot say so for all of it: it
    // does not count what a rope's parts hold (a run kept 29 ropes of a flat 4 MiB string each,
    // 116 MiB, under a 32 MiB limit, walked as under it) nor `Map` and `Set` entries.
    if (refused) return true;
    // Others are under way and this run took more of the engine's heap than its room
    // (memory-gate.ts): the allocator's break moved that far in its turns, or the memory grew.
    if (this.share?.pastRoom) return true;
    // The engine's whole WebAssembly memory (every run's, and what the allocator keeps free)
    // bounds what this run holds: while it is within the limit, the walk is not needed. A walk
    // costs ~0.1–2 ms (more with more objects alive); a loop of 100 KB `repeat`s, looked at
    // every ~5 calls, ran 24 % longer with a walk at each look (load 16).
    if (engineMemory(ctx.runtime).byteLength <= limit) return false;
    const { usedBytes, objects } = memoryUsage(ctx);
    this.lookEvery = Math.max(
      MEMORY_CHECK_INTERRUPTS,
      Math.ceil(objects / OBJECTS_PER_CHARGED_INTERRUPT),
      Math.floor((limit - usedBytes) / MAX_BYTES_PER_CHARGED_INTERRUPT),
    );
    return usedBytes > limit;
  }
}
