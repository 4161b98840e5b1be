import { createPublicKey } from "node:crypto";
import { compactVerify, createLocalJWKSet } from "jose";
import { looksLikeJwt, type SsoConfig, SUPPORTED_ALGS } from "./config.js";
import { LoginRefusedError, type VerifiedIdentity } from "./identity.js";
import type { KeySetCache, KeySource } from "./key-sets.js";

/**
 * JWT login, as Consul's go-sso `ClaimsFromJWT`: the signature is checked offline against the configured
 * PEM keys, or against the key set at JWKSURL (or the one an OIDC discovery document names); then the
 * time claims with Consul's leeways, the issuer and the audience; then claims are mapped into
 * `value.<name>` and `list.<name>` fields.
 */

/** Consul's defaults: 150 s for a missing exp/nbf, 60 s of clock skew (seconds). */
const DEFAULT_CLAIM_LEEWAY_S = 150;
const DEFAULT_CLOCK_SKEW_S = 60;

export type Claims = Record<string, unknown>;

function leewaySeconds(ms: number, fallback: number): number {
  if (ms < 0) return 0;
  return ms === 0 ? fallback : ms / 1000;
}

function decodePayload(payload: Uint8Array): Claims {
  try {
    const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
    if (typeof claims === "object" && claims !== null && !Array.isArray(claims)) return claims as Claims;
  } catch {
    // falls through
  }
  throw new LoginRefusedError("failed to unmarshal claims");
}

/** Codes of jose failures that a newer key set may cure (rotated keys). */
const KEY_MISS = new Set(["ERR_JWKS_NO_MATCHING_KEY", "ERR_JWS_SIGNATURE_VERIFICATION_FAILED"]);

async function verifyWith(source: KeySource, token: string, algorithms: string[]): Promise<Claims> {
  const claims = decodePayload(
    (await compactVerify(token, createLocalJWKSet(source.jwks), { algorithms })).payload,
  );
  if (source.issuer !== undefined && claims.iss !== source.issuer) {
    throw new LoginRefusedError("error validating claims: issuer does not match the discovery document");
  }
  return claims;
}

export async function verifiedClaims(
  keys: KeySetCache,
  config: SsoConfig,
  token: string,
  nowMs: number,
): Promise<Claims> {
  const algorithms = [...(config.JWTSupportedAlgs.length > 0 ? config.JWTSupportedAlgs : SUPPORTED_ALGS)];
  if (config.JWTValidationPubKeys.length > 0) {
    for (const pem of config.JWTValidationPubKeys) {
      try {
        return decodePayload((await compactVerify(token, createPublicKey(pem), { algorithms })).payload);
      } catch (err) {
        if (err instanceof LoginRefusedError) throw err;
      }
    }
    throw new LoginRefusedError("no known key successfully validated the token signature");
  }
  const cached = await keys.get(config, nowMs);
  try {
    try {
      return await verifyWith(cached.source, token, algorithms);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const refreshed =
        typeof code === "string" && KEY_MISS.has(code) ? await keys.refresh(config, nowMs) : undefined;
      if (refreshed === undefined) throw err;
      return await verifyWith(refreshed, token, algorithms);
    }
  } catch (err) {
    if (err instanceof LoginRefusedError) throw err;
    throw new LoginRefusedError(`error verifying token: ${(err as Error).message}`);
  }
}

const seconds = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

export function checkTimes(config: SsoConfig, claims: Claims, nowS: number): void {
  const iat = seconds(claims.iat);
  let exp = seconds(claims.exp);
  let nbf = seconds(claims.nbf);
  if (iat === 0 && exp === 0 && nbf === 0) {
    throw new LoginRefusedError("no issue time, notbefore, or expiration time encoded in token");
  }
  if (exp === 0) exp = Math.max(iat, nbf) + leewaySeconds(config.ExpirationLeeway, DEFAULT_CLAIM_LEEWAY_S);
  if (nbf === 0) nbf = iat !== 0 ? iat : exp - leewaySeconds(config.NotBeforeLeeway, DEFAULT_CLAIM_LEEWAY_S);
  const skew = leewaySeconds(config.ClockSkewLeeway, DEFAULT_CLOCK_SKEW_S);
  if (nowS < nbf - skew)
    throw new LoginRefusedError("error validating claims: validation failed, token not valid yet (nbf)");
  if (nowS > exp + skew)
    throw new LoginRefusedError("error validating claims: validation failed, token is expired (exp)");
  if (iat !== 0 && nowS < iat - skew) {
    throw new LoginRefusedError(
      "error validating claims: validation failed, token issued in the future (iat)",
    );
  }
}

function checkIssuerAndAudience(config: SsoConfig, claims: Claims): void {
  if (config.BoundIssuer !== "" && claims.iss !== config.BoundIssuer) {
    throw new LoginRefusedError("error validating claims: validation failed, invalid issuer claim (iss)");
  }
  const aud = typeof claims.aud === "string" ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
  if (config.BoundAudiences.length > 0) {
    if (!aud.some((a) => config.BoundAudiences.includes(a))) {
      throw new LoginRefusedError("error validating claims: aud claim does not match any bound audience");
    }
  } else if (aud.length > 0) {
    throw new LoginRefusedError(
      "error validating claims: audience claim found in JWT but no audiences bound to the role",
    );
  }
}

/** A claim by name, or by JSON pointer (`/a/b`) for nested ones. */
function claimAt(claims: Claims, key: string): unknown {
  if (!key.startsWith("/")) return claims[key];
  let at: unknown = claims;
  for (const raw of key.slice(1).split("/")) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

function scalar(value: unknown, key: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new LoginRefusedError(`error converting claim '${key}' to string`);
}

export function identityFromClaims(config: SsoConfig, claims: Claims): VerifiedIdentity {
  const fields: Record<string, string | string[]> = {};
  const vars: Record<string, string> = {};
  for (const [claim, name] of Object.entries(config.ClaimMappings)) {
    const raw = claimAt(claims, claim);
    const value = raw === undefined || raw === null ? "" : scalar(raw, claim);
    fields[`value.${name}`] = value;
    vars[`value.${name}`] = value;
  }
  for (const [claim, name] of Object.entries(config.ListClaimMappings)) {
    const raw = claimAt(claims, claim);
    const list = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw];
    fields[`list.${name}`] = list.map((x) => scalar(x, claim));
  }
  return { fields, vars };
}

export async function jwtLogin(
  keys: KeySetCache,
  config: SsoConfig,
  token: string,
  nowMs: number,
): Promise<VerifiedIdentity> {
  if (token === "") throw new LoginRefusedError("missing jwt");
  // Garbage is refused before any key set is fetched.
  if (!looksLikeJwt(token)) throw new LoginRefusedError("error parsing token: not a compact JWS");
  const claims = await verifiedClaims(keys, config, token, nowMs);
  checkTimes(config, claims, nowMs / 1000);
  checkIssuerAndAudience(config, claims);
  return identityFromClaims(config, claims);
}
