/**
 * The engine's WebAssembly memory, made here so that it grows only as far as the runs under way
 * in it may hold: what the runs' limits allow together (twice each, for the allocator's free
 * pieces), and a fixed room for the engine and its template. Past that, a growth is refused:
 * the engine's allocation fails and QuickJS throws its "out of memory" error in the run that
 * asked, and every run looks at what it holds at its next step check
 * ({@link MemoryGate.refusals}), so the run past its limit is stopped.
 *
 * Why: a run's memory look (memory-look.ts) walks what the engine counts, after work it has been
 * told about. One step makes a rope (`big + n`) and a second one flat (`s.charCodeAt(0)`), a copy
 * of `big` that no built-in charge sees: a 32 MiB run kept 126 flat copies of a 16 MiB string in
 * a few hundred steps, before any step check, and grew the engine to its most (2 GiB), where
 * every other run in it ran out of memory and from where the memory never shrinks.
 *
 * Who pays for a refusal: the run that asked for it, when it is its own ({@link GateShare}): it
 * was alone in the engine, or what it took since it began and the growth asked would pass its
 * own room ({@link shareRoomBytes}) while others are under way. With two runs under way the whole gate
 * alone said nothing of who held what: the hog caught its "out of memory" errors and ran on,
 * and its honest neighbour's next allocation failed instead.
 *
 * Room the engine already has (it never shrinks) is taken without any growth: the allocator
 * moves its break (heap-break.ts) into it. Where the break is known, what a run takes is the
 * break's moves while it is the run in the engine, growth included; a run past its room is
 * stopped at its next look or turn ({@link GateShare.pastRoom}), and while one is, a run within
 * its room may grow the engine past the whole gate, by its room at most, so that it is not the
 * one that runs out. Else (break not found) growth alone is put to runs.
 *
 * The emscripten loader grows the memory through its `grow` method inside a `try` and takes a
 * throw as "no room" (malloc answers null); the method is replaced on this one object only. It
 * asks for more than it needs first (20 %, then 10 %, then 5 % past the memory's length, each at
 * least what it needs) and takes the first growth given: a refused ask that a smaller one of the
 * same round then gets is no refusal of the run's ({@link MemoryGate.refusals}).
 */

/** Bytes per WebAssembly page. */
const PAGE_BYTES = 65_536;

/** The engine's first memory: emscripten's default `INITIAL_MEMORY` for this build (16 MiB). */
const INITIAL_BYTES = 16 * 1_048_576;

/** The most the WebAssembly build lets its memory grow to (2 GiB). */
const MAXIMUM_BYTES = 2_147_483_648;

/** Room the engine always has: its template, the harness, the allocator's own pieces. */
export const ENGINE_ROOM_BYTES = 64 * 1_048_576;

/**
 * What one run may take of the engine's heap while other runs are under way (growth, and room
 * the engine already had: {@link GateShare.takenBytes}): twice its limit (its part of the gate)
 * and half the engine's room (a fresh runtime compiles the harness; the loader asks
 * up to 20 % more than it needs). What is left of the gate then still holds the others' parts.
 * @param bytes - the run's `memoryBytes`
 */
export function shareRoomBytes(bytes: number): number {
  return 2 * bytes + ENGINE_ROOM_BYTES / 2;
}

/** One run's part of the gate, from {@link MemoryGate.hold} until {@link GateShare.release}. */
export interface GateShare {
  /** Bytes the engine's memory grew by while this run was the one in it, since it began. */
  readonly grownBytes: number;
  /**
   * Bytes this run took of the engine's heap since it began: the allocator's break moved while
   * it was the run in the engine (heap-break.ts), less what it gave back at the top; its growth
   * when the break is not known.
   */
  readonly takenBytes: number;
  /**
   * Refused growths that were this run's own: asked while it was alone in the engine, or past
   * its room ({@link shareRoomBytes}) while others were under way. The run holds past its share.
   */
  readonly ownRefusals: number;
  /** Other runs are under way and this one took more than its room: it holds past its share. */
  readonly pastRoom: boolean;
  /**
   * This run is the one in the engine from now on: called before each of its calls into the
   * engine, so a growth and a move of the break are put to the run that made them.
   */
  enter(): void;
  /** The run is over (its runtime freed): its part of the gate is given back (once). */
  release(): void;
}

/** A refused growth whose round may still end with a smaller growth given. */
interface Pending {
  /** The run that asked, when one was in the engine. */
  asker: Share | undefined;
  /** Whether the refusal is the asker's own ({@link GateShare.ownRefusals}). */
  own: boolean;
  /** The memory's length and the pages asked, to tell a smaller ask of the same round. */
  length: number;
  pages: number;
}

/** What a share asks of its gate. */
interface ShareHooks {
  enter(share: Share): void;
  leave(share: Share): void;
  settle(): void;
  taken(share: Share): number;
  others(): boolean;
}

class Share implements GateShare {
  grownBytes = 0;
  /** Break moves in this run's turns that ended (see {@link takenBytes}). */
  moved = 0;
  /** Own refusals settled so far (see {@link ownRefusals}). */
  owned = 0;

  constructor(
    readonly bytes: number,
    private readonly hooks: ShareHooks,
  ) {}

  get takenBytes(): number {
    return this.hooks.taken(this);
  }

  get ownRefusals(): number {
    this.hooks.settle();
    return this.owned;
  }

  get pastRoom(): boolean {
    return this.hooks.others() && this.takenBytes > shareRoomBytes(this.bytes);
  }

  enter(): void {
    this.hooks.enter(this);
  }

  release(): void {
    this.hooks.leave(this);
  }
}

/** Where the engine's memory may grow to, run by run. */
export class MemoryGate {
  /** The memory to give the engine (`newVariant(variant, { wasmMemory })`). */
  readonly memory: WebAssembly.Memory;
  /** Refusals counted so far (settled: see {@link refusals}). */
  private refused = 0;
  /** The last refused ask, until it is known whether its round ended refused. */
  private pending: Pending | undefined;
  /** Bytes the runs under way may hold together. */
  private allowed = 0;
  /** Runs under way (their {@link hold} not yet released). */
  private readonly shares = new Set<Share>();
  /** The run in the engine now ({@link GateShare.enter}). */
  private current: Share | undefined;
  /** Where the allocator keeps its break ({@link watchBreak}), when known. */
  private breakAddress: number | undefined;
  /** The break when the run in the engine began its turn (or the engine was restored). */
  private turnBreak = 0;
  private readonly hooks: ShareHooks = {
    enter: (share) => {
      if (!this.shares.has(share) || this.current === share) return;
      // Another run's turn: the last round of asks, if refused, was the one before it.
      this.settle();
      this.endTurn();
      this.current = share;
    },
    leave: (share) => {
      if (!this.shares.has(share)) return;
      this.settle();
      if (this.current === share) {
        this.endTurn();
        this.current = undefined;
      }
      this.shares.delete(share);
      this.allowed -= share.bytes;
    },
    settle: () => this.settle(),
    taken: (share) => this.taken(share),
    others: () => this.shares.size > 1,
  };

  constructor() {
    const memory = new WebAssembly.Memory({
      initial: INITIAL_BYTES / PAGE_BYTES,
      maximum: MAXIMUM_BYTES / PAGE_BYTES,
    });
    const grow = WebAssembly.Memory.prototype.grow;
    Object.defineProperty(memory, "grow", {
      value: (pages: number): number => {
        const length = memory.buffer.byteLength;
        const pending = this.pending;
        // An ask no larger at the same length is the same round's next try: the refused one
        // before it is settled by how this one ends. Anything else ends the round before it
        // refused. (A new round that asks no more than a refused one just before it is taken
        // for the same round: its refusal is counted once, and not at all when it is given.)
        if (pending && !(length === pending.length && pages <= pending.pages)) this.settle();
        const bytes = pages * PAGE_BYTES;
        const asker = this.asker();
        const alone = this.shares.size === 1;
        const pastOwn =
          !alone && asker !== undefined && this.taken(asker) + bytes > shareRoomBytes(asker.bytes);
        if (length + bytes > this.mostFor(asker) || pastOwn) {
          this.pending = { asker, own: asker !== undefined && (alone || pastOwn), length, pages };
          // Caught by the emscripten loader's growth, which then answers "no room".
          throw new RangeError("The engine's memory may not grow past its runs' limits.");
        }
        this.pending = undefined;
        const before = grow.call(memory, pages);
        if (asker) asker.grownBytes += bytes;
        return before;
      },
    });
    this.memory = memory;
  }

  /**
   * Growths refused so far, each round of the loader's asks that ended with none given: a run
   * that saw fewer looks at what it holds. Read between engine calls (a look), when no round is
   * under way.
   */
  get refusals(): number {
    this.settle();
    return this.refused;
  }

  /** The most bytes the memory may hold now. */
  get mostBytes(): number {
    return Math.min(MAXIMUM_BYTES, ENGINE_ROOM_BYTES + 2 * this.allowed);
  }

  /** Whether the allocator's break is known ({@link watchBreak}): else growth alone is put to runs. */
  get watchingBreak(): boolean {
    return this.breakAddress !== undefined;
  }

  /**
   * Puts the allocator's break moves to runs from now on (heap-break.ts).
   * @param address - where the engine keeps its break, when found
   */
  watchBreak(address: number | undefined): void {
    this.breakAddress = address;
    this.turnBreak = this.readBreak();
  }

  /**
   * The engine's memory was written back (warm-engine.ts, for a run alone in it): the break is
   * the template's again, and no move of it is a run's.
   */
  restored(): void {
    this.turnBreak = this.readBreak();
  }

  /**
   * A run with limit `bytes` is under way until its share is released.
   * @param bytes - the run's `memoryBytes`
   */
  hold(bytes: number): GateShare {
    // Rounds left refused are settled before the runs they are put to change.
    this.settle();
    const share = new Share(bytes, this.hooks);
    this.shares.add(share);
    this.allowed += bytes;
    return share;
  }

  /**
   * The most the memory may grow to for `asker`: the gate; past it by the asker's room while
   * another run under way is past its own (that run is being stopped, and must not be the
   * reason this one runs out).
   */
  private mostFor(asker: Share | undefined): number {
    if (!asker || this.breakAddress === undefined) return this.mostBytes;
    for (const share of this.shares)
      if (share !== asker && share.pastRoom)
        return Math.min(MAXIMUM_BYTES, this.mostBytes + shareRoomBytes(asker.bytes));
    return this.mostBytes;
  }

  /** What `share` took ({@link GateShare.takenBytes}), its turn under way included. */
  private taken(share: Share): number {
    if (this.breakAddress === undefined) return share.grownBytes;
    return share.moved + (share === this.current ? this.readBreak() - this.turnBreak : 0);
  }

  /** The run in the engine ends its turn: the break's moves in it are its. */
  private endTurn(): void {
    const now = this.readBreak();
    if (this.current) this.current.moved += now - this.turnBreak;
    this.turnBreak = now;
  }

  /** The allocator's break now (0 when not known). */
  private readBreak(): number {
    const address = this.breakAddress;
    return address === undefined ? 0 : new DataView(this.memory.buffer).getUint32(address, true);
  }

  /** The run a growth asked now is put to: the only one under way, else the one in the engine. */
  private asker(): Share | undefined {
    if (this.shares.size === 1) {
      for (const only of this.shares) return only;
    }
    return this.current;
  }

  /** The last round ended refused: it counts, and on its asker when the refusal was its own. */
  private settle(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.refused++;
    if (pending.own && pending.asker) pending.asker.owned++;
  }
}
