/**
 * One redactor per secret for a test file's many cases. Building a redactor takes 50-180 ms of a
 * core (its spellings and views of the secret); `secretRedactor` caches one per list of secrets,
 * but only for the same array, so a case that passes `[secret]` built a new one every time
 * (joined-lists.test.ts: ~150 of them, ~10 s). A redactor keeps no state between searches, and a
 * run's redactor reads everything the run touches, so a shared one is what the host uses too.
 */
import { secretRedactor, type Redactor } from "../../../src/codemode/redaction/redaction";

const lists = new Map<string, readonly string[]>();

/**
 * The list of one secret, the same frozen array every call: what the host passes every run, so
 * anything given it (`toApiResult`, `secretRedactor`) finds its redactor built.
 * @param secret - the one configured secret
 */
export function secretList(secret: string): readonly string[] {
  let list = lists.get(secret);
  if (list === undefined) {
    list = Object.freeze([secret]);
    lists.set(secret, list);
  }
  return list;
}

/**
 * The redactor of one secret, the same one every call (through `secretRedactor`'s cache).
 * @param secret - the one configured secret
 */
export function redactorFor(secret: string): Redactor {
  return secretRedactor(secretList(secret));
}
