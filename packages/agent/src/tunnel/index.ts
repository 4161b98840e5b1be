export { catalogCalls, tunnelCatalog } from "./catalog-calls.js";
export { type ServerRef, TunnelConnection } from "./connection.js";
export { NO_SERVERS, TunnelPool, type TunnelPoolOptions } from "./pool.js";
export { MAX_FRAME_BYTES, TUNNEL_PATH } from "./protocol.js";
export { type TunnelCalls, type TunnelFetch, type TunnelRouteOptions, tunnelRoute } from "./server-route.js";
