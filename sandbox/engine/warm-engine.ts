/**
 * One engine instance of the shared worker, with its harness compiled once: a template runtime
 * and context in which `guest.js` and every extension module are already evaluated, and a copy
 * of the engine's whole memory taken right then. A run that finds no other run in the engine
 * gets the template after the memory is written back from that copy, so it starts from the
 * same bytes as the first run did: nothing a previous run did (globals, prototypes, the module
 * map, the atom table, the symbol registry, the allocator's state) survives, because QuickJS
 * keeps all of it in the engine's linear memory. A run that arrives while another is under way
 * (whose runtime lives in that same memory) gets a fresh runtime instead, as every run did
 * before: the harness is compiled for it.
 *
 * Why: compiling the harness (`guest.js`, 32 KB) and `ext-openapi.js` (25 KB) took 4–6 ms of
 * every run, a third to a half of a trivial search's runner CPU (bench/README.md, "Where a
 * search's CPU goes"); this build of QuickJS exposes no way to read compiled bytecode back.
 *
 * Outside the memory, what the JS side of quickjs-emscripten keeps for the template is fixed
 * when the copy is taken (the context's cached handles, the native functions' host references)
 * or reset on each restore (the caches it fills lazily); see {@link EngineTemplate.restore}.
 */
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import modules from "./engine-modules.json";
import { contextPointer, engineMemory, runPendingJobs } from "./ffi";
import { decodeUtf8 } from "./values";
import type { MemoryGate } from "./memory-gate";
import { heldPages, type HeldPage } from "./zero-pages";
import { findHeapBreak } from "./heap-break";

/** What the run holding the template answers for the template's native functions and hooks. */
export interface TemplateTenant {
  host(
    ns: QuickJSHandle,
    name: QuickJSHandle,
    args: QuickJSHandle,
    logs: QuickJSHandle | undefined,
    bytes: QuickJSHandle[],
  ): QuickJSHandle;
  timer(ms: QuickJSHandle): QuickJSHandle;
  charge(interrupts: QuickJSHandle): void;
  /** The engine's interrupt check: true ends the run. */
  interrupt(): boolean;
  /** The text of module `name` for this run (its `user.js`), or why there is none. */
  load(name: string): string | { error: Error };
}

/** The run limits a tenant's runtime gets after the restore. */
export interface TemplateLimits {
  memoryBytes: number;
  stackBytes: number;
}

/**
 * Caches a quickjs-emscripten (0.32.0) context fills on first use with handles into the engine's
 * memory: a restore makes them point at freed bytes, so each restore empties them.
 */
const LAZY_HANDLES = ["_BigInt", "_Symbol", "_SymbolIterator", "_SymbolAsyncIterator"] as const;

/** Module texts the template evaluates (the run's `user.js` is added per run). */
const TEXTS = modules as Record<string, string>;

/** Extension modules evaluated into the template, so no run compiles them. */
const EXTENSIONS = ["ext-openapi.js", "ext-request.js", "ext-skills.js"] as const;

/** Bytes per piece of the memory copy: pieces that are all zero are not kept. */
const PAGE = 4096;

/** Bytes of the context's C struct searched for the `Math.random` state. */
const CONTEXT_SCAN = 1024;

/** One step of QuickJS's `Math.random` generator (xorshift64*): the state it leaves. */
function nextRandomState(state: bigint): bigint {
  let x = state;
  x ^= x >> 12n;
  x = (x ^ (x << 25n)) & 0xffff_ffff_ffff_ffffn;
  x ^= x >> 27n;
  return x;
}

/** A fresh, nonzero 64-bit generator state from the platform's random source. */
function freshRandomState(): bigint {
  const words = crypto.getRandomValues(new Uint32Array(2));
  const state = (BigInt(words[0]!) << 32n) | BigInt(words[1]!);
  return state === 0n ? 1n : state;
}

/**
 * Where the context keeps its `Math.random` state (QuickJS seeds it from the clock when the
 * context is made, so a restored copy would give every run the same numbers): the one 64-bit
 * word of the context's struct that one `Math.random()` moves by exactly one generator step,
 * checked again after writing a known state into it.
 * @returns its address, or undefined when no single word behaves so (runs then stay cold)
 */
function findRandomState(ctx: QuickJSContext, rt: QuickJSRuntime): number | undefined {
  const base = contextPointer(ctx);
  const read = (): bigint[] => {
    const view = new DataView(engineMemory(rt).buffer);
    return Array.from({ length: CONTEXT_SCAN / 8 }, (_, i) =>
      view.getBigUint64(base + 8 * i, true),
    );
  };
  const draw = (): void => ctx.unwrapResult(ctx.evalCode("Math.random()")).dispose();
  const before = read();
  draw();
  const after = read();
  const found = before.flatMap((word, i) =>
    word !== 0n && after[i] === nextRandomState(word) ? [base + 8 * i] : [],
  );
  if (found.length !== 1) return undefined;
  const address = found[0]!;
  const probe = freshRandomState();
  new DataView(engineMemory(rt).buffer).setBigUint64(address, probe, true);
  draw();
  const moved = new DataView(engineMemory(rt).buffer).getBigUint64(address, true);
  return moved === nextRandomState(probe) ? address : undefined;
}

/** The template runtime and context, and the memory copy they are restored from. */
export class EngineTemplate {
  /** The guest module's namespace (`run`, `finish`). */
  readonly exports: QuickJSHandle;
  /** Pieces of the memory that were not zero when the copy was taken, by their offset. */
  private readonly pages: HeldPage[];
  /** Memory length when the copy was taken: everything below it not in `pages` was zero. */
  private readonly length: number;
  private tenant: TemplateTenant | undefined;
  /** Address of the context's `Math.random` state, reseeded on every restore. */
  private readonly randomState: number;
  /** Handles the template keeps for its whole life (native functions, the namespace). */
  private readonly kept: QuickJSHandle[] = [];

  private constructor(
    readonly rt: QuickJSRuntime,
    readonly ctx: QuickJSContext,
    randomState: number,
  ) {
    this.randomState = randomState;
    rt.setInterruptHandler(() => this.tenant?.interrupt() ?? false);
    rt.setModuleLoader((name) => {
      if (this.tenant) return this.tenant.load(name);
      return Object.hasOwn(TEXTS, name)
        ? TEXTS[name]!
        : { error: new Error(`Module "${name}" is not available in the sandbox.`) };
    });
    // Filled now, so they point into the copy; read lazily they would point past a restore.
    void [ctx.undefined, ctx.null, ctx.true, ctx.false, ctx.global];
    const owner = (): TemplateTenant => {
      if (!this.tenant) throw new Error("No run holds the engine template.");
      return this.tenant;
    };
    const natives: [string, QuickJSHandle][] = [
      [
        "__cm$host",
        ctx.newFunction("host", (ns, name, args, logs, ...bytes) =>
          owner().host(ns, name, args, logs, bytes),
        ),
      ],
      ["__cm$timer", ctx.newFunction("timer", (ms) => owner().timer(ms))],
      [
        "__cm$utf8",
        ctx.newFunction("utf8", (buffer, offset, length) =>
          decodeUtf8(ctx, buffer, offset, length),
        ),
      ],
      ["__cm$charge", ctx.newFunction("charge", (interrupts) => owner().charge(interrupts))],
    ];
    // Kept undisposed: the engine never frees them, so their host references stay valid in
    // every restored memory.
    for (const [name, fn] of natives) {
      ctx.setProp(ctx.global, name, fn);
      this.kept.push(fn);
    }
    this.exports = ctx.unwrapResult(
      ctx.evalCode(TEXTS["guest.js"]!, "guest.js", { type: "module" }),
    );
    this.kept.push(this.exports);
    const preload = EXTENSIONS.map((name) => `import "./${name}";`).join("\n");
    ctx.unwrapResult(ctx.evalCode(preload, "preload.js", { type: "module" })).dispose();
    runPendingJobs(rt);
    const heap = engineMemory(rt);
    this.length = heap.length;
    this.pages = heldPages(heap, PAGE);
  }

  /**
   * Builds the template in a fresh engine instance (before any run, so the copy holds nothing
   * of one). Answers undefined when it cannot be built: runs then get fresh runtimes.
   * @param quickjs - the engine instance
   */
  static build(quickjs: QuickJSWASMModule): EngineTemplate | undefined {
    const rt = quickjs.newRuntime();
    try {
      const ctx = rt.newContext();
      const fields = ctx as unknown as Record<string, unknown>;
      if (!LAZY_HANDLES.every((key) => Object.hasOwn(fields, key) && fields[key] === undefined))
        throw new Error("quickjs-emscripten-core's context caches changed: keep it at 0.32.0.");
      const randomState = findRandomState(ctx, rt);
      if (randomState === undefined)
        throw new Error("The engine's Math.random state was not found: runs stay cold.");
      return new EngineTemplate(rt, ctx, randomState);
    } catch {
      // The half-built runtime is left in the instance, not freed: it may hold handles, and
      // freeing a runtime with live objects trips QuickJS's leak assertion, which aborts the
      // whole instance. Runs then get fresh runtimes.
      return undefined;
    }
  }

  /** Bytes the copy holds (what the template costs the worker besides the engine's memory). */
  get copyBytes(): number {
    return this.pages.reduce((sum, page) => sum + page.bytes.length, 0);
  }

  /**
   * Writes the copy back over the engine's memory and hands the template to `tenant`. Only
   * when no other runtime of the instance holds anything (the caller counts runs): the write
   * also undoes every allocation made since the copy.
   * @param tenant - the run that gets the template
   * @param limits - the run's memory and stack limits (the copy holds none)
   */
  restore(tenant: TemplateTenant, limits: TemplateLimits): void {
    const heap = engineMemory(this.rt);
    let end = 0;
    for (const { offset, bytes } of this.pages) {
      heap.fill(0, end, offset);
      heap.set(bytes, offset);
      end = offset + bytes.length;
    }
    // Memory grown since is left as it is: past the restored heap's end, the allocator treats
    // it as unused, as it treats memory any earlier run freed. Its bytes (an earlier run's
    // strings, say) stay until reused; the engine hands out only zeroed or written memory
    // (attack11 probed typed arrays, resized buffers and padded strings: none saw them), and
    // zeroing it all would cost every run after one that grew the memory (tens of MB).
    heap.fill(0, end, this.length);
    // Each run draws its own numbers, as a fresh context seeded from the clock did.
    new DataView(heap.buffer).setBigUint64(this.randomState, freshRandomState(), true);
    const fields = this.ctx as unknown as Record<string, unknown>;
    for (const key of LAZY_HANDLES) fields[key] = undefined;
    this.rt.setMemoryLimit(limits.memoryBytes);
    this.rt.setMaxStackSize(limits.stackBytes);
    this.tenant = tenant;
  }

  /** The run holding the template ended: native calls from here on find no run. */
  release(): void {
    this.tenant = undefined;
  }
}

/**
 * An engine instance and its template, with a count of the runs under way in it: the template
 * goes to a run only when that run is alone in the instance.
 */
export class WarmEngine {
  /** Undefined when it could not be built, or after a run left it in doubt. */
  private template: EngineTemplate | undefined;
  private live = 0;

  /**
   * @param quickjs - a fresh engine instance (the template is built in it now)
   * @param gate - what bounds the instance's memory, when it was made with the gate's memory
   */
  constructor(
    readonly quickjs: QuickJSWASMModule,
    readonly gate?: MemoryGate,
  ) {
    // Before the template: the search takes and frees a block at the top of an empty heap.
    gate?.watchBreak(findHeapBreak(quickjs));
    this.template = EngineTemplate.build(quickjs);
  }

  /** Bytes the template's memory copy holds in the worker (0 without a template). */
  get copyBytes(): number {
    return this.template?.copyBytes ?? 0;
  }

  /** Runs begun and not yet ended (the template goes only to a run that finds none). */
  get underWay(): number {
    return this.live;
  }

  /** Whether the next run that starts alone gets the template. */
  get warm(): boolean {
    return this.template !== undefined;
  }

  /**
   * A run starts: the template, restored, when no other run is under way and it is there;
   * else undefined (the run makes its own runtime). Every call is paired with {@link end}.
   * @param tenant - the run
   * @param limits - the run's limits
   */
  begin(tenant: TemplateTenant, limits: TemplateLimits): EngineTemplate | undefined {
    this.live++;
    const template = this.template;
    if (this.live > 1 || !template) return undefined;
    try {
      template.restore(tenant, limits);
      this.gate?.restored();
    } catch {
      this.template = undefined;
      return undefined;
    }
    return template;
  }

  /**
   * A run ended (its handles are freed).
   * @param template - the template it was given, if any
   */
  end(template: EngineTemplate | undefined): void {
    this.live = Math.max(0, this.live - 1);
    template?.release();
  }
}
