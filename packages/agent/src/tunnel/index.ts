export { type AclCallsOptions, aclCalls, tunnelAclResolve } from "./acl-calls.js";
export { type CatalogCallsOptions, catalogCalls, tunnelCatalog } from "./catalog-calls.js";
export { type ClientCallsOptions, clientCalls } from "./client-calls.js";
export { type ServerRef, TunnelConnection } from "./connection.js";
export { NO_SERVERS, TunnelPool, type TunnelPoolOptions } from "./pool.js";
export { MAX_FRAME_BYTES, TUNNEL_PATH } from "./protocol.js";
export { requestToken } from "./request-token.js";
export { type TunnelCalls, type TunnelFetch, type TunnelRouteOptions, tunnelRoute } from "./server-route.js";
