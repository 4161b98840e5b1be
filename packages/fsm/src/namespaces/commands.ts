import type { Versioned } from "../commands/version.js";
import type { NamespaceSpec } from "./records.js";

export interface NamespaceSetCommand extends Versioned {
  readonly type: "namespace.set";
  readonly op: "create" | "update";
  readonly namespace: NamespaceSpec;
}

/** Marks a namespace for deletion at `now`. */
export interface NamespaceDeleteCommand extends Versioned {
  readonly type: "namespace.delete";
  readonly name: string;
  readonly now: number;
}

/** Leader-issued: removes a marked namespace and everything in it. */
export interface NamespacePurgeCommand extends Versioned {
  readonly type: "namespace.purge";
  readonly name: string;
  readonly now: number;
}

export type NamespaceCommand = NamespaceSetCommand | NamespaceDeleteCommand | NamespacePurgeCommand;
