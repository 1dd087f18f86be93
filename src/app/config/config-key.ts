/**
 * The configuration memo's key (app.ts): the env's string settings, launch vars left out
 * (launch-specs.ts), as one string. Kept per bindings object: the runtime hands the same `env`
 * object to every request of an isolate and never changes it (a new deployment or `wrangler
 * dev` reload is a new isolate with a new object), so its key is built once instead of with
 * `Object.entries` and `JSON.stringify` on every request (issue #43, host CPU per call). A
 * caller that builds a new env object per request (the tests' `configured`) gets its key built
 * per request, as before.
 */
import { isConfigKeyEntry } from "./launch-specs";

const keys = new WeakMap<object, string>();

/**
 * The memo key of `env`'s settings: equal for two env objects exactly when their string
 * settings (launch vars aside) are equal, in the same order.
 * @param env - the Worker's bindings (the same object for every request of an isolate)
 */
export function configKeyOf(env: object): string {
  let key = keys.get(env);
  if (key === undefined) {
    key = JSON.stringify(
      Object.entries(env).filter(([k, v]) => typeof v === "string" && isConfigKeyEntry(k)),
    );
    keys.set(env, key);
  }
  return key;
}
