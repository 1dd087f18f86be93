/**
 * The run history's settings: `RUNS` (on by default), `RUNS_RETENTION_DAYS` (how long a record
 * is kept), `RUNS_RETENTION_COUNT` and `RUNS_RETENTION_BYTES` (how many records, and how many
 * bytes of them, one caller keeps per day). Read and checked with the rest of the configuration
 * (rows of setting-table.ts), so a bad value is named at start.
 */

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
