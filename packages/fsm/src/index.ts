/**
 * @cairn/fsm: the replicated state machine and its state store.
 *
 * Writes: build a `Command` (any IDs on the leader), `encodeCommandEntry` it (the leader stamps its time with
 * `stampLeaderTime`), replicate it, and on every server `LogMachine.apply(index, bytes)` in log order; the
 * `ApplyResult` goes back to the caller. Every log-entry kind and its encoding is in entries/: commands and
 * the streamed snapshot restore (`streamRestore` proposes it). `store.apply(index, commandBytes)` applies
 * a bare command. A refusal is an `ApplyError` whose `kind` (a domain error kind, see store/errors.ts) the
 * API maps to a status.
 * Reads: `store.view()` is an O(1) consistent snapshot whose query methods return `{ value, index, watch }`;
 * send `index` as X-Service-Index, and for a blocking query `await store.watches.wait(watch, signal)` in the
 * same tick as the read. Snapshots: `store.snapshot()` yields frames; `store.restore(chunks)` installs them.
 *
 * Layout: `store/` is the core (tables, tx, keys, reads, errors, watches) and imports no area. Each area
 * (kv/, sessions/, catalog/, coordinates/, txn/, config/, queries/, acl/, namespaces/, autopilot/) holds its
 * commands, records, tables (declared by merging into store/tables.ts), decoding and handlers, writes and
 * reads. The composition root gathers them: commands/types.ts (the Command union), commands/registry.ts (the
 * handlers), schema.ts (the table list snapshots follow), view.ts (StateView) and state-store.ts.
 *
 * Extending: add the area's command types and handlers (registered in commands/types.ts and
 * commands/registry.ts), its tables in its own tables.ts and in schema.ts (PRIMARY_TABLES: snapshots pick it
 * up; DERIVED_TABLES, rebuilt by rebuildDerived), and its reads in the area, gathered on StateView.
 */

export type { AuthMethodReads } from "./acl/auth-method-reads.js";
export type {
  AuthMethod,
  AuthMethodCommand,
  AuthMethodSpec,
  BindingRule,
  BindingRuleSpec,
  NamespaceRule,
} from "./acl/auth-methods.js";
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
} from "./acl/commands.js";
export type { AclTokenFilter } from "./acl/reads.js";
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
} from "./acl/records.js";
export type { AutopilotConfig, AutopilotConfigSpec, AutopilotSetCommand } from "./autopilot/autopilot.js";
export type {
  CatalogDeregisterCommand,
  CatalogRegisterCommand,
  CheckSpec,
  NodeSpec,
  RegisterSpec,
  ServiceSpec,
} from "./catalog/commands.js";
export type { ServiceHealth, ServiceQuery } from "./catalog/reads.js";
export type {
  CatalogNode,
  HealthCheck,
  HealthStatus,
  NodeService,
  ServiceAddress,
  ServiceInstance,
  ServiceWeights,
  StringMap,
} from "./catalog/records.js";
export { decodeCommand, encodeCommand } from "./commands/codec.js";
export { CommandDecodeError } from "./commands/errors.js";
export type { ApplyResult } from "./commands/results.js";
export { COMMAND_VERSION, type Command, type CommandType } from "./commands/types.js";
export type { ConfigEntryDeleteCommand, ConfigEntrySetCommand } from "./config/commands.js";
export type { ConfigEntry } from "./config/records.js";
export type { CoordinateBatchUpdateCommand, CoordinateUpdate } from "./coordinates/commands.js";
export type { Coord, CoordinateEntry } from "./coordinates/records.js";
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
export type {
  KVCasCommand,
  KVDeleteCasCommand,
  KVDeleteCommand,
  KVDeleteTreeCommand,
  KVLockCommand,
  KVSetCommand,
  KVUnlockCommand,
  TombstoneReapCommand,
} from "./kv/commands.js";
export type { KVEntry } from "./kv/records.js";
export type { NamespaceCommand } from "./namespaces/commands.js";
export {
  DEFAULT_NAMESPACE_NAME,
  type Namespace,
  type NamespaceAcls,
  type NamespaceSpec,
} from "./namespaces/records.js";
export type { PreparedQueryDeleteCommand, PreparedQuerySetCommand } from "./queries/commands.js";
export {
  isQueryTemplate,
  type PreparedQuery,
  type PreparedQuerySpec,
  type PreparedQueryTemplate,
} from "./queries/records.js";
export type {
  SessionCreateCommand,
  SessionCreated,
  SessionDestroyCommand,
  SessionInvalidateCommand,
  SessionSpec,
} from "./sessions/commands.js";
export type { Session, SessionBehavior, SessionServiceCheck } from "./sessions/records.js";
export {
  DEFAULT_LOCK_DELAY_NS,
  MAX_LOCK_DELAY_NS,
  SESSION_TTL_MAX_NS,
  SESSION_TTL_MIN_NS,
} from "./sessions/writes.js";
export { SnapshotFormatError } from "./snapshot/format.js";
export { StateStore } from "./state-store.js";
export { type ApplyError, DomainError, type ErrorKind, isApplyError } from "./store/errors.js";
export { DEFAULT_NAMESPACE } from "./store/keys.js";
export type { Read } from "./store/read.js";
export type { WatchKey, WatchSet } from "./store/watch/keys.js";
export type { WaitOutcome, WatchRegistry } from "./store/watch/registry.js";
export {
  CATALOG_VERBS,
  type CatalogVerb,
  KV_VERBS,
  type KVVerb,
  type TxnCheckOp,
  type TxnCommand,
  type TxnKVOp,
  type TxnNodeOp,
  type TxnOp,
  type TxnServiceOp,
} from "./txn/commands.js";
export type { TxnError, TxnResponse, TxnResult } from "./txn/results.js";
export { isReadOnlyTxn, MAX_TXN_OPS, MAX_TXN_VALUE_BYTES } from "./txn/run.js";
export type { AclStateReads, StateView } from "./view.js";
