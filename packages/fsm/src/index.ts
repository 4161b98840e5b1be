/**
 * @cairn/fsm: the replicated state machine and its state store.
 *
 * Writes: build a `Command` (any IDs on the leader), `encodeCommandEntry` it (the leader stamps its time with
 * `stampLeaderTime`), replicate it, and on every server `LogMachine.apply(index, bytes)` in log order; the
 * `ApplyResult` goes back to the caller. Every log-entry kind and its encoding is in entries/: commands and
 * the streamed snapshot restore (`streamRestore` proposes it). `store.apply(index, commandBytes)` applies
 * a bare command.
 * Reads: `store.view()` is an O(1) consistent snapshot whose query methods return `{ value, index, watch }`;
 * send `index` as X-Service-Index, and for a blocking query `await store.watches.wait(watch, signal)` in the
 * same tick as the read. Snapshots: `store.snapshot()` yields frames; `store.restore(chunks)` installs them.
 *
 * Config entries: `config-entry.set` / `config-entry.delete` (see areas/config-entries.ts) refuse, as Consul's
 * state store does, changes that would break a discovery chain; reads are `view().configEntry` and
 * `view().configEntries`.
 *
 * Extending (ACL, namespaces, config entries, prepared queries): add the command types to commands/types.ts,
 * an area file under areas/ with their decoders and apply functions (registered in commands/registry.ts),
 * the table's name and type in state/tables.ts (PRIMARY_TABLES: snapshots pick it up), any secondary index
 * there too (DERIVED_TABLES, rebuilt in state/derived.ts), and its reads on StateView.
 */
export {
  type AclBootstrapCommand,
  type AclCommand,
  type AclInitCommand,
  type AclPolicyDeleteCommand,
  type AclPolicySetCommand,
  type AclRoleDeleteCommand,
  type AclRoleSetCommand,
  type AclTokenDeleteCommand,
  type AclTokenSetCommand,
  ANONYMOUS_TOKEN_ACCESSOR,
  ANONYMOUS_TOKEN_SECRET,
  GLOBAL_MANAGEMENT_POLICY_ID,
} from "./areas/acl.js";
export type { AclStateReads, AclTokenFilter } from "./areas/acl-reads.js";
export type {
  AclLinkRef,
  AclPolicy,
  AclPolicySpec,
  AclRole,
  AclRoleSpec,
  AclToken,
  AclTokenSpec,
  StoredNodeIdentity,
  StoredServiceIdentity,
} from "./areas/acl-records.js";
export type {
  AuthMethod,
  AuthMethodCommand,
  AuthMethodSpec,
  BindingRule,
  BindingRuleSpec,
  NamespaceRule,
} from "./areas/auth-methods.js";
export type { AuthMethodReads } from "./areas/auth-methods-reads.js";
export type { AutopilotConfig, AutopilotConfigSpec, AutopilotSetCommand } from "./areas/autopilot.js";
export {
  DEFAULT_NAMESPACE_NAME,
  type Namespace,
  type NamespaceAcls,
  type NamespaceCommand,
  type NamespaceSpec,
} from "./areas/namespaces.js";
export {
  isQueryTemplate,
  type PreparedQuery,
  type PreparedQueryDeleteCommand,
  type PreparedQuerySetCommand,
  type PreparedQuerySpec,
  type PreparedQueryTemplate,
} from "./areas/prepared-queries.js";
export { decodeCommand, encodeCommand } from "./commands/codec.js";
export { CommandDecodeError } from "./commands/errors.js";
export {
  type ApplyError,
  type ApplyResult,
  isApplyError,
  type SessionCreated,
  type TxnError,
  type TxnResponse,
  type TxnResult,
} from "./commands/results.js";
export {
  CATALOG_VERBS,
  type CatalogDeregisterCommand,
  type CatalogRegisterCommand,
  type CatalogVerb,
  type CheckSpec,
  COMMAND_VERSION,
  type Command,
  type CommandType,
  type ConfigEntryDeleteCommand,
  type ConfigEntrySetCommand,
  type CoordinateBatchUpdateCommand,
  type CoordinateUpdate,
  KV_VERBS,
  type KVCasCommand,
  type KVDeleteCasCommand,
  type KVDeleteCommand,
  type KVDeleteTreeCommand,
  type KVLockCommand,
  type KVSetCommand,
  type KVUnlockCommand,
  type KVVerb,
  type NodeSpec,
  type RegisterSpec,
  type ServiceSpec,
  type SessionCreateCommand,
  type SessionDestroyCommand,
  type SessionInvalidateCommand,
  type SessionSpec,
  type TombstoneReapCommand,
  type TxnCheckOp,
  type TxnCommand,
  type TxnKVOp,
  type TxnNodeOp,
  type TxnOp,
  type TxnServiceOp,
} from "./commands/types.js";
export {
  decodeEntry,
  encodeCommandEntry,
  encodeRestoreEntry,
  type LogEntry,
  type RestoreEntry,
  stampLeaderTime,
  type TimedCommand,
} from "./entries/envelope.js";
export { type Applied, LogMachine } from "./entries/machine.js";
export { RESTORE_CHUNK_BYTES, type StreamRestoreOptions, streamRestore } from "./entries/restore-stream.js";
export { SnapshotFormatError } from "./snapshot/format.js";
export {
  DEFAULT_LOCK_DELAY_NS,
  MAX_LOCK_DELAY_NS,
  SESSION_TTL_MAX_NS,
  SESSION_TTL_MIN_NS,
} from "./state/sessions.js";
export { StateStore } from "./state/store.js";
export { isReadOnlyTxn, MAX_TXN_OPS, MAX_TXN_VALUE_BYTES } from "./state/txn.js";
export type { Read, ServiceHealth, ServiceQuery, StateView } from "./state/view.js";
export * from "./types.js";
export type { WatchKey, WatchSet } from "./watch/keys.js";
export type { WaitOutcome, WatchRegistry } from "./watch/registry.js";
