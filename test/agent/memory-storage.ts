/**
 * An in-memory stand-in for Durable Object storage, for event-store tests outside a Durable Object.
 */
import type { EventStorage } from "../../src/index";

/** An in-memory stand-in for Durable Object storage (sorted keys, prefix/start/reverse/limit). */
export function memoryStorage(): EventStorage & { size(): number } {
  const data = new Map<string, unknown>();
  const storage = {
    get: async (key: string) => data.get(key),
    put: async (key: string, value: unknown) => void data.set(key, value),
    delete: async (keys: string | string[]) => {
      for (const key of Array.isArray(keys) ? keys : [keys]) data.delete(key);
      return true;
    },
    list: async (options: {
      prefix?: string;
      start?: string;
      reverse?: boolean;
      limit?: number;
    }) => {
      let keys = [...data.keys()].toSorted();
      keys = keys.filter(
        (key) =>
          key.startsWith(options.prefix ?? "") &&
          (options.start === undefined || key >= options.start),
      );
      if (options.reverse) keys.reverse();
      keys = keys.slice(0, options.limit ?? keys.length);
      return new Map(keys.map((key) => [key, data.get(key)]));
    },
    size: () => data.size,
  };
  return storage as unknown as EventStorage & { size(): number };
}
