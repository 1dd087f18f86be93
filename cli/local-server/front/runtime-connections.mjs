/**
 * The front's kept-alive connections to one runtime's Unix socket: a request takes one (the
 * most recently used idle one, else a new one), writes its head and body on it in one system
 * call, reads its answer (answer-parser.mjs) and gives it back when the answer ended cleanly.
 *
 * Why not `node:http`'s client and agent: per request they build a request object, serialise and
 * check its headers again, parse the answer into another object and move the socket between
 * the agent's lists with a listener or two each way; a fifth of the front's CPU per request
 * (issue #43, bench/README.md). Here each connection has its listeners once, for its life, and
 * passes what it reads to whoever uses it.
 *
 * Idle connections: workerd closes a connection idle for 5 s. One idle for {@link IDLE_MS} or
 * more is not used again (closed when taken), so a request is rarely sent just as workerd closes
 * it; when that still happens (the answer never began), the exchange may send it again, once,
 * on a new connection (resend-rule.mjs). Nothing times them otherwise: no timer per request or
 * connection; one never taken again is closed by workerd.
 */
import { connect } from "node:net";

/** How long a connection may sit idle and still be used (workerd's own bound is 5 s). */
export const IDLE_MS = 4_000;

/**
 * Who uses a connection now: told each piece of bytes read, and its close.
 * @typedef {object} ConnectionUser
 * @property {(bytes: Buffer) => void} data
 * @property {(error: NodeJS.ErrnoException | undefined) => void} closed - the connection ended
 *   (an error, or undefined for an orderly end by the runtime); it is then destroyed
 * @property {() => void} [written] - the whole request was handed to the system
 */

/** One connection to the runtime. */
export class RuntimeConnection {
  /** Whether it carried a request before this one (a kept-alive connection taken again). */
  reused = false;
  /**
   * Whether the last request's write failed at once: the connection was found closed (a write
   * to a closed peer's Unix socket is refused outright), so not one byte of it reached the
   * runtime (resend-rule.mjs).
   */
  unsent = false;
  /** When it was last given back. */
  idleSince = 0;
  /** @type {ConnectionUser | null} */
  #user = null;
  /** @type {NodeJS.ErrnoException | undefined} */
  #error;
  #socket;

  /**
   * @param {string} path - the runtime's Unix socket
   * @param {(connection: RuntimeConnection) => void} forget - called once when it closed
   */
  constructor(path, forget) {
    this.#socket = connect(path);
    this.#socket.on("data", (/** @type {Buffer} */ bytes) => {
      // Bytes while idle: nothing was asked; such a connection is not used again.
      if (this.#user) this.#user.data(bytes);
      else this.#socket.destroy();
    });
    this.#socket.on("error", (error) => (this.#error ??= error));
    // An orderly end by the runtime (it closes an idle connection): closed on this side too.
    this.#socket.on("end", () => this.#socket.destroy());
    this.#socket.on("close", () => {
      forget(this);
      const user = this.#user;
      this.#user = null;
      user?.closed(this.#error);
    });
  }

  /** Whether it is closed, or closing. */
  get destroyed() {
    return this.#socket.destroyed;
  }

  /**
   * Sends a request on it for `user`: its head and body written together (one system call once
   * connected).
   * @param {ConnectionUser} user
   * @param {string} head - the request line and headers, with the blank line that ends them
   * @param {Buffer} body
   */
  send(user, head, body) {
    this.#user = user;
    const socket = this.#socket;
    /** @param {Error | null | undefined} error */
    const sent = (error) => {
      if (!error && this.#user === user) user.written?.();
    };
    socket.cork();
    if (body.length > 0) {
      socket.write(head, "latin1");
      socket.write(body, sent);
    } else socket.write(head, "latin1", sent);
    socket.uncork();
    // A write the system refused outright is an error now, before any byte was taken (one it
    // took in part fails later, if at all: then some of the request may have been read).
    this.unsent = socket.errored != null;
  }

  /** Stops reading until {@link resume} (the client reads slower than the runtime writes). */
  pause() {
    this.#socket.pause();
  }

  resume() {
    this.#socket.resume();
  }

  /** Ends it now; its user hears of it no more. */
  destroy() {
    this.#user = null;
    this.#socket.destroy();
  }

  /**
   * Its user is done with it, its answer read whole: idle from now.
   * @param {number} now
   */
  release(now) {
    this.#user = null;
    this.idleSince = now;
  }
}

/**
 * The connections to one runtime.
 * @param {string} path - the runtime's Unix socket
 * @param {{ idleMs?: number, now?: () => number }} [options]
 */
export function runtimeConnections(path, { idleMs = IDLE_MS, now = Date.now } = {}) {
  /** Idle connections, the most recently used last. @type {RuntimeConnection[]} */
  const idle = [];
  let ended = false;
  /** @param {RuntimeConnection} connection */
  const forget = (connection) => {
    const at = idle.indexOf(connection);
    if (at >= 0) idle.splice(at, 1);
  };
  return {
    /**
     * A connection for one request: the most recently used idle one when it has been idle less
     * than `idleMs`, else a new one.
     * @param {boolean} [fresh] - a new one whatever is idle
     * @returns {RuntimeConnection}
     */
    take(fresh = false) {
      if (!fresh)
        while (idle.length > 0) {
          const connection = /** @type {RuntimeConnection} */ (idle.pop());
          if (connection.destroyed) continue;
          if (now() - connection.idleSince >= idleMs) {
            // Too close to workerd's own bound; the older ones are older still.
            connection.destroy();
            for (const older of idle.splice(0)) older.destroy();
            break;
          }
          connection.reused = true;
          return connection;
        }
      return new RuntimeConnection(path, forget);
    },
    /**
     * Gives a connection back after an answer read whole on it (else it is destroyed).
     * @param {RuntimeConnection} connection
     * @param {boolean} reusable - the answer ended cleanly and let the connection stay open
     */
    giveBack(connection, reusable) {
      if (!reusable || ended || connection.destroyed) return connection.destroy();
      connection.release(now());
      idle.push(connection);
    },
    /** Closes the idle connections and every one given back later (the runtime was ended). */
    destroy() {
      ended = true;
      for (const connection of idle.splice(0)) connection.destroy();
    },
    /** Idle connections now (tests). */
    idleCount: () => idle.length,
  };
}

/** @typedef {ReturnType<typeof runtimeConnections>} RuntimeConnections */
