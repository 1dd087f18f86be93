/**
 * The product's {@link SkillStore}: each owner's skills in their own `SkillStoreObject`
 * (skill-store-object.ts), reached by name. A refusal the object answered as data is thrown
 * again here as the `CodeModeError` it was.
 *
 * Owners of forwarded tokens (`token:…`, skill-owner.ts) are anyone who sends a bearer token, so
 * reaching their object on a read would leave one (an empty SQLite database) per random token:
 * their first save registers them in one directory object ({@link OWNER_DIRECTORY}), and reads
 * for a token owner it does not list answer "no skills" without touching an object. Other owners
 * are bounded by authentication (the API key, OAuth grants, the one open set) and are read
 * directly; their objects' reads write nothing (sql-skill-store.ts).
 *
 * A run costs one round trip before it starts (`runSkills`: the listing and the code it calls)
 * and none after: its use count is written once the answer is out.
 */
import { CodeModeError } from "../../errors";
import { notKept } from "../../codemode/skills/memory-skill-store";
import type { SkillStore } from "../../codemode/skills/skill-store";
import { TOKEN_OWNER_PREFIX } from "./skill-owner";
import { DEFAULT_TOKEN_OWNERS } from "../config/setting-table";
import { tokenOwnersFull } from "./token-owners";
import { afterResponse } from "../runs/after-response";
import {
  OWNER_DIRECTORY,
  type SkillOp,
  type SkillOpAnswer,
  type SkillStoreObject,
} from "./skill-store-object";

/** Most token owners an isolate remembers as registered (a cache: registration is never undone). */
const KNOWN_MAX = 10_000;

/**
 * A store over the `SKILLS` binding.
 * @param namespace - the Durable Object namespace of `SkillStoreObject`
 * @param maxTokenOwners - the most token owners that may save (`SKILLS_MAX_TOKEN_OWNERS`)
 */
export function durableSkillStore(
  namespace: DurableObjectNamespace<SkillStoreObject>,
  maxTokenOwners = DEFAULT_TOKEN_OWNERS,
): SkillStore {
  const send = async (owner: string, op: SkillOp): Promise<never> => {
    const stub = namespace.get(namespace.idFromName(owner));
    const answer = (await stub.op(op)) as SkillOpAnswer;
    if (!answer.ok) throw new CodeModeError(answer.code as "skill_invalid", answer.message);
    return (answer.value ?? undefined) as never;
  };
  const directory = () => namespace.get(namespace.idFromName(OWNER_DIRECTORY));
  const known = new Set<string>();
  const gated = (owner: string) => owner.startsWith(TOKEN_OWNER_PREFIX) && !known.has(owner);
  /** Whether the owner may have skills: false only for a token owner that never saved. */
  const mayHave = async (owner: string): Promise<boolean> => {
    if (!gated(owner)) return true;
    if (!(await directory().hasOwner(owner))) return false;
    remember(owner);
    return true;
  };
  const register = async (owner: string): Promise<void> => {
    if (!gated(owner)) return;
    if (!(await directory().registerOwner(owner, maxTokenOwners)))
      throw tokenOwnersFull(maxTokenOwners);
    remember(owner);
  };
  const remember = (owner: string) => {
    if (known.size >= KNOWN_MAX) known.clear();
    known.add(owner);
  };
  return {
    list: async (owner) =>
      (await mayHave(owner)) ? send(owner, { method: "list", args: [owner] }) : [],
    get: async (owner, name, version) =>
      (await mayHave(owner))
        ? send(owner, { method: "get", args: [owner, name, version] })
        : undefined,
    versions: async (owner, name) =>
      (await mayHave(owner)) ? send(owner, { method: "versions", args: [owner, name] }) : [],
    save: async (owner, draft, limits) => {
      await register(owner);
      return send(owner, {
        method: "save",
        args: [owner, draft, { maxSkills: limits.maxSkills, maxVersions: limits.maxVersions }],
      });
    },
    saveAll: async (owner, drafts, limits) => {
      await register(owner);
      return send(owner, {
        method: "saveAll",
        args: [owner, drafts, { maxSkills: limits.maxSkills, maxVersions: limits.maxVersions }],
      });
    },
    delete: async (owner, name) =>
      (await mayHave(owner)) ? send(owner, { method: "delete", args: [owner, name] }) : false,
    rollBack: async (owner, name, version) => {
      if (!(await mayHave(owner))) throw notKept(name, version);
      return send(owner, { method: "rollBack", args: [owner, name, version] });
    },
    // One round trip for what a run reads before it starts (the listing and the called skills'
    // code), where `list` then `get` took two or more.
    runSkills: async (owner, names) =>
      (await mayHave(owner))
        ? send(owner, { method: "runSkills", args: [owner, names] })
        : { listed: [], loaded: [] },
    // What skills.declarations() reads: no code crosses from the object.
    signatures: async (owner) =>
      (await mayHave(owner)) ? send(owner, { method: "signatures", args: [owner] }) : [],
    // Counted once the answer is out (runs/after-response.ts), like the run history: the call
    // does not wait for the write, nor share the thread with it on its way out. A listing may
    // show the count a moment later.
    // The run's end is taken now (when the caller gave none), not when the write goes: two
    // runs' writes may go in either order, and the object keeps the error of the later run.
    recordUses: (owner, uses, error, at = Date.now()) => {
      afterResponse(async () => {
        try {
          if (await mayHave(owner))
            await send(owner, { method: "recordUses", args: [owner, uses, error, at] });
        } catch (problem) {
          console.warn(`skills: the uses of a run were not counted: ${String(problem)}`);
        }
      });
      return Promise.resolve();
    },
  };
}
