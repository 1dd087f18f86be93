/**
 * Pieces of hostile programs shared by the executor and the tool-level suites: sandbox code
 * (as source text) that hooks prototypes to catch whatever host object the harness touches.
 */

/**
 * Every property name the harness, codec, console capture and RPC plumbing read or write after
 * the program started (plus the usual suspects), hooked on every shared prototype.
 * `@@name` stands for the well-known symbol `Symbol.name`.
 */
export const PROTOTYPE_NAMES: readonly string[] = [
  "call",
  "apply",
  "bind",
  "then",
  "catch",
  "finally",
  "constructor",
  "error",
  "message",
  "name",
  "stack",
  "cause",
  "level",
  "logs",
  "result",
  "truncated",
  "resultBytes",
  "droppedLogs",
  "operations",
  "budgetExhausted",
  "namespaces",
  "extensions",
  "namespace",
  "data",
  "maxOperations",
  "maxResultBytes",
  "maxLogBytes",
  "maxLogEntries",
  "maxCallBytes",
  "toJSON",
  "valueOf",
  "toString",
  "length",
  "v",
  "$cm",
  "includes",
  "map",
  "slice",
  "push",
  "join",
  "get",
  "has",
  "add",
  "delete",
  "dispose",
  "@@toPrimitive",
  "@@iterator",
  "@@dispose",
];

/**
 * Source of `hookPrototypes(names)`: installs a getter and a setter for each name on
 * Object/Function/Array/Promise/String/Error prototypes that behaves like the original but
 * records every RPC object (stub, property, promise) it is read on. Returns
 * `{ stubs(), restore() }`. Everything it needs is captured first, so the hooks themselves do
 * not recurse.
 */
export const HOOK_PROTOTYPES = `
function hookPrototypes(names) {
  const apply = Reflect.apply, define = Object.defineProperty, describe = Object.getOwnPropertyDescriptor, unproto = Object.setPrototypeOf;
  const tagOf = Object.prototype.toString, startsWith = String.prototype.startsWith;
  const found = [], saved = [];
  let busy = false;
  const record = (target) => {
    if (busy || target === null || (typeof target !== "object" && typeof target !== "function")) return;
    busy = true;
    try {
      if (apply(startsWith, apply(tagOf, target, []), ["[object JsRpc"]) && !found.includes(target)) found[found.length] = target;
    } catch {} finally { busy = false; }
  };
  const prototypes = [Object.prototype, Function.prototype, Array.prototype, Promise.prototype, String.prototype, Error.prototype];
  for (const proto of prototypes) {
    for (const raw of names) {
      const key = raw.startsWith("@@") ? Symbol[raw.slice(2)] : raw;
      if (key === undefined) continue;
      const original = describe(proto, key);
      if (original && !original.configurable) continue;
      if (original) unproto(original, null);
      saved[saved.length] = [proto, key, original];
      // Null-prototype descriptors: the hooks on Object.prototype must not leak into them.
      define(proto, key, {
        __proto__: null,
        configurable: true,
        get() {
          record(this);
          if (!original) return undefined;
          return original.get ? apply(original.get, this, []) : original.value;
        },
        set(value) {
          record(this);
          if (original && original.set) return apply(original.set, this, [value]);
          define(this, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
        },
      });
    }
  }
  return {
    stubs: () => found,
    restore() {
      for (const [proto, key, original] of saved) {
        if (original) define(proto, key, original);
        else delete proto[key];
      }
    },
  };
}
`;

/**
 * Sandbox code that takes over the console capture's pending buffer: `Array.prototype.push` is
 * hooked for one `console.log("first")`, which leaves the array the capture pushes into in
 * `buffer`, and `push` (the original) lets the program add entries the sandbox never counted.
 * Only the host's own log budget stands between those and the outcome.
 */
export const TAKE_OVER_LOG_BUFFER = `const push = Array.prototype.push, apply = Reflect.apply;
let buffer;
Array.prototype.push = function (...items) {
  const item = items[0];
  if (!buffer && item && typeof item === "object" && typeof item.level === "string") buffer = this;
  return apply(push, this, items);
};
console.log("first");
Array.prototype.push = push;`;
