import type { RouteDef } from "./router";

/**
 * Every view of the UI, first match wins; `nav` routes make the navigation, in this order. A view is a
 * module whose default export takes ViewProps; to add one, add its file and one line here.
 */
export const routes: readonly RouteDef[] = [
  { pattern: "/services", nav: "Services", load: () => import("./views/services") },
  { pattern: "/services/:name", load: () => import("./views/service") },
  { pattern: "/nodes", nav: "Nodes", load: () => import("./views/nodes") },
  { pattern: "/nodes/:name", load: () => import("./views/node") },
  { pattern: "/kv/*key", nav: "Key/value", load: () => import("./views/kv/index") },
  { pattern: "/sessions/*node", nav: "Sessions", load: () => import("./views/sessions/index") },
  { pattern: "/acl/*rest", nav: "Access control", load: () => import("./views/acl/index") },
  { pattern: "/config/*rest", nav: "Config entries", load: () => import("./views/config-entries/index") },
  { pattern: "/queries/*id", nav: "Prepared queries", load: () => import("./views/queries/index") },
  { pattern: "/chain/*service", nav: "Discovery chain", load: () => import("./views/discovery-chain/index") },
  { pattern: "/cluster", nav: "Cluster", load: () => import("./views/cluster") },
];

/** Where `#/` and unknown paths go. */
export const HOME = "/services";
