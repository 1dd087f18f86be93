/**
 * The run history's settings: `RUNS` (on by default), `RUNS_RETENTION_DAYS` (how long a record
 * is kept), `RUNS_RETENTION_COUNT` and `RUNS_RETENTION_BYTES` (how many records, and how many
 * bytes of them, one caller keeps per day). Checked with
 * the rest of the configuration (config.ts), so a bad value is named at start.
 */
import type { AppSettings } from "./setting-names";

/** How the run history behaves. */
export interface RunSettings {
  /** Record runs (`RUNS`, default on). */
  enabled: boolean;
  /** Records older than this many days are deleted (`RUNS_RETENTION_DAYS`, default 7). */
  retentionDays: number;
  /**
   * Records kept per caller and day (`RUNS_RETENTION_COUNT`, default 1,000); older ones of that
   * caller and day are deleted. Per shard, because a global count would need one object that
   * every run writes through, which the sharding exists to avoid.
   */
  retentionCount: number;
  /**
   * Bytes of records kept per caller and day (`RUNS_RETENTION_BYTES`, default 16 MiB); the
   * oldest of that caller and day go first. A record is at most 64 KiB, so the count alone let
   * one caller store 64 MB a day; this bounds it whatever the count.
   */
  retentionBytes: number;
}

/** The defaults. */
export const DEFAULT_RUN_SETTINGS: Readonly<RunSettings> = Object.freeze({
  enabled: true,
  retentionDays: 7,
  retentionCount: 1_000,
  retentionBytes: 16 * 1024 * 1024,
});

/** A bad run setting, shaped as config.ts reports problems. */
interface Problem {
  setting: string;
  message: string;
  fix: string;
}

/**
 * Reads the run settings.
 * @param settings - the Worker's settings
 * @param problems - where problems are added
 */
export function readRunSettings(settings: AppSettings, problems: Problem[]): RunSettings {
  const raw = (name: keyof AppSettings) => settings[name]?.trim() || undefined;
  const onOff = raw("RUNS")?.toLowerCase();
  let enabled = DEFAULT_RUN_SETTINGS.enabled;
  if (onOff !== undefined) {
    if (["off", "false", "0", "no"].includes(onOff)) enabled = false;
    else if (!["on", "true", "1", "yes"].includes(onOff))
      problems.push({
        setting: "RUNS",
        message: `RUNS must be on or off; got "${settings.RUNS}".`,
        fix: "Set RUNS=on (record runs, the default) or RUNS=off.",
      });
  }
  const whole = (name: keyof AppSettings, fallback: number, max: number) => {
    const text = raw(name);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (Number.isInteger(n) && n >= 1 && n <= max) return n;
    problems.push({
      setting: name,
      message: `${name} must be a whole number from 1 to ${max}; got "${text}".`,
      fix: `Set ${name} to e.g. ${fallback}, or unset it for the default (${fallback}).`,
    });
    return fallback;
  };
  return {
    enabled,
    retentionDays: whole("RUNS_RETENTION_DAYS", DEFAULT_RUN_SETTINGS.retentionDays, 366),
    retentionCount: whole("RUNS_RETENTION_COUNT", DEFAULT_RUN_SETTINGS.retentionCount, 100_000),
    retentionBytes: whole("RUNS_RETENTION_BYTES", DEFAULT_RUN_SETTINGS.retentionBytes, 2 ** 30),
  };
}
