/**
 * The product's {@link SkillStore}: each owner's skills in their own `SkillStoreObject`
 * (skill-store-object.ts), reached by name. A refusal the object answered as data is thrown
 * again here as the `CodeModeError` it was.
 */
import { CodeModeError } from "../../errors";
import type { SkillStore } from "../../codemode/skills/skill-store";
import type { SkillOp, SkillOpAnswer, SkillStoreObject } from "./skill-store-object";

/**
 * A store over the `SKILLS` binding.
 * @param namespace - the Durable Object namespace of `SkillStoreObject`
 */
export function durableSkillStore(namespace: DurableObjectNamespace<SkillStoreObject>): SkillStore {
  const send = async (owner: string, op: SkillOp): Promise<never> => {
    const stub = namespace.get(namespace.idFromName(owner));
    const answer = (await stub.op(op)) as SkillOpAnswer;
    if (!answer.ok) throw new CodeModeError(answer.code as "skill_invalid", answer.message);
    return (answer.value ?? undefined) as never;
  };
  return {
    list: (owner) => send(owner, { method: "list", args: [owner] }),
    get: (owner, name, version) => send(owner, { method: "get", args: [owner, name, version] }),
    versions: (owner, name) => send(owner, { method: "versions", args: [owner, name] }),
    save: (owner, draft, limits) =>
      send(owner, {
        method: "save",
        args: [owner, draft, { maxSkills: limits.maxSkills, maxVersions: limits.maxVersions }],
      }),
    delete: (owner, name) => send(owner, { method: "delete", args: [owner, name] }),
    rollBack: (owner, name, version) =>
      send(owner, { method: "rollBack", args: [owner, name, version] }),
    recordUses: (owner, uses, error) =>
      send(owner, { method: "recordUses", args: [owner, uses, error] }),
  };
}
