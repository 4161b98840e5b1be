/**
 * The ACL seam. Until the ACL issue lands, `allowAll` answers every question with "allow"; the routes
 * already ask the questions spec 2's ACL column names, so enforcing ACLs is a matter of plugging in a
 * real Authorizer.
 */
export type AclResourceType =
  | "key"
  | "session"
  | "node"
  | "service"
  | "operator"
  | "keyring"
  | "agent"
  | "intentions"
  | "query"
  | "acl";
export type AclAccess = "read" | "list" | "write";
export type AclDecision = "allow" | "deny";

export interface Authorizer {
  /** May the token do `access` on the resource `name` of `type` in namespace `ns`? */
  authorize(token: string, ns: string, type: AclResourceType, name: string, access: AclAccess): AclDecision;
}

export const allowAll: Authorizer = {
  authorize: () => "allow",
};

/** Keeps the items the token may `access`, for list reads that filter rather than refuse. */
export function filterAllowed<T>(
  authorizer: Authorizer,
  token: string,
  ns: string,
  items: readonly T[],
  resourceOf: (item: T) => { type: AclResourceType; name: string },
  access: AclAccess,
): T[] {
  if (authorizer === allowAll) return items as T[];
  return items.filter((item) => {
    const r = resourceOf(item);
    return authorizer.authorize(token, ns, r.type, r.name, access) === "allow";
  });
}
