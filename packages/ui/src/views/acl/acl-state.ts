import { ApiError } from "../../api/errors";
import { useFetch } from "../../api/hooks";
import { v1 } from "../../api/paths";

export interface SelfToken {
  AccessorID: string;
  Description: string;
  Policies?: { ID: string; Name: string }[] | null;
  Roles?: { ID: string; Name: string }[] | null;
  Local?: boolean;
}

/** Consul's answer to any ACL endpoint when ACLs are off. */
export function aclsDisabled(err: unknown): boolean {
  return err instanceof ApiError && err.status === 401 && /ACL support disabled/i.test(err.reason);
}

export type AclState =
  | { kind: "loading" }
  | { kind: "disabled" }
  | { kind: "token"; token: SelfToken }
  /** ACLs are on and the stored token (or none: anonymous) is refused: unknown, expired or deleted. */
  | { kind: "unknown-token"; reason: string }
  | { kind: "error"; error: unknown };

/** Whether ACLs are on and whose token the UI is sending, from /v1/acl/token/self (re-asked on log in/out). */
export function useAclState(): AclState {
  const self = useFetch<SelfToken>(v1("acl/token/self"));
  if (self.error !== undefined) {
    if (aclsDisabled(self.error)) return { kind: "disabled" };
    if (self.error instanceof ApiError && self.error.status === 403)
      return { kind: "unknown-token", reason: self.error.reason };
    return { kind: "error", error: self.error };
  }
  if (self.data === undefined) return { kind: "loading" };
  return { kind: "token", token: self.data };
}
