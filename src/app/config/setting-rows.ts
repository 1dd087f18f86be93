/**
 * The kinds of rows a settings table is made of (the Worker's, setting-table.ts, and the
 * launcher's, launcher-settings.ts): a row's doc, default and parser, the common parsers
 * (on/off, text), and `readTable`, which reads a table from an environment the same way for
 * both: a missing or blank setting takes its default, a set one its trimmed text, parsed.
 */

/** One bad setting: which, what is wrong, how to fix it. */
export interface ConfigProblem {
  setting: string;
  message: string;
  fix: string;
}

/** Reports a problem with the setting being read (its name is added). */
type Report = (message: string, fix: string) => void;

/** One row of the table. */
export interface Setting<T> {
  /** What the setting is for, in a line (docs/configuration.md says more). */
  doc: string;
  /** Its value when unset. */
  default: T;
  /**
   * Reads the set text; a problem is reported (and the value then does not matter: the
   * configuration is refused).
   */
  parse: (text: string, report: Report) => T;
  /** Blank text counts as set (`API_AUTH_SCHEME=""` means no scheme). */
  keepBlank?: boolean;
  /**
   * For a whole number: the smallest and largest taken. Data, not the check itself (`parse`
   * checks), so that docs/configuration.md can be tested against it.
   */
  range?: readonly [min: number, max: number];
}

const ON = ["on", "true", "1", "yes"];
const OFF = ["off", "false", "0", "no"];

/**
 * An on/off switch.
 * @param name - the setting
 * @param doc - what it is for
 * @param defaultOn - its value when unset
 * @param fix - the fix for a value that is neither
 */
export function onOff(
  name: string,
  doc: string,
  defaultOn = false,
  fix?: string,
): Setting<boolean> {
  return {
    doc,
    default: defaultOn,
    parse: (text, report) => {
      const v = text.toLowerCase();
      if (ON.includes(v)) return true;
      if (!OFF.includes(v))
        report(
          `${name} must be on or off; got "${text}".`,
          fix ?? `Set ${name}=on or ${name}=off.`,
        );
      return false;
    },
  };
}

/** Any text, as given. */
export function text(doc: string): Setting<string | undefined>;
export function text(doc: string, fallback: string): Setting<string>;
export function text(doc: string, fallback?: string): Setting<string | undefined> {
  return { doc, default: fallback, parse: (t) => t };
}

/**
 * Reads each row of `table` from `settings`: a missing or blank one (unless `keepBlank`) takes
 * its default; a set one its trimmed text, parsed, problems added to `problems`.
 */
export function readTable(
  table: Readonly<Record<string, Setting<unknown>>>,
  settings: Readonly<Record<string, string | undefined>>,
  problems: ConfigProblem[],
): { values: Record<string, unknown>; given: Set<string> } {
  const given = new Set<string>();
  const values: Record<string, unknown> = {};
  for (const [name, row] of Object.entries(table)) {
    const raw = settings[name];
    const set = typeof raw === "string" && (row.keepBlank || raw.trim() !== "");
    if (!set) {
      values[name] = row.default;
      continue;
    }
    given.add(name);
    values[name] = row.parse(row.keepBlank ? raw : raw.trim(), (message, fix) =>
      problems.push({ setting: name, message, fix }),
    );
  }
  return { values, given };
}
