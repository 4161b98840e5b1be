import { DEFAULT_NAMESPACE } from "../store/keys.js";
import type { Tables } from "../store/tables.js";

/**
 * Why a write into `ns` cannot be stored, in Consul Enterprise's words, or undefined: the namespace does not
 * exist, or it is marked for deletion (its data is being purged, so anything written now would be lost).
 */
export function namespaceProblem(t: Tables, ns: string | undefined): string | undefined {
  if (ns === undefined || ns === "" || ns === DEFAULT_NAMESPACE) return undefined;
  const n = t.namespaces.get(ns);
  if (!n) return `Namespace ${JSON.stringify(ns)} does not exist`;
  if (n.DeletedAt) return `Namespace ${JSON.stringify(ns)} is being deleted`;
  return undefined;
}
