import type { AclStateReads, AclTokenSpec, AuthMethod, AuthMethodReads } from "@cairn/fsm";
import { bind, grantsNothing } from "./binder.js";
import {
  type AuthMethodType,
  identityFields,
  validateKubernetesConfig,
  validateSsoConfig,
} from "./config.js";
import { LoginRefusedError, type VerifiedIdentity } from "./identity.js";
import type { AuthMethodIO } from "./io.js";
import { jwtLogin } from "./jwt.js";
import type { KeySetCache } from "./key-sets.js";
import { kubernetesLogin } from "./kubernetes.js";

/**
 * POST /acl/login minus HTTP: validate the bearer token with the method, bind the identity through the
 * method's rules, and describe the token to create (exactly the shape PUT /acl/token stores).
 */

export interface LoginRequest {
  readonly method: AuthMethod;
  readonly bearerToken: string;
  readonly meta: Readonly<Record<string, string>>;
}

export interface LoginContext {
  readonly io: AuthMethodIO;
  readonly keySets: KeySetCache;
  readonly acl: AclStateReads;
  readonly methods: AuthMethodReads;
  readonly datacenter: string;
  readonly now: number;
  readonly uuid: () => string;
}

export const OIDC_LOGIN_REFUSED = 'ClaimsFromJWT is incompatible with type "oidc"';

async function verify(ctx: LoginContext, method: AuthMethod, bearer: string): Promise<VerifiedIdentity> {
  switch (method.Type) {
    case "kubernetes":
      return kubernetesLogin(ctx.io, validateKubernetesConfig(method.Config), bearer);
    case "jwt":
      return jwtLogin(ctx.keySets, validateSsoConfig("jwt", method.Config), bearer, ctx.now);
    default:
      // OIDC logins go through the browser flow (/acl/oidc/*), never a bearer token.
      throw new LoginRefusedError(OIDC_LOGIN_REFUSED);
  }
}

/** Consul's description of a login token: a fixed prefix, then the login's Meta as JSON. */
export function loginDescription(meta: Readonly<Record<string, string>>): string {
  const prefix = "token created via login";
  return Object.keys(meta).length === 0 ? prefix : `${prefix}: ${JSON.stringify(meta)}`;
}

/** The token a login creates; LoginRefusedError when the method refuses or no rule grants anything. */
export async function loginTokenSpec(req: LoginRequest, ctx: LoginContext): Promise<AclTokenSpec> {
  return tokenSpecFor(req.method, await verify(ctx, req.method, req.bearerToken), req.meta, ctx);
}

/** The token `identity` gets from `method`'s binding rules (a bearer-token login or an OIDC callback). */
export function tokenSpecFor(
  method: AuthMethod,
  identity: VerifiedIdentity,
  meta: Readonly<Record<string, string>>,
  ctx: Pick<LoginContext, "acl" | "methods" | "datacenter" | "uuid">,
): AclTokenSpec {
  const fields = identityFields(method.Type as AuthMethodType, method.Config);
  const bindings = bind(
    method,
    ctx.methods.rulesOf(method.Namespace, method.Name),
    fields,
    identity,
    {
      roleId: (name, ns) => ctx.acl.roleByName(name, ns)?.ID,
      policyId: (name, ns) => ctx.acl.policyByName(name, ns)?.ID,
    },
    ctx.datacenter,
  );
  if (grantsNothing(bindings)) throw new LoginRefusedError("");
  const target = ctx.acl.namespace(bindings.namespace);
  if (!target || target.DeletedAt) {
    throw new LoginRefusedError(`namespace ${JSON.stringify(bindings.namespace)} does not exist`);
  }
  return {
    AccessorID: ctx.uuid(),
    SecretID: ctx.uuid(),
    Description: loginDescription(meta),
    Policies: bindings.policies,
    Roles: bindings.roles,
    ServiceIdentities: bindings.serviceIdentities,
    NodeIdentities: bindings.nodeIdentities,
    Local: method.TokenLocality !== "global",
    AuthMethod: method.Name,
    AuthMethodNamespace: method.Namespace,
    // The state machine adds the TTL to the leader's clock.
    ExpirationTime: "",
    ...(method.MaxTokenTTL > 0 ? { ExpirationTTL: Math.round(method.MaxTokenTTL) } : {}),
    Namespace: bindings.namespace,
    Type: "",
    Rules: "",
  };
}
