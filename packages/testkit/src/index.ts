export { EventQueue } from "./event-queue.js";
export { Prng } from "./prng.js";
export { SimNetwork, type SimNetworkOptions, type SimNetworkStats } from "./sim-network.js";
export { type Cancel, VirtualClock } from "./virtual-clock.js";
