/**
 * Putting back an own property named `__proto__` that a copy dropped. The SDK's zod parses build
 * their output by assignment, and `out["__proto__"] = value` sets the prototype instead of adding
 * a key: a schema property or a result key of that name is then gone. It is put back defined,
 * never assigned (so no prototype is ever set), in the order the original had its keys.
 */

/**
 * Defines `value` as `target`'s own enumerable data property `__proto__` and puts `target`'s
 * keys in `like`'s order (keys `like` lacks go last).
 *
 * @param target - the copy that lost the key (changed in place)
 * @param value - the key's value as the original had it
 * @param like - the original, whose key order to follow
 */
export function putBackProtoKey(target: object, value: unknown, like: object): void {
  Object.defineProperty(target, "__proto__", dataProperty(value));
  orderLike(target, like);
}

/** Puts `target`'s keys in `like`'s order (declarations list properties in schema order). */
function orderLike(target: object, like: object): void {
  const order = [
    ...Object.keys(like).filter((key) => Object.hasOwn(target, key)),
    ...Object.keys(target).filter((key) => !Object.hasOwn(like, key)),
  ];
  const descriptors = order.map((key) => Object.getOwnPropertyDescriptor(target, key)!);
  for (const key of order) Reflect.deleteProperty(target, key);
  order.forEach((key, i) => Object.defineProperty(target, key, descriptors[i]!));
}

function dataProperty(value: unknown): PropertyDescriptor {
  return { value, writable: true, enumerable: true, configurable: true };
}
