/**
 * The bound on forwarded-token owners (`FORWARD_CALLER_TOKEN=on`): anyone may send any bearer
 * token, and each token is a principal of its own (skill-owner.ts), so without a bound a loop of
 * random tokens that save one skill each would leave a Durable Object per token for ever. The
 * directory object (skill-store-object.ts) registers a token owner at its first save; past
 * `SKILLS_MAX_TOKEN_OWNERS` registered owners, a new one's save is refused (owners already
 * registered keep saving, reading and deleting).
 */
import { CodeModeError } from "../../errors";

/**
 * Whether one more owner may be registered beside `registered` ones.
 * @param registered - owners the directory lists
 * @param max - the bound (`SKILLS_MAX_TOKEN_OWNERS`)
 */
export function mayRegisterOwner(registered: number, max: number): boolean {
  return registered < max;
}

/**
 * The refusal of a save by a token owner the directory has no room for.
 * @param max - the bound
 */
export function tokenOwnersFull(max: number): CodeModeError {
  return new CodeModeError(
    "skill_invalid",
    `This server keeps skills for at most ${max} forwarded tokens, and that many have saved skills already: nothing was saved. The operator can raise SKILLS_MAX_TOKEN_OWNERS.`,
  );
}
