/**
 * Sandbox extension for saved skills (shipped as `ext-skills.js`), installed on the `skills`
 * namespace when a program mentions `skills`:
 * - `skills.save({ name, description, input, output?, run })` sends the function's source
 *   (`Function.prototype.toString`, captured when this module loads, before any user code) to
 *   the host's `save`, which checks everything again and saves only if the run succeeds;
 * - `skills.<name>(input)` for each of the caller's skills: asks the host to check `input`
 *   against the skill's schema (`$call`), then runs the skill's function, which the host placed
 *   before the program in its module (`register`, see src/codemode/skills/skill-prelude.ts),
 *   with the host's checked copy of the input.
 *
 * Security: nothing here is a boundary. The program can call the host functions directly and
 * send any source; the host checks it (src/codemode/skills/skill-draft.ts). A skill runs with the
 * caller's own authority, in the caller's run, so bypassing this wrapper gains nothing.
 */
const { hasOwn, freeze } = Object;
const toSource = Function.prototype.toString;
const call = Function.prototype.call;
const ErrorClass = Error;
const TypeErrorClass = TypeError;
const { parse } = JSON;

/** Skill functions placed by the prelude, by name (module state: one run per module instance). */
const registry = new Map<string, (input: unknown) => unknown>();
const mapGet = Map.prototype.get;
const mapSet = Map.prototype.set;

/**
 * Called by the prelude, once per skill, before the program's code runs.
 * @param name - the skill's name
 * @param fn - its function
 */
export function register(name: string, fn: (input: unknown) => unknown): void {
  call.call(mapSet, registry, name, fn);
}

type HostFunction = (...args: unknown[]) => Promise<unknown>;

/**
 * Replaces the namespace's host functions with the program-facing ones.
 * @param api - the `skills` namespace, still unfrozen, holding the host's `save` and `$call`
 * @param data - JSON: `{ names: string[] }`, every skill of the caller
 */
export function install(api: Record<string, unknown>, data: string | Uint8Array): void {
  const hostSave = api["save"] as HostFunction;
  const hostCall = api["$call"] as HostFunction;
  delete api["$call"];
  const { names } = parse(typeof data === "string" ? data : "{}") as { names: string[] };
  api["save"] = (definition: unknown): Promise<unknown> => {
    const run = field(definition, "run");
    if (typeof run !== "function")
      return Promise.reject(
        new TypeErrorClass(
          "skills.save() needs `run`: the function to save, e.g. async (input) => { … }.",
        ),
      );
    return hostSave({
      name: field(definition, "name"),
      description: field(definition, "description"),
      input: field(definition, "input"),
      output: field(definition, "output"),
      code: call.call(toSource, run) as string,
    });
  };
  for (const name of names) {
    api[name] = (input: unknown): Promise<unknown> =>
      hostCall(name, input).then((checked) => {
        const fn = call.call(mapGet, registry, name) as ((input: unknown) => unknown) | undefined;
        if (fn === undefined)
          throw new ErrorClass(
            `skills.${name}() was not loaded for this run: call it by its literal name, skills.${name}(input), so the host ships its code.`,
          );
        return fn(checked);
      });
  }
  freeze(names);
}

/** A field of the program's argument, read as an own property (a getter may throw). */
function field(input: unknown, key: string): unknown {
  return input !== null && typeof input === "object" && hasOwn(input, key)
    ? (input as Record<string, unknown>)[key]
    : undefined;
}
