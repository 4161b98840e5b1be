export { VivaldiClient } from "./coordinate/client.js";
export {
  type Coordinate,
  defaultVivaldiConfig,
  distance,
  isCoordinate,
  type VivaldiConfig,
} from "./coordinate/coordinate.js";
export { CoordinatePingDelegate } from "./coordinate/ping-delegate.js";
export {
  type GossipConfig,
  lanConfig,
  pushPullScale,
  retransmitLimit,
  suspicionTimeout,
  wanConfig,
} from "./core/config.js";
export { Membership, type MembershipOptions } from "./core/membership.js";
export type {
  CoreEvent,
  Member,
  MemberEventType,
  MemberSnapshot,
  MemberState,
  Message,
  Outbound,
  Output,
  PingDelegate,
  Tags,
} from "./core/types.js";
