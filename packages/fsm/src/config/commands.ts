import type { Versioned } from "../commands/version.js";

/**
 * Store a config entry (validated and normalised by the API; `entry` holds Kind and Name). With `cas`, 0 stores
 * only if absent and any other value only if the stored entry's ModifyIndex equals it.
 */
export interface ConfigEntrySetCommand extends Versioned {
  readonly type: "config-entry.set";
  readonly ns?: string;
  readonly entry: Readonly<Record<string, unknown>>;
  readonly cas?: number;
}

/** Remove a config entry; with `cas`, only if it exists with that ModifyIndex. */
export interface ConfigEntryDeleteCommand extends Versioned {
  readonly type: "config-entry.delete";
  readonly ns?: string;
  readonly kind: string;
  readonly name: string;
  readonly cas?: number;
}

export type ConfigEntryCommand = ConfigEntrySetCommand | ConfigEntryDeleteCommand;
