import type { RouteDef } from "./router";
import { placeholder } from "./views/placeholder";

/**
 * Every view of the UI, first match wins; `nav` routes make the navigation, in this order. A view is a
 * module whose default export takes ViewProps; to add one, add its file and one line here.
 */
export const routes: readonly RouteDef[] = [
  { pattern: "/services", nav: "Services", load: () => import("./views/services") },
  { pattern: "/services/:name", load: () => import("./views/service") },
  { pattern: "/nodes", nav: "Nodes", load: () => import("./views/nodes") },
  { pattern: "/nodes/:name", load: () => import("./views/node") },
  { pattern: "/kv/*key", nav: "Key/value", load: placeholder("Key/value") },
  { pattern: "/sessions", nav: "Sessions", load: placeholder("Sessions") },
  { pattern: "/acl", nav: "Access control", load: placeholder("Access control") },
  { pattern: "/config", nav: "Config entries", load: placeholder("Config entries") },
  { pattern: "/queries", nav: "Prepared queries", load: placeholder("Prepared queries") },
  { pattern: "/chain", nav: "Discovery chain", load: placeholder("Discovery chain") },
  { pattern: "/cluster", nav: "Cluster", load: () => import("./views/cluster") },
];

/** Where `#/` and unknown paths go. */
export const HOME = "/services";
