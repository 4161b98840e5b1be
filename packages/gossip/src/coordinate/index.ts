// The network-coordinate surface alone (no transport, no ws), for packages that sort by distance.
export { VivaldiClient } from "./client.js";
export {
  type Coordinate,
  coordinateDistance,
  coordinateIsValid,
  coordinatesCompatible,
  defaultVivaldiConfig,
  isCoordinate,
  type VivaldiConfig,
} from "./coordinate.js";
export { type DatacenterServer, datacentersByDistance } from "./datacenters.js";
export { CoordinatePingDelegate } from "./ping-delegate.js";
