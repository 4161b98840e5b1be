export { EventQueue } from "./event-queue.js";
export { Prng } from "./prng.js";
export {
  SimNetwork,
  type SimNetworkOptions,
  type SimNetworkStats,
  type StreamHandlers,
} from "./sim-network.js";
export { SimScheduler } from "./sim-scheduler.js";
export { type Cancel, type Owner, VirtualClock } from "./virtual-clock.js";
