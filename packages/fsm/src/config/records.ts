/**
 * A config entry as stored: the API's validated, CamelCase form of one of the eight kinds (fields beyond these
 * depend on the kind), stamped with its namespace and Raft indexes.
 */
export interface ConfigEntry {
  readonly Kind: string;
  readonly Name: string;
  readonly Namespace: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly [field: string]: unknown;
}
