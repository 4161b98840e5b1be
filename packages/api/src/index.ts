export { DurationError, formatDuration, parseDurationMs, parseDurationNs } from "@cairn/duration";
export { JsonSyntaxError, type JsonValue, readJson, writeJson } from "@cairn/json";
export { AclEnforcer, type AclEnforcerOptions, storeAclLookups } from "./acl/enforcer.js";
export type {
  AgentBackend,
  AggregateSummary,
  LocalCheck,
  LocalService,
  MetricsSummary,
  MonitorLevel,
} from "./agent/backend.js";
export {
  type CheckDefinition,
  type CheckKind,
  DefinitionError,
  parseCheckDefinition,
  parseServiceDefinition,
  type ServiceDefinition,
  upgradeCheckDefinition,
} from "./agent/definitions.js";
export {
  type AgentMemberJson,
  type MembershipBackend,
  MembershipRequestError,
  type MembershipRoutesOptions,
  membershipRoutes,
} from "./agent/membership-routes.js";
export { createApi } from "./app.js";
export {
  type AuthMethodIO,
  httpAuthMethodIO,
  type JsonRequest,
  type JsonResponse,
} from "./auth-methods/io.js";
export {
  type AclAccess,
  type AclDecision,
  type AclResourceType,
  type Authorizer,
  allowAll,
  filterAllowed,
} from "./authorizer.js";
export {
  type ApiConfig,
  type ApiDeps,
  type ClusterBackend,
  type DatacenterCoordinatesJson,
  type DatacenterForward,
  DEFAULT_API_CONFIG,
  LeaderBusyError,
  type LeaderContact,
  NoClusterLeaderError,
  PermissionDeniedError,
  type ReadMode,
  type SnapshotArchive,
} from "./backend.js";
export { type CatalogRpc, catalogRpc, isCatalogRpc } from "./catalog/rpc.js";
export type { CatalogWriteContext } from "./catalog/writes.js";
export {
  type EventBackend,
  eventIndex,
  type UserEvent,
  UserEventError,
  type UserEventRequest,
} from "./events.js";
export { afterAnswer } from "./http/after-answer.js";
export { withKnownBody } from "./http/body.js";
export { type ClientGone, signalGone } from "./http/client-gone.js";
export { httpEdge } from "./http/edge.js";
export type { ApiEnv } from "./http/env.js";
export { HttpError } from "./http/errors.js";
export { acceptsGzip } from "./http/gzip.js";
export {
  type KnownForm,
  knownForm,
  VARY_ACCEPT_ENCODING,
  varyWithAcceptEncoding,
  withKnownForm,
  withReusableBody,
} from "./http/known-form.js";
export { blockingWaitMs, WAIT_JITTER_FRACTION } from "./http/read-options.js";
export { shareBlockingQueries } from "./http/shared-fetch.js";
export { type QueryFrame, SharedQueries, type ShareKey, shareKey } from "./http/shared-queries.js";
export { LocalBackend } from "./local-backend.js";
export { ignoresDatacenter, requestedDatacenter } from "./middleware/datacenter.js";
export { AGENT_NODE_HEADER } from "./middleware/request-context.js";
export { replicateAcl } from "./replication/acl-replicator.js";
export { replicateConfigEntries } from "./replication/config-replicator.js";
export { ApplyLimiter, realWait, type Wait } from "./replication/limiter.js";
export { type PrimaryFetch, type PrimaryRead, primaryFetchOver } from "./replication/primary.js";
export { ReplicationStatus, type ReplicationStatusJson } from "./replication/status.js";
export { anonymousToken, GLOBAL_MANAGEMENT_POLICY, managementToken } from "./routes/acl.js";
export { type AgentRoutesOptions, agentRoutes } from "./routes/agent.js";
export {
  operatorRoutes,
  type RaftConfigurationView,
  type RaftOperator,
  RaftOperatorError,
  type RaftServerView,
} from "./routes/operator.js";
export type { AutopilotHealthView, AutopilotServerHealthView } from "./routes/operator-autopilot.js";
export {
  KeyringKeyError,
  type KeyringOperation,
  type KeyringOperator,
  type KeyringPoolAnswer,
  keyringRoutes,
} from "./routes/operator-keyring.js";
export { type StateReader, type StateWatches, stateReader } from "./state-reader.js";
