import type { AclPolicy, AclRole, AclToken } from "./records.js";

declare module "../store/tables.js" {
  interface TableRows {
    /** accessor ID -> ACL token */
    aclTokens: AclToken;
    /** policy ID -> ACL policy */
    aclPolicies: AclPolicy;
    /** role ID -> ACL role */
    aclRoles: AclRole;
    /** "bootstrap" -> index of the ACL bootstrap */
    aclMeta: number;
    /** secret ID -> accessor ID (derived) */
    aclTokenSecrets: string;
    /** p \0 policy ID \0 accessor, r \0 role ID \0 accessor, m \0 ns \0 auth method \0 accessor (derived) */
    aclTokenLinks: true;
    /** ExpirationTime (RFC 3339 UTC) \0 accessor (derived) */
    aclTokenExpiry: true;
    /** ns \0 lower-cased policy name -> policy ID (derived) */
    aclPolicyNames: string;
    /** ns \0 lower-cased role name -> role ID (derived) */
    aclRoleNames: string;
  }
  interface TableIndexes {
    aclTokens: number;
    aclPolicies: number;
    aclRoles: number;
  }
}

/** Blocking-query channels. */
export const AclChannels = {
  tokens: "acl-tokens",
  policies: "acl-policies",
  roles: "acl-roles",
} as const;

/** The aclMeta row holding the bootstrap index. */
export const BOOTSTRAP_KEY = "bootstrap";
