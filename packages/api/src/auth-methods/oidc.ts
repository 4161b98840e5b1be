import { createHash, randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { OidcConfig } from "./config.js";
import { LoginRefusedError, type VerifiedIdentity } from "./identity.js";
import { type AuthMethodIO, AuthMethodIOError } from "./io.js";
import { type Claims, checkTimes, identityFromClaims, verifiedClaims } from "./jwt.js";
import type { KeySetCache, OidcEndpoints } from "./key-sets.js";
import type { OidcStates, PendingLogin } from "./oidc-states.js";

/**
 * The OIDC authorization-code flow of an oidc auth method, as Consul's go-sso runs it: the auth URL
 * carries a fresh state, nonce and PKCE challenge; the callback consumes the state, trades the code
 * (with the verifier) for tokens at the provider, verifies the id_token against the provider's key set
 * (issuer, audience, times, nonce), merges in what /userinfo adds, and maps claims as a jwt method does.
 */

/** Input the caller got wrong (400), as opposed to a login the provider or the token refused (403). */
export class OidcRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OidcRequestError";
  }
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** RFC 8252 7.3: a loopback redirect matches whatever its port; any other must be listed exactly. */
export function allowedRedirect(uri: string, allowed: readonly string[]): boolean {
  if (!URL.canParse(uri)) return false;
  const input = new URL(uri);
  if (!LOOPBACK.has(input.hostname)) return allowed.includes(uri);
  const portless = (u: URL) => {
    const copy = new URL(u.href);
    copy.port = "";
    return copy.href;
  };
  return allowed.some((a) => URL.canParse(a) && portless(new URL(a)) === portless(input));
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

async function endpoints(keys: KeySetCache, config: OidcConfig, now: number): Promise<OidcEndpoints> {
  const { source } = await keys.get(config, now);
  if (!source.endpoints) throw new AuthMethodIOError("the OIDC discovery document could not be read");
  return source.endpoints;
}

export interface AuthUrlRequest {
  readonly methodName: string;
  readonly methodNamespace: string;
  readonly redirectUri: string;
  readonly clientNonce: string;
  readonly meta: Readonly<Record<string, string>>;
}

export async function oidcAuthUrl(
  keys: KeySetCache,
  states: OidcStates,
  config: OidcConfig,
  req: AuthUrlRequest,
  now: number,
): Promise<string> {
  if (req.redirectUri === "") throw new OidcRequestError("missing redirect_uri");
  if (!allowedRedirect(req.redirectUri, config.AllowedRedirectURIs)) {
    throw new OidcRequestError(`unauthorized redirect_uri: ${req.redirectUri}`);
  }
  const ep = await endpoints(keys, config, now);
  if (!ep.authorization) {
    throw new AuthMethodIOError("the OIDC discovery document names no authorization_endpoint");
  }
  // Two 160-bit values, as rfc6749 10.10 asks of state.
  const state = hex(20);
  const nonce = hex(20);
  const codeVerifier = config.OIDCClientUsePKCE ? randomBytes(32).toString("base64url") : "";
  const url = new URL(ep.authorization);
  const params: Record<string, string> = {
    client_id: config.OIDCClientID,
    redirect_uri: req.redirectUri,
    response_type: "code",
    scope: ["openid", ...config.OIDCScopes.filter((s) => s !== "openid")].join(" "),
    state,
    nonce,
  };
  if (codeVerifier !== "") {
    params.code_challenge = createHash("sha256").update(codeVerifier).digest("base64url");
    params.code_challenge_method = "S256";
  }
  if (config.OIDCACRValues.length > 0) params.acr_values = config.OIDCACRValues.join(" ");
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  states.add(
    state,
    {
      methodName: req.methodName,
      methodNamespace: req.methodNamespace,
      redirectUri: req.redirectUri,
      nonce,
      codeVerifier,
      clientNonce: req.clientNonce,
      meta: req.meta,
    },
    now,
  );
  return url.href;
}

export interface CallbackRequest {
  readonly methodName: string;
  readonly methodNamespace: string;
  readonly state: string;
  readonly code: string;
  readonly clientNonce: string;
}

export interface CallbackResult {
  readonly identity: VerifiedIdentity;
  /** The Meta given to auth-url, for the token's description. */
  readonly meta: Readonly<Record<string, string>>;
}

const providerFailed = (why: string) => new LoginRefusedError(`Provider login failed: ${why}`);
const verificationFailed = (why: string) => new LoginRefusedError(`Token verification failed: ${why}`);

function providerError(body: unknown): string {
  if (typeof body === "object" && body !== null) {
    const { error, error_description: description } = body as Record<string, unknown>;
    if (typeof error === "string")
      return typeof description === "string" ? `${error}: ${description}` : error;
  }
  return typeof body === "string" && body !== "" ? body.slice(0, 200) : "no details";
}

async function exchange(
  io: AuthMethodIO,
  config: OidcConfig,
  ep: OidcEndpoints,
  pending: PendingLogin,
  code: string,
): Promise<Record<string, unknown>> {
  if (!ep.token) throw new AuthMethodIOError("the OIDC discovery document names no token_endpoint");
  const form: Record<string, string> = {
    grant_type: "authorization_code",
    code,
    redirect_uri: pending.redirectUri,
  };
  if (pending.codeVerifier !== "") form.code_verifier = pending.codeVerifier;
  // client_secret_basic is the default (OIDC Core 9); providers that only take the secret in the body
  // say so in discovery.
  const basic = ep.tokenAuthMethods.length === 0 || ep.tokenAuthMethods.includes("client_secret_basic");
  if (!basic) {
    form.client_id = config.OIDCClientID;
    form.client_secret = config.OIDCClientSecret;
  }
  const res = await io.requestJson({
    url: ep.token,
    method: "POST",
    form,
    ...(basic ? { basic: { user: config.OIDCClientID, password: config.OIDCClientSecret } } : {}),
    ...(config.OIDCDiscoveryCACert ? { caCert: config.OIDCDiscoveryCACert } : {}),
  });
  if (res.status < 200 || res.status > 299) {
    throw providerFailed(`Error exchanging oidc code: ${providerError(res.body)}`);
  }
  if (typeof res.body !== "object" || res.body === null) {
    throw providerFailed("Error exchanging oidc code: the token endpoint did not answer JSON");
  }
  return res.body as Record<string, unknown>;
}

function checkAudience(config: OidcConfig, claims: Claims): void {
  const aud = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (!aud.includes(config.OIDCClientID)) {
    throw verificationFailed(`expected audience "${config.OIDCClientID}" got ${JSON.stringify(aud)}`);
  }
  if (config.BoundAudiences.length > 0 && !aud.some((a) => config.BoundAudiences.includes(a))) {
    throw verificationFailed("aud claim does not match any bound audience");
  }
}

/** /userinfo adds claims the id_token left out; a failure there does not fail the login (go-sso). */
async function mergeUserInfo(
  io: AuthMethodIO,
  config: OidcConfig,
  ep: OidcEndpoints,
  accessToken: unknown,
  claims: Claims,
  logger: Logger,
): Promise<void> {
  if (!ep.userinfo || typeof accessToken !== "string" || accessToken === "") return;
  try {
    const res = await io.requestJson({
      url: ep.userinfo,
      method: "GET",
      bearer: accessToken,
      ...(config.OIDCDiscoveryCACert ? { caCert: config.OIDCDiscoveryCACert } : {}),
    });
    const info = res.body;
    if (res.status !== 200 || typeof info !== "object" || info === null || Array.isArray(info)) {
      logger.warn({ status: res.status }, "error reading /userinfo endpoint");
      return;
    }
    if ((info as Claims).sub !== claims.sub) {
      logger.warn("/userinfo answered for another subject; ignored");
      return;
    }
    Object.assign(claims, info);
  } catch (err) {
    logger.warn({ err: (err as Error).message }, "error reading /userinfo endpoint");
  }
}

export async function oidcCallback(
  io: AuthMethodIO,
  keys: KeySetCache,
  states: OidcStates,
  config: OidcConfig,
  req: CallbackRequest,
  now: number,
  logger: Logger,
): Promise<CallbackResult> {
  if (req.code === "") throw providerFailed("OAuth code parameter not provided");
  const pending = states.take(req.state, now);
  if (!pending || pending.methodName !== req.methodName || pending.methodNamespace !== req.methodNamespace) {
    throw providerFailed("Expired or missing OAuth state.");
  }
  if (pending.clientNonce !== req.clientNonce) throw providerFailed("invalid ClientNonce");
  const ep = await endpoints(keys, config, now);
  const tokens = await exchange(io, config, ep, pending, req.code);
  const idToken = tokens.id_token;
  if (typeof idToken !== "string" || idToken === "") {
    throw verificationFailed("no id_token found in response");
  }
  if (config.VerboseOIDCLogging) logger.debug({ idToken }, "OIDC provider response");
  let claims: Claims;
  try {
    claims = await verifiedClaims(keys, config, idToken, now);
    checkTimes(config, claims, now / 1000);
  } catch (err) {
    if (err instanceof LoginRefusedError) throw verificationFailed(err.message);
    throw err;
  }
  checkAudience(config, claims);
  if (claims.nonce !== pending.nonce) throw verificationFailed("Invalid ID token nonce.");
  delete claims.nonce;
  await mergeUserInfo(io, config, ep, tokens.access_token, claims, logger);
  if (config.VerboseOIDCLogging) logger.debug({ claims }, "OIDC provider response");
  return { identity: identityFromClaims(config, claims), meta: pending.meta };
}
