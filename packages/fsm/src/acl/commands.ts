import type { Versioned } from "../commands/version.js";
import type { AclPolicySpec, AclRoleSpec, AclTokenSpec } from "./records.js";

/** Consul's built-in IDs. */
export const GLOBAL_MANAGEMENT_POLICY_ID = "00000000-0000-0000-0000-000000000001";
export const ANONYMOUS_TOKEN_ACCESSOR = "00000000-0000-0000-0000-000000000002";
export const ANONYMOUS_TOKEN_SECRET = "anonymous";

export interface AclTokenSetCommand extends Versioned {
  readonly type: "acl.token.set";
  readonly op: "create" | "update";
  readonly token: AclTokenSpec;
  /** Leader's clock (ms since the epoch): CreateTime of a new token. */
  readonly now: number;
}

/** Deletes tokens by accessor (one from the API; many from the leader's expiry reaper). */
export interface AclTokenDeleteCommand extends Versioned {
  readonly type: "acl.token.delete";
  readonly accessors: readonly string[];
}

export interface AclPolicySetCommand extends Versioned {
  readonly type: "acl.policy.set";
  readonly op: "create" | "update";
  readonly policy: AclPolicySpec;
}

export interface AclPolicyDeleteCommand extends Versioned {
  readonly type: "acl.policy.delete";
  readonly id: string;
}

export interface AclRoleSetCommand extends Versioned {
  readonly type: "acl.role.set";
  readonly op: "create" | "update";
  readonly role: AclRoleSpec;
}

export interface AclRoleDeleteCommand extends Versioned {
  readonly type: "acl.role.delete";
  readonly id: string;
}

/** PUT /acl/bootstrap: the first management token; refused once the cluster is bootstrapped. */
export interface AclBootstrapCommand extends Versioned {
  readonly type: "acl.bootstrap";
  readonly token: AclTokenSpec;
  /** The built-in global-management policy, created if missing. */
  readonly policy: AclPolicySpec;
  readonly now: number;
  /**
   * Consul's bootstrap reset: the index an operator wrote to `acl-bootstrap-reset`. It allows one more
   * bootstrap when it equals the current reset index (the index of the last bootstrap).
   */
  readonly resetIndex?: number;
}

/**
 * Issued by a leader with ACLs on: creates the built-in global-management policy and anonymous token if
 * missing, and the `initial_management` token (which bootstraps the cluster) if configured and absent.
 */
export interface AclInitCommand extends Versioned {
  readonly type: "acl.init";
  readonly policy: AclPolicySpec;
  readonly anonymous: AclTokenSpec;
  readonly initialManagement?: AclTokenSpec;
  readonly now: number;
}

export type AclCommand =
  | AclTokenSetCommand
  | AclTokenDeleteCommand
  | AclPolicySetCommand
  | AclPolicyDeleteCommand
  | AclRoleSetCommand
  | AclRoleDeleteCommand
  | AclBootstrapCommand
  | AclInitCommand;
