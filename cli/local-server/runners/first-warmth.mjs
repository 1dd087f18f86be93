/**
 * The first host's wait for the engine before the server counts as ready (supervise.mjs): read
 * the host's stable code (host-code-request.mjs), then teach it to the pool's kept runners
 * (stable-warmth.mjs `teach`), all within one bound. The bound used to cover the teaching alone:
 * the read before it waited up to its own timeout on top, and (before that read had a whole-read
 * bound) an answer that trickled a byte now and then kept the server from ever being ready
 * (attack22). Past the bound the server is ready anyway, and the read and the loads go on.
 */

/**
 * @typedef {{ hash: string, code: Buffer }} HostCode
 */

/**
 * Reads the host's code and teaches it to the pool; resolves once that is done, or `boundMs`
 * after the call, whichever comes first.
 * @param {object} options
 * @param {() => Promise<HostCode | null>} options.read - the host's stable code, or null (none)
 * @param {Promise<boolean>} options.poolUp - whether the pool's kept runners started
 * @param {(hash: string, code: Buffer, boundMs: number) => Promise<void>} options.teach
 * @param {import("../clock.mjs").Clock} options.clock
 * @param {number} options.boundMs - the most the whole wait takes
 * @returns {Promise<void>}
 */
export async function warmFirstHost({ read, poolUp, teach, clock, boundMs }) {
  const start = clock.now();
  const warmed = (async () => {
    const stable = await read();
    if (!stable || !(await poolUp)) return;
    // Whatever the read left of the bound: teach waits no longer than the race below.
    await teach(stable.hash, stable.code, Math.max(0, boundMs - (clock.now() - start)));
  })();
  await Promise.race([warmed, clock.sleep(boundMs)]);
}
