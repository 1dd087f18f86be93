/**
 * The skills of one run, on the host: what the run may call (its owner's skills, their code
 * loaded only for the names the program and those skills call literally), the host functions
 * behind `skills.*`, and the saves the run asked for, committed only once the run has succeeded.
 *
 * Host functions (namespace `skills`; sandbox/ext-skills.ts presents them):
 * - `save(definition)`: checks the definition (skill-draft.ts) and the owner's count limit, and
 *   keeps it pending; answers `{ name, saved: "when the run succeeds" }`.
 * - `declarations()`: the TypeScript declarations of the caller's skills (`skills.declarations()`).
 * - `$call(name, input)`: checks `input` against the skill's input schema and answers the
 *   checked copy, which the sandbox then hands to the skill's function. Each call costs one host
 *   call of the run's `maxHostCalls`. Records which version ran.
 *
 * Whose skills: the owner key the caller passes (docs/skills.md); a run never loads another
 * owner's skills, so one user's skill never runs for another.
 */
import { Validator, type Schema } from "@cfworker/json-schema";
import type {
  ExecuteRequest,
  ExecutionOutcome,
  Executor,
  HostCallContext,
  HostFunction,
  SandboxExtension,
} from "../../executor/types";
import { isRecord } from "../../is-record";
import { CodeModeError } from "../../errors";
import { validationSchema } from "../upstream/tool-input-schema";
import { checkSkillDraft } from "./skill-draft";
import { toolDeclarations } from "../../declarations/tool-declarations";
import { MAX_DECLARATIONS_CHARS, type SkillLimits } from "./skill-limits";
import { usableIn, type CallerSkills } from "./caller-skills";
import { readRunSkills } from "./run-skills";
import { calledSkillNames, skillPrelude } from "./skill-prelude";
import { checkRunCodeSize } from "./run-code-size";
import { emptyCounters } from "../../executor/run-start";
import type {
  SkillDraft,
  SkillSignature,
  SkillStore,
  SkillSummary,
  StoredSkill,
} from "./skill-store";

/** What a run of a program that uses skills adds to its executor request. */
export interface SkillRunRequest {
  namespaces: { skills: Record<string, HostFunction> };
  extensions: SandboxExtension[];
  prelude?: string;
}

/** One version of a skill a run called. */
export interface SkillUse {
  name: string;
  version: number;
  calls: number;
}

/** Whether a program may use skills: it mentions `skills` at all (else nothing is shipped). */
const MENTIONS_SKILLS = /\bskills\b/;

/** The skills side of one run. */
export class SkillRun {
  private readonly pending = new Map<string, SkillDraft>();
  private readonly uses = new Map<string, SkillUse>();
  private readonly validators = new Map<string, Validator>();
  /** `save` calls so far: each parses up to `maxCodeChars` on the host, so they are bounded. */
  private saveCalls = 0;

  private constructor(
    private readonly store: SkillStore,
    private readonly owner: string,
    private readonly limits: Readonly<SkillLimits>,
    private readonly tool: string,
    private readonly listed: readonly SkillSummary[],
    private readonly loaded: ReadonlyMap<string, StoredSkill>,
  ) {}

  /**
   * Prepares the skills of a run of `code`, or returns undefined when the program does not
   * mention `skills` (the run then gets no `skills` namespace and costs nothing more).
   * @param caller - where the owner's skills are, whose they are, the limits and the tool
   * @param code - the program
   */
  static async open(caller: CallerSkills, code: string): Promise<SkillRun | undefined> {
    const { store, owner, limits, tool } = caller;
    if (!MENTIONS_SKILLS.test(code)) return undefined;
    // The listing and the called skills' code (and the skills those call): one step for a
    // store that answers it at once (the product's Durable Object), else list, then get.
    const { listed, loaded } = await readRunSkills(store, owner, calledSkillNames(code));
    return new SkillRun(
      store,
      owner,
      limits,
      tool,
      listed,
      new Map(loaded.map((s) => [s.name, s])),
    );
  }

  /**
   * Prepares the skills of a `search` run of `code`: the listing only. A search neither runs
   * nor calls skills, so it loads no skill's code (where {@link open} loads every skill the
   * program names, and those they name), and its `skills.declarations()` reads signatures
   * without code from a store that answers them. Undefined when the program does not mention
   * `skills`.
   * @param caller - where the owner's skills are, whose they are, the limits and the tool
   * @param code - the search program
   */
  static async openForSearch(caller: CallerSkills, code: string): Promise<SkillRun | undefined> {
    const { store, owner, limits, tool } = caller;
    if (!MENTIONS_SKILLS.test(code)) return undefined;
    const { listed } = await readRunSkills(store, owner, []);
    return new SkillRun(store, owner, limits, tool, listed, new Map());
  }

  /**
   * The run's refusal as its outcome when the skills it calls hold more code than
   * `maxRunCodeChars` (the tool answers it without running anything), else undefined.
   */
  refusal(): ExecutionOutcome | undefined {
    try {
      checkRunCodeSize(this.loaded.values(), this.limits.maxRunCodeChars);
      return undefined;
    } catch (error) {
      if (!(error instanceof CodeModeError)) throw error;
      return {
        ...emptyCounters(),
        status: "error",
        error: { name: error.name, message: error.message },
        durationMs: 0,
      };
    }
  }

  /**
   * The namespace, extension and prelude to add to the run's executor request.
   * @throws CodeModeError `skills_too_long` when {@link refusal} would refuse the run
   */
  request(): SkillRunRequest {
    // Before the prelude is built: building and compiling it is the cost the limit bounds.
    checkRunCodeSize(this.loaded.values(), this.limits.maxRunCodeChars);
    const prelude = skillPrelude([...this.loaded.values()]);
    return {
      namespaces: {
        skills: { save: this.save, $call: this.call, declarations: this.declarations },
      },
      extensions: [
        {
          name: "skills",
          namespace: "skills",
          data: JSON.stringify({ names: this.listed.map((s) => s.name) }),
        },
      ],
      ...(prelude === undefined ? {} : { prelude }),
    };
  }

  /**
   * What a `search` run gets: only `skills.declarations()` (a search reads; it neither saves
   * nor calls skills).
   */
  searchRequest(): { namespaces: { skills: Record<string, HostFunction> } } {
    return { namespaces: { skills: { declarations: this.declarations } } };
  }

  /** The skill versions the run called, for its record. */
  used(): SkillUse[] {
    return [...this.uses.values()];
  }

  /**
   * Counts the run's calls of skills in the store (when it keeps them), with the run's error as
   * each called skill's last error when the run failed. Never throws: the answer does not depend
   * on the bookkeeping.
   * @param error - the run's error as the caller sees it (already redacted), when it failed
   */
  async recordUses(error?: string): Promise<void> {
    if (this.uses.size === 0 || !this.store.recordUses) return;
    try {
      // The run's end: a store told late still keeps the error of the run that ended last.
      await this.store.recordUses(this.owner, this.used(), error, Date.now());
    } catch (problem) {
      console.warn(`skills: the uses of a run were not counted: ${String(problem)}`);
    }
  }

  /**
   * Saves what the run asked to save, if it succeeded; otherwise drops it.
   * @param outcome - how the run ended
   * @returns one line per skill the run asked to save, for the tool result
   */
  async commit(outcome: Pick<ExecutionOutcome, "status">): Promise<string[]> {
    const notes: string[] = [];
    for (const draft of this.pending.values()) {
      if (outcome.status !== "ok") {
        notes.push(
          `Skill "${draft.name}" was not saved: the run ended with ${outcome.status}, and only a run that succeeds saves its skills. Fix the program and run it again.`,
        );
        continue;
      }
      try {
        const saved = await this.store.save(this.owner, draft, this.limits);
        notes.push(
          `Saved skill "${saved.name}" as version ${saved.version}: later programs call it as skills.${saved.name}(input).`,
        );
      } catch (error) {
        notes.push(`Skill "${draft.name}" was not saved: ${(error as Error).message}`);
      }
    }
    this.pending.clear();
    return notes;
  }

  private readonly save: HostFunction = ([definition], context) => {
    // Refused before any parsing: a loop of saves (each up to 32,000 characters to parse) would
    // otherwise spend the host's time up to the run's maxHostCalls.
    if (++this.saveCalls > this.limits.maxSavesPerRun * 4)
      throw new CodeModeError(
        "skill_invalid",
        `skills.save() was called ${this.limits.maxSavesPerRun * 4} times in this run, the most allowed; save at most ${this.limits.maxSavesPerRun} skills per run.`,
      );
    // The tool is the host's to say, never the program's.
    const sent = programText(definition, context);
    const draft = checkSkillDraft(
      isRecord(sent) ? { ...sent, tool: this.tool } : sent,
      this.limits,
    );
    const other = this.listed.find((s) => s.name === draft.name && !this.runsHere(s));
    if (other)
      throw new CodeModeError(
        "skill_invalid",
        `Skill "${draft.name}" is saved from the \`${other.tool}\` tool and calls its codemode; saving it here would break it there. Save this one under another name (or delete that one first).`,
      );
    if (!this.pending.has(draft.name) && this.pending.size >= this.limits.maxSavesPerRun)
      throw new CodeModeError(
        "skill_invalid",
        `A run may save at most ${this.limits.maxSavesPerRun} skills; save the others in another run.`,
      );
    // An operator's read-only skill is refused now, where the program can catch it, not when
    // the run ends.
    if (this.listed.some((s) => s.readOnly && s.name === draft.name))
      throw new CodeModeError(
        "skill_invalid",
        `Skill "${draft.name}" is a read-only skill the operator ships with this server: it cannot be overwritten. Save yours under another name.`,
      );
    const own = this.listed.filter((s) => !s.readOnly).map((s) => s.name);
    const existing = new Set([...own, ...this.pending.keys()]);
    if (!existing.has(draft.name) && existing.size >= this.limits.maxSkills)
      throw new CodeModeError(
        "skill_invalid",
        `You already have ${this.limits.maxSkills} skills, the most allowed: delete one you no longer need before saving a new one.`,
      );
    this.pending.set(draft.name, draft);
    return { name: draft.name, saved: "when the run succeeds" };
  };

  /**
   * `skills.declarations()`: TypeScript declarations of every skill the caller may call (what
   * the tool description cannot hold past its room), as `declare const skills: { … }` with each
   * description as a doc comment. Reads each skill once per run.
   */
  private readonly declarations: HostFunction = async () => {
    this.declared ??= (async () => {
      const usable = usableIn(this.listed, this.tool);
      const found = this.store.signatures
        ? await this.signaturesOf(usable.map((s) => s.name))
        : // Read with `get`, code and all (a store that cannot answer without it).
          await Promise.all(
            usable.map((s) => this.loaded.get(s.name) ?? this.store.get(this.owner, s.name)),
          );
      const tools = found.flatMap((s) =>
        s
          ? [
              {
                name: s.name,
                description: s.description,
                inputSchema: s.input,
                ...(s.output === undefined ? {} : { outputSchema: s.output }),
              },
            ]
          : [],
      );
      const { text, omitted } = toolDeclarations(tools, {
        namespace: "skills",
        maxChars: MAX_DECLARATIONS_CHARS,
      });
      return omitted.length === 0 ? text : `${text}${omittedNote(omitted)}`;
    })();
    return this.declared;
  };

  private declared: Promise<string> | undefined;

  /**
   * The store's signatures of the `usable` names, in their order (the listing's): no skill's
   * code is read for a declaration.
   */
  private async signaturesOf(usable: readonly string[]): Promise<(SkillSignature | undefined)[]> {
    const byName = new Map((await this.store.signatures!(this.owner)).map((s) => [s.name, s]));
    return usable.map((name) => byName.get(name));
  }

  /** Whether this tool can run the skill: it needs no tool's codemode, or this one's. */
  private runsHere(skill: Pick<SkillSummary, "tool">): boolean {
    return usableIn([skill], this.tool).length === 1;
  }

  private readonly call: HostFunction = ([name, input]) => {
    const skill = typeof name === "string" ? this.loaded.get(name) : undefined;
    if (!skill)
      throw new CodeModeError(
        "skill_invalid",
        `skills.${String(name)}() was not loaded for this run: call a skill by its literal name, skills.<name>(input), so the host ships its code.`,
      );
    // Before the input check and before the skill's code runs: its codemode calls would fail
    // here half-way through, with a less helpful "is not a function".
    if (!this.runsHere(skill))
      throw new CodeModeError(
        "skill_invalid",
        `skills.${skill.name}() was saved from the \`${skill.tool}\` tool and calls its codemode functions, which this tool (\`${this.tool}\`) does not have: call it from \`${skill.tool}\`. The skill did not run.`,
      );
    let validator = this.validators.get(skill.name);
    if (!validator) {
      validator = new Validator(validationSchema(skill.input) as Schema, "2020-12", false);
      this.validators.set(skill.name, validator);
    }
    const result = validator.validate(input);
    if (!result.valid) {
      const problems = result.errors
        .filter((e) => e.keyword !== "properties" && e.keyword !== "items" && e.keyword !== "$ref")
        .slice(0, 5)
        .map(
          (e) =>
            `${e.instanceLocation.replace(/^#/, "input") || "input"}: ${e.error.replace(/\.$/, "")}`,
        );
      throw new TypeError(
        `skills.${skill.name}() got invalid input: ${problems.join("; ")}. The skill did not run.`,
      );
    }
    const use = this.uses.get(skill.name) ?? { name: skill.name, version: skill.version, calls: 0 };
    use.calls++;
    this.uses.set(skill.name, use);
    return input;
  };
}

/**
 * Runs a program with its skills: `request` with the skills' namespace, extension and prelude
 * added. When the skills it calls hold more code than `maxRunCodeChars`, the refusal is the run's
 * outcome and nothing is built or run (see {@link SkillRun.refusal}). Without skills (the program
 * does not mention them, or the tool has none) the request runs as it is.
 * @param executor - what runs the program
 * @param request - the run's own request (its namespaces and extensions come first; the prelude
 *   is the skills')
 * @param skills - the run's skills, from {@link SkillRun.open}
 */
export async function executeWithSkills(
  executor: Pick<Executor, "execute">,
  request: Omit<ExecuteRequest, "prelude">,
  skills: SkillRun | undefined,
): Promise<ExecutionOutcome> {
  if (!skills) return executor.execute(request);
  const refused = skills.refusal();
  if (refused) return refused;
  const added = skills.request();
  return executor.execute({
    ...request,
    namespaces: { ...request.namespaces, ...added.namespaces },
    extensions: [...(request.extensions ?? []), ...added.extensions],
    ...(added.prelude === undefined ? {} : { prelude: added.prelude }),
  });
}

/**
 * The closing comment of declarations cut at {@link MAX_DECLARATIONS_CHARS}: the skills left
 * out, names only (as the tool description lists skills past its room), so a program still
 * knows they exist and can call them. Names are identifiers (skill-name.ts): safe in a comment.
 */
function omittedNote(omitted: readonly string[]): string {
  const room = String(MAX_DECLARATIONS_CHARS).replace(/\B(?=(\d{3})+$)/g, ",");
  return `// ${omitted.length} more (names only; declaring them would pass ${room} characters): ${omitted.join(", ")}\n`;
}

/**
 * The definition with its `code` as the program wrote it: the sandbox sends the function's
 * `toString()`, which includes the budget ticks the host inserted; the executor maps it back to
 * the program's text. A text that is not part of the program (sent straight to the host
 * function) is refused: a skill is code the run itself contained.
 */
function programText(definition: unknown, context: HostCallContext): unknown {
  if (!isRecord(definition) || typeof definition["code"] !== "string" || !context.originalText)
    return definition;
  const code = context.originalText(definition["code"]);
  if (code === undefined)
    throw new CodeModeError(
      "skill_invalid",
      "skills.save() got a function that is not written in this program: save a function the program itself defines.",
    );
  return { ...definition, code };
}
