export { type DnsMetrics, type Exchange, type HandlerOptions, handleMessage } from "./handler.js";
export { type Fetch, type HttpViewOptions, httpView, ViewError } from "./http-view.js";
export { DnsListener, type DnsListenerOptions } from "./listener.js";
export { hexToIp, ipToHex, type Lookup, type ParsedName, parseName, reverseToIp } from "./names.js";
export { forward, recursorAddress } from "./recursor.js";
export { type Question, type Rcode, type Resolution, type ResolverConfig, resolve } from "./resolver.js";
export { serviceTtlMs } from "./ttl.js";
export type { CheckStatus, Instance, NodeRecord, QueryAnswer, StateView } from "./view.js";
