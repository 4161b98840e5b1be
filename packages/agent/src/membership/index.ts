export {
  AgentMembership,
  type KeyringPoolResponse,
  type MembershipOptions,
  type MembershipStats,
} from "./agent-membership.js";
export {
  CoordinateSender,
  type CoordinateSenderOptions,
  type CoordinateUpdate,
  coordinateInterval,
  type SenderClock,
} from "./coordinate-sender.js";
export type { DatacenterCoordinates } from "./datacenter-distance.js";
export { JoinRetriesExhaustedError } from "./join-loop.js";
export type { ConsulMember } from "./member-record.js";
export { membershipBackend } from "./membership-backend.js";
export type { KeyringOp } from "./pool-keyring.js";
export type { AgentMember, MemberStatus, MembershipView } from "./types.js";
