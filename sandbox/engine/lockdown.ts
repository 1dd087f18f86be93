/**
 * What the guest harness changes in a fresh engine context before the user's module loads, so
 * the engine behaves like the per-run isolate where it matters: timers on the runner's clock,
 * no network, no code generation from strings, and no native work the interrupt handler cannot
 * stop (a Proxy's endless key list). Captures what it uses when it runs (before user code).
 */
const g = globalThis as unknown as Record<string, unknown>;
const { defineProperty } = Object;
const reject = Promise.reject.bind(Promise);
const TypeErrorClass = TypeError;

/**
 * `setTimeout` and `clearTimeout` on the runner's clock (the engine has no timers of its own);
 * a timer never outlives its run, and fires at the latest at the run's deadline.
 */
export function installTimers(timer: (ms: number) => Promise<void>): void {
  const cleared = new Set<number>();
  let next = 1;
  const setTimeoutShim = (fn: unknown, ms?: unknown, ...args: unknown[]): number => {
    const id = next++;
    void timer(Number(ms) || 0).then(() => {
      if (cleared.delete(id) || typeof fn !== "function") return;
      (fn as (...a: unknown[]) => void)(...args);
    });
    return id;
  };
  const clearTimeoutShim = (id: unknown): void => {
    if (typeof id === "number" && id > 0 && id < next) cleared.add(id);
  };
  defineProperty(g, "setTimeout", { value: setTimeoutShim, configurable: true, writable: true });
  defineProperty(g, "clearTimeout", {
    value: clearTimeoutShim,
    configurable: true,
    writable: true,
  });
  if (typeof g["queueMicrotask"] !== "function") {
    const queue = (fn: () => void): void => void Promise.resolve().then(fn);
    defineProperty(g, "queueMicrotask", { value: queue, configurable: true, writable: true });
  }
}

/**
 * `fetch` fails as it does in the per-run isolate: the sandbox has no network.
 * @param message - what the error says instead (harness-shared.ts `fetchRefusal`)
 */
export function blockNetwork(message: string): void {
  const refuse = (): Promise<never> => reject(new TypeErrorClass(message));
  defineProperty(g, "fetch", { value: refuse, configurable: true, writable: true });
}

/**
 * Caps the key list a Proxy's `ownKeys` trap may return: the engine checks such a list for
 * duplicates in native code, quadratic in its length and deaf to the interrupt handler, so an
 * endless list would hold the shared worker. The handler is read at every trap, as the
 * language requires, through a stand-in handler the program cannot reach.
 */
export function capProxyKeys(): void {
  const NativeProxy = Proxy;
  const { apply, ownKeys } = Reflect;
  const MAX_KEYS = 100_000;
  const traps = [
    "apply",
    "construct",
    "defineProperty",
    "deleteProperty",
    "get",
    "getOwnPropertyDescriptor",
    "getPrototypeOf",
    "has",
    "isExtensible",
    "preventExtensions",
    "set",
    "setPrototypeOf",
  ] as const;
  const Capped = function (this: unknown, target: object, handler: ProxyHandler<object>) {
    if (new.target === undefined) throw new TypeError("Constructor Proxy requires 'new'");
    if (typeof handler !== "object" || handler === null) return new NativeProxy(target, handler);
    const standIn: Record<string, unknown> = {};
    for (const trap of traps) {
      standIn[trap] = (...args: unknown[]) => {
        const fn = (handler as Record<string, unknown>)[trap];
        const fallback = (Reflect as unknown as Record<string, (...a: unknown[]) => unknown>)[
          trap
        ]!;
        return typeof fn === "function" ? apply(fn, handler, args) : apply(fallback, Reflect, args);
      };
    }
    standIn["ownKeys"] = (t: object) => {
      const fn = (handler as Record<string, unknown>)["ownKeys"];
      const keys = typeof fn === "function" ? (apply(fn, handler, [t]) as unknown) : ownKeys(t);
      const length = (keys as { length?: unknown } | null)?.length;
      if (typeof length === "number" && length > MAX_KEYS)
        throw new RangeError(
          `A Proxy's ownKeys trap returned ${length} keys; the sandbox allows ${MAX_KEYS}.`,
        );
      return keys;
    };
    return new NativeProxy(target, standIn as ProxyHandler<object>);
  } as unknown as ProxyConstructor;
  defineProperty(Capped, "revocable", {
    value: () => {
      throw new TypeError("Proxy.revocable is not available in the sandbox.");
    },
  });
  defineProperty(g, "Proxy", { value: Capped, configurable: true, writable: true });
}

/** Makes `eval` and every Function constructor throw, as Workers do for code from strings. */
export function blockCodeGeneration(): void {
  const refuse = function (): never {
    throw new EvalError("Code generation from strings disallowed for this context");
  };
  defineProperty(g, "eval", { value: refuse, configurable: true, writable: true });
  const prototypes = [
    function () {},
    async function () {},
    function* () {},
    async function* () {},
  ].map((f) => Object.getPrototypeOf(f) as object);
  for (const proto of prototypes) {
    defineProperty(proto, "constructor", { value: refuse, configurable: false, writable: false });
  }
  defineProperty(refuse, "prototype", { value: Function.prototype });
  g["Function"] = refuse;
}
