export {
  type Coordinate,
  CoordinatePingDelegate,
  coordinateDistance,
  coordinateIsValid,
  coordinatesCompatible,
  type DatacenterServer,
  datacentersByDistance,
  defaultVivaldiConfig,
  isCoordinate,
  VivaldiClient,
  type VivaldiConfig,
} from "./coordinate/index.js";
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
export { GossipNode, type GossipNodeEvents, type GossipNodeOptions, type GossipNodeStats } from "./node.js";
export {
  emptyTransportStats,
  type GossipTransport,
  type Scheduler,
  systemScheduler,
  type TransportFactory,
  type TransportHandlers,
  type TransportStats,
} from "./ports.js";
export { type DecodeFailure, FRAME_VERSION, FrameCodec } from "./transport/frames.js";
export { Keyring, KeyringError, parseKey } from "./transport/keyring.js";
export { isMessage } from "./transport/validate.js";
export {
  type TransportOptions,
  type WebSocketRoute,
  WsTransport,
} from "./transport/ws-transport.js";
