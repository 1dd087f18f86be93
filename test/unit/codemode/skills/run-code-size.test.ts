// The bound on the skills' code one run loads (src/codemode/skills/run-code-size.ts), where it is
// decided: a run whose skills hold exactly `maxRunCodeChars` runs, one character more is refused
// with a message naming the total, the limit, the setting and what to do.
import { describe, expect, it } from "vitest";
import { CodeModeError } from "../../../../src/errors";
import { checkRunCodeSize } from "../../../../src/codemode/skills/run-code-size";
import { DEFAULT_SKILL_LIMITS } from "../../../../src/codemode/skills/skill-limits";

const skill = (chars: number) => ({ code: "x".repeat(chars) });

describe("checkRunCodeSize", () => {
  it("lets a run through at the limit, counting every skill it loads", () => {
    expect(() => checkRunCodeSize([skill(60), skill(40)], 100)).not.toThrow();
    expect(() => checkRunCodeSize([], 0)).not.toThrow();
  });

  it("refuses a run one character past the limit, and says what to do", () => {
    let caught: unknown;
    try {
      checkRunCodeSize([skill(60), skill(41)], 100);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CodeModeError);
    expect((caught as CodeModeError).code).toBe("skills_too_long");
    const message = (caught as CodeModeError).message;
    expect(message).toContain("The 2 skills this run calls");
    expect(message).toContain("hold 101 characters of code");
    expect(message).toContain(
      "the limit is 100 (maxRunCodeChars; setting SKILLS_MAX_RUN_CODE_CHARS)",
    );
    expect(message).toContain("Call fewer skills in one run");
  });

  it("defaults to four skills of the largest size", () => {
    const largest = DEFAULT_SKILL_LIMITS.maxCodeChars;
    const max = DEFAULT_SKILL_LIMITS.maxRunCodeChars;
    expect(max).toBe(131_072);
    expect(() =>
      checkRunCodeSize(
        [1, 2, 3, 4].map(() => skill(largest)),
        max,
      ),
    ).not.toThrow();
    expect(() =>
      checkRunCodeSize(
        [1, 2, 3, 4, 5].map(() => skill(largest)),
        max,
      ),
    ).toThrow(/hold 160000 characters/);
  });
});
