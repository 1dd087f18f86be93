/**
 * Who a refused growth of the engine's memory is put to (sandbox/engine/memory-gate.ts), driven
 * as the emscripten loader drives it: each round asks 20 %, then 10 %, then 5 % past the
 * memory's length (each at least what it needs) and takes the first growth given.
 */
import { describe, expect, it } from "vitest";
import {
  ENGINE_ROOM_BYTES,
  MemoryGate,
  shareRoomBytes,
} from "../../../../sandbox/engine/memory-gate";

const MIB = 1_048_576;
const PAGE = 65_536;

/** One round of the loader's asks for a memory of `needed` bytes: whether one was given. */
function round(memory: WebAssembly.Memory, needed: number): boolean {
  const length = memory.buffer.byteLength;
  for (const over of [0.2, 0.1, 0.05]) {
    const target = Math.ceil(Math.max(needed, length * (1 + over)) / PAGE) * PAGE;
    try {
      memory.grow((target - length) / PAGE);
      return true;
    } catch {
      // The loader tries the next, smaller ask.
    }
  }
  return false;
}

describe("memory gate: refusals and who pays", () => {
  it("counts no refusal for a round whose smaller ask was given", () => {
    const gate = new MemoryGate();
    const share = gate.hold(32 * MIB);
    share.enter();
    // Grow close to the gate (64 + 2 × 32 MiB): the 20 % ask passes it, the 5 % one does not.
    expect(round(gate.memory, gate.mostBytes - 8 * MIB)).toBe(true);
    const before = gate.memory.buffer.byteLength;
    expect(round(gate.memory, before + MIB)).toBe(true);
    // Before: the refused 20 % ask counted as a refusal while alone, and stopped the run.
    expect(gate.refusals).toBe(0);
    expect(share.ownRefusals).toBe(0);
  });

  it("puts a round refused while alone to the run, once", () => {
    const gate = new MemoryGate();
    const share = gate.hold(32 * MIB);
    expect(round(gate.memory, gate.mostBytes + MIB)).toBe(false);
    expect(gate.refusals).toBe(1);
    expect(share.ownRefusals).toBe(1);
  });

  it("with two runs under way, puts a refusal to the run past its own room only", () => {
    const gate = new MemoryGate();
    const hog = gate.hold(32 * MIB);
    const honest = gate.hold(32 * MIB);
    hog.enter();
    const start = gate.memory.buffer.byteLength;
    expect(round(gate.memory, start + shareRoomBytes(32 * MIB) - 4 * MIB)).toBe(true);
    // The hog asks past its room: refused although the whole gate still has room.
    const length = gate.memory.buffer.byteLength;
    expect(length + 8 * MIB).toBeLessThan(gate.mostBytes);
    expect(round(gate.memory, length + 8 * MIB)).toBe(false);
    expect(hog.ownRefusals).toBe(1);
    // The honest run within its room is given what is left of the gate.
    honest.enter();
    expect(round(gate.memory, gate.mostBytes - MIB)).toBe(true);
    expect(honest.grownBytes).toBeGreaterThan(0);
    // The gate is full: the honest run is refused, but the refusal is not its own.
    expect(round(gate.memory, gate.mostBytes + MIB)).toBe(false);
    expect(gate.refusals).toBe(2);
    expect(honest.ownRefusals).toBe(0);
    expect(hog.ownRefusals).toBe(1);
  });

  it("settles a refused round when another run takes its turn", () => {
    const gate = new MemoryGate();
    const hog = gate.hold(32 * MIB);
    const honest = gate.hold(32 * MIB);
    hog.enter();
    const start = gate.memory.buffer.byteLength;
    expect(round(gate.memory, start + shareRoomBytes(32 * MIB) - 4 * MIB)).toBe(true);
    // Past its room: every ask of the round is the 40 MiB it needs, all refused.
    const length = gate.memory.buffer.byteLength;
    expect(round(gate.memory, length + 40 * MIB)).toBe(false);
    // The honest run's 20 % ask is smaller, at the same length, and given: not the hog's round.
    honest.enter();
    expect(round(gate.memory, length + MIB)).toBe(true);
    expect(hog.ownRefusals).toBe(1);
    expect(gate.refusals).toBe(1);
  });

  it("puts the allocator's break moves to the run in the engine (room it already has)", () => {
    const gate = new MemoryGate();
    // A word standing for the allocator's break (heap-break.ts finds the engine's).
    const address = 1024;
    const setBreak = (at: number) => new DataView(gate.memory.buffer).setUint32(address, at, true);
    setBreak(2 * MIB);
    gate.watchBreak(address);
    const hog = gate.hold(32 * MIB);
    // Grown while the hog was alone (the break did not move: nothing of it is taken yet).
    expect(round(gate.memory, gate.mostBytes - MIB)).toBe(true);
    const honest = gate.hold(32 * MIB);
    honest.enter();
    setBreak(3 * MIB);
    hog.enter();
    // The hog takes room without any growth, past its own.
    setBreak(3 * MIB + shareRoomBytes(32 * MIB) + MIB);
    expect(hog.pastRoom).toBe(true);
    honest.enter();
    expect(hog.takenBytes).toBe(shareRoomBytes(32 * MIB) + MIB);
    expect(honest.takenBytes).toBe(MIB);
    expect(honest.pastRoom).toBe(false);
    // While the hog is past its room, the honest run may grow past the whole gate, by its room.
    expect(round(gate.memory, gate.mostBytes + MIB)).toBe(true);
    expect(honest.ownRefusals).toBe(0);
    expect(round(gate.memory, gate.mostBytes + shareRoomBytes(32 * MIB) + MIB)).toBe(false);
    // Given back at the top (the allocator trims): less taken.
    hog.enter();
    setBreak(3 * MIB);
    expect(hog.pastRoom).toBe(false);
    // Alone, a run is never past its room (the gate itself bounds it).
    honest.release();
    setBreak(3 * MIB + 2 * shareRoomBytes(32 * MIB));
    expect(hog.pastRoom).toBe(false);
  });

  it("gives a released run's part back and forgets it as the run in the engine", () => {
    const gate = new MemoryGate();
    const first = gate.hold(32 * MIB);
    const second = gate.hold(32 * MIB);
    expect(gate.mostBytes).toBe(ENGINE_ROOM_BYTES + 128 * MIB);
    first.enter();
    first.release();
    first.release();
    expect(gate.mostBytes).toBe(ENGINE_ROOM_BYTES + 64 * MIB);
    // Alone now: a growth is the second run's, whoever entered last.
    expect(round(gate.memory, gate.memory.buffer.byteLength + MIB)).toBe(true);
    expect(second.grownBytes).toBeGreaterThan(0);
    expect(first.grownBytes).toBe(0);
  });
});
