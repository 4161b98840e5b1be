import type { AclAccess, AclResourceType } from "../authorizer.js";

/** The privilege a config entry read or write needs (spec 3's per-kind table); undefined when none. */
export interface ConfigEntryPrivilege {
  readonly type: AclResourceType;
  readonly name: string;
  readonly access: AclAccess;
}

export function configEntryPrivilege(
  kind: string,
  name: string,
  access: "read" | "write",
): ConfigEntryPrivilege | undefined {
  switch (kind) {
    case "proxy-defaults":
      return access === "write" ? { type: "operator", name: "", access } : undefined;
    case "ingress-gateway":
    case "terminating-gateway":
      return access === "write" ? { type: "operator", name: "", access } : { type: "service", name, access };
    case "service-intentions":
      return { type: "intentions", name, access };
    default:
      return { type: "service", name, access };
  }
}
