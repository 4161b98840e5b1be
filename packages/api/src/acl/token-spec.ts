import { AclIdentityError, validateServiceIdentity } from "@cairn/acl";
import { DurationError, parseDurationMs } from "@cairn/duration";
import type { AclStateReads, AclToken, AclTokenSpec, StoredServiceIdentity } from "@cairn/fsm";
import { badRequest } from "../http/errors.js";
import { isUuid, resolvePolicyLinks, resolveRoleLinks } from "./request.js";
import type { RoleBody, TokenBody } from "./schemas.js";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Spec 1's service identity rules, as a 400 naming the field. */
export function serviceIdentities(
  body: Pick<TokenBody | RoleBody, "ServiceIdentities">,
): StoredServiceIdentity[] {
  return (body.ServiceIdentities ?? []).map((si) => {
    const identity = { ServiceName: si.ServiceName ?? "", Datacenters: si.Datacenters ?? [] };
    try {
      validateServiceIdentity(identity);
    } catch (err) {
      if (err instanceof AclIdentityError) throw badRequest(err.message);
      throw err;
    }
    return identity.Datacenters.length > 0 ? identity : { ServiceName: identity.ServiceName };
  });
}

export function nodeIdentities(body: Pick<TokenBody | RoleBody, "NodeIdentities">) {
  return (body.NodeIdentities ?? []).map((ni) => {
    if (!ni.NodeName) throw badRequest("NodeIdentity.NodeName is required");
    if (!ni.Datacenter) throw badRequest("NodeIdentity.Datacenter is required");
    return { NodeName: ni.NodeName, Datacenter: ni.Datacenter };
  });
}

/**
 * The token's expiry from the body, checked against spec 1's 1 minute..24 hours: a TTL travels as
 * `ExpirationTTL` (ms) for the state machine to add to the leader's `now`; an explicit time is kept as given.
 */
function expiration(body: TokenBody, now: number): Pick<AclTokenSpec, "ExpirationTime" | "ExpirationTTL"> {
  const ttlRaw = body.ExpirationTTL;
  const hasTtl = ttlRaw != null && ttlRaw !== "" && ttlRaw !== 0 && ttlRaw !== "0s";
  if (hasTtl && body.ExpirationTime) throw badRequest("ExpirationTTL and ExpirationTime cannot both be set");
  if (hasTtl) {
    let ms: number;
    try {
      ms = typeof ttlRaw === "number" ? ttlRaw / 1e6 : parseDurationMs(ttlRaw);
    } catch (err) {
      if (err instanceof DurationError) throw badRequest(`ExpirationTTL: invalid duration "${ttlRaw}"`);
      throw err;
    }
    if (ms < MINUTE || ms > DAY) throw badRequest("ExpirationTTL must be between 1m0s and 24h0m0s");
    return { ExpirationTime: "", ExpirationTTL: Math.round(ms) };
  }
  if (!body.ExpirationTime || body.ExpirationTime.startsWith("0001-01-01")) return { ExpirationTime: "" };
  const at = Date.parse(body.ExpirationTime);
  if (Number.isNaN(at)) throw badRequest(`ExpirationTime: invalid time "${body.ExpirationTime}"`);
  if (at < now + MINUTE || at > now + DAY) {
    throw badRequest("ExpirationTime must be between 1m0s and 24h0m0s in the future");
  }
  return { ExpirationTime: new Date(at).toISOString() };
}

export interface TokenSpecInput {
  readonly body: TokenBody;
  readonly ns: string;
  readonly now: number;
  readonly uuid: () => string;
  readonly acl: AclStateReads;
}

/** Consul keeps IDs with this prefix for its built-ins (global-management, anonymous). */
const RESERVED_PREFIX = "00000000-0000-0000-0000-0000000000";

function checkedId(value: string | null | undefined, field: string, uuid: () => string): string {
  if (!value) return uuid();
  if (value.startsWith(RESERVED_PREFIX)) {
    throw badRequest(`${field}: UUIDs with the prefix "${RESERVED_PREFIX}" are reserved`);
  }
  if (!isUuid(value)) throw badRequest(`${field} must be a UUID`);
  return value;
}

/** A validated new token (PUT /acl/token). */
export function newTokenSpec({ body, ns, now, uuid, acl }: TokenSpecInput): AclTokenSpec {
  if (body.AuthMethod) throw badRequest("AuthMethod cannot be set when creating a token");
  const accessor = checkedId(body.AccessorID, "AccessorID", uuid);
  const secret = checkedId(body.SecretID, "SecretID", uuid);
  if (acl.token(accessor)) throw badRequest("AccessorID is already in use");
  if (acl.tokenBySecret(secret)) throw badRequest("SecretID is already in use");
  const identities = serviceIdentities(body);
  if (body.Local && identities.some((si) => si.Datacenters !== undefined)) {
    throw badRequest("ServiceIdentities: a local token's service identities cannot name datacenters");
  }
  return {
    AccessorID: accessor,
    SecretID: secret,
    Description: body.Description ?? "",
    Policies: resolvePolicyLinks(acl, body.Policies, ns),
    Roles: resolveRoleLinks(acl, body.Roles, ns),
    ServiceIdentities: identities,
    NodeIdentities: nodeIdentities(body),
    Local: body.Local ?? false,
    AuthMethod: "",
    ...expiration(body, now),
    Namespace: ns,
    Type: "",
    Rules: "",
  };
}

/** A validated update of `stored` (PUT /acl/token/:AccessorID) with spec 1's immutability rules. */
export function updatedTokenSpec(stored: AclToken, { body, ns, acl }: TokenSpecInput): AclTokenSpec {
  if (body.AccessorID && body.AccessorID !== stored.AccessorID) {
    throw badRequest("AccessorID: the token accessor ID in the URL and in the body do not match");
  }
  if (body.SecretID && body.SecretID !== stored.SecretID) {
    throw badRequest("SecretID: changing a token's SecretID is not permitted");
  }
  if (body.AuthMethod && body.AuthMethod !== stored.AuthMethod) {
    throw badRequest("AuthMethod: changing a token's AuthMethod is not permitted");
  }
  if (body.ExpirationTTL != null && body.ExpirationTTL !== "" && body.ExpirationTTL !== 0) {
    throw badRequest("ExpirationTTL: changing a token's expiration is not permitted");
  }
  if (body.ExpirationTime && !sameTime(body.ExpirationTime, stored.ExpirationTime)) {
    throw badRequest("ExpirationTime: changing a token's ExpirationTime is not permitted");
  }
  if (body.Local != null && body.Local !== stored.Local) {
    throw badRequest("Local: changing a token's Local mode is not permitted");
  }
  const { CreateTime: _t, Hash: _h, CreateIndex: _c, ModifyIndex: _m, ...spec } = stored;
  return {
    ...spec,
    Description: body.Description ?? "",
    Policies: resolvePolicyLinks(acl, body.Policies, ns),
    Roles: resolveRoleLinks(acl, body.Roles, ns),
    ServiceIdentities: serviceIdentities(body),
    NodeIdentities: nodeIdentities(body),
  };
}

function sameTime(given: string, stored: string): boolean {
  if (given.startsWith("0001-01-01")) return stored === "";
  return stored !== "" && Date.parse(given) === Date.parse(stored);
}
