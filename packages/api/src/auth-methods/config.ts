import { createPublicKey, X509Certificate } from "node:crypto";
import { DurationError, parseDurationMs } from "@cairn/duration";
import type { FieldKinds } from "./selector.js";

/**
 * Per-type validation of an auth method's Config, with Consul's messages (kubeauth and go-sso's
 * oidcauth). Unknown keys are refused, as Consul's strict decoding does. Nothing here touches the
 * network: JWKS and discovery URLs are only fetched at login.
 */

export const AUTH_METHOD_TYPES = ["kubernetes", "jwt", "oidc"] as const;
export type AuthMethodType = (typeof AUTH_METHOD_TYPES)[number];

export function isAuthMethodType(type: string): type is AuthMethodType {
  return (AUTH_METHOD_TYPES as readonly string[]).includes(type);
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface KubernetesConfig {
  readonly Host: string;
  readonly CACert: string;
  readonly ServiceAccountJWT: string;
}

/** The jwt/oidc configuration (go-sso's), with leeways in milliseconds (negative: disabled). */
export interface SsoConfig {
  readonly JWKSURL: string;
  readonly JWKSCACert: string;
  readonly JWTValidationPubKeys: readonly string[];
  readonly OIDCDiscoveryURL: string;
  readonly OIDCDiscoveryCACert: string;
  readonly BoundAudiences: readonly string[];
  readonly BoundIssuer: string;
  readonly ClaimMappings: Readonly<Record<string, string>>;
  readonly ListClaimMappings: Readonly<Record<string, string>>;
  readonly ExpirationLeeway: number;
  readonly NotBeforeLeeway: number;
  readonly ClockSkewLeeway: number;
  readonly JWTSupportedAlgs: readonly string[];
}

/** What only the browser flow of an oidc method uses. */
export interface OidcConfig extends SsoConfig {
  readonly OIDCClientID: string;
  readonly OIDCClientSecret: string;
  readonly OIDCScopes: readonly string[];
  readonly OIDCACRValues: readonly string[];
  readonly AllowedRedirectURIs: readonly string[];
  readonly VerboseOIDCLogging: boolean;
  /** Consul's default is on; only an explicit false turns PKCE off. */
  readonly OIDCClientUsePKCE: boolean;
}

const KUBERNETES_KEYS = ["Host", "CACert", "ServiceAccountJWT"];
const SSO_COMMON = [
  "JWTSupportedAlgs",
  "BoundAudiences",
  "ClaimMappings",
  "ListClaimMappings",
  "OIDCDiscoveryURL",
  "OIDCDiscoveryCACert",
];
const JWT_ONLY = [
  "JWKSURL",
  "JWKSCACert",
  "JWTValidationPubKeys",
  "BoundIssuer",
  "ExpirationLeeway",
  "NotBeforeLeeway",
  "ClockSkewLeeway",
];
const OIDC_ONLY = [
  "OIDCClientID",
  "OIDCClientSecret",
  "OIDCScopes",
  "OIDCACRValues",
  "AllowedRedirectURIs",
  "VerboseOIDCLogging",
  "OIDCClientUsePKCE",
];
const SSO_KEYS = new Set([...SSO_COMMON, ...JWT_ONLY, ...OIDC_ONLY]);

export const SUPPORTED_ALGS = [
  "RS256",
  "RS384",
  "RS512",
  "ES256",
  "ES384",
  "ES512",
  "PS256",
  "PS384",
  "PS512",
  "EdDSA",
] as const;

type Config = Readonly<Record<string, unknown>>;

function checkKeys(config: Config, allowed: ReadonlySet<string>): void {
  const bad = Object.keys(config).filter((k) => !allowed.has(k));
  if (bad.length > 0) throw new ConfigError(`Config has invalid keys: ${bad.sort().join(", ")}`);
}

function string(config: Config, key: string): string {
  const v = config[key];
  if (v == null) return "";
  if (typeof v !== "string") throw new ConfigError(`Config.${key} must be a string`);
  return v;
}

function strings(config: Config, key: string): string[] {
  const v = config[key];
  if (v == null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
    throw new ConfigError(`Config.${key} must be a list of strings`);
  }
  return v as string[];
}

function stringMap(config: Config, key: string): Record<string, string> {
  const v = config[key];
  if (v == null) return {};
  if (typeof v !== "object" || Array.isArray(v) || Object.values(v).some((x) => typeof x !== "string")) {
    throw new ConfigError(`Config.${key} must be a map of string to string`);
  }
  return v as Record<string, string>;
}

function bool(config: Config, key: string): boolean | undefined {
  const v = config[key];
  if (v == null) return undefined;
  if (typeof v !== "boolean") throw new ConfigError(`Config.${key} must be a boolean`);
  return v;
}

/** A Go duration string, or a number of nanoseconds as Go's JSON gives it; milliseconds. */
function duration(config: Config, key: string): number {
  const v = config[key];
  if (v == null || v === "") return 0;
  if (typeof v === "number" && Number.isFinite(v)) return v / 1e6;
  if (typeof v === "bigint") return Number(v) / 1e6;
  if (typeof v === "string") {
    try {
      return parseDurationMs(v);
    } catch (err) {
      if (err instanceof DurationError) throw new ConfigError(`Config.${key}: invalid duration "${v}"`);
      throw err;
    }
  }
  throw new ConfigError(`Config.${key} must be a duration`);
}

function parseCerts(pem: string, what: string): void {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) throw new ConfigError(`error parsing ${what}: data does not contain any valid certificates`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw new ConfigError(`error parsing ${what}: ${(err as Error).message}`);
    }
  }
}

/** A compact JWS: three base64url parts, the first a JSON header naming an algorithm. */
export function looksLikeJwt(token: string): boolean {
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p))) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0] as string, "base64url").toString("utf8"));
    return (
      typeof header === "object" && header !== null && typeof (header as { alg?: unknown }).alg === "string"
    );
  } catch {
    return false;
  }
}

export function validateKubernetesConfig(config: Config): KubernetesConfig {
  checkKeys(config, new Set(KUBERNETES_KEYS));
  const out = {
    Host: string(config, "Host"),
    CACert: string(config, "CACert"),
    ServiceAccountJWT: string(config, "ServiceAccountJWT"),
  };
  if (out.Host === "") throw new ConfigError("Config.Host is required");
  if (out.CACert === "") throw new ConfigError("Config.CACert is required");
  parseCerts(out.CACert, "kubernetes ca cert");
  if (out.ServiceAccountJWT === "") throw new ConfigError("Config.ServiceAccountJWT is required");
  if (!looksLikeJwt(out.ServiceAccountJWT))
    throw new ConfigError("Config.ServiceAccountJWT is not a valid JWT");
  return out;
}

function checkMappings(mappings: Readonly<Record<string, string>>, key: string): void {
  const seen = new Set<string>();
  for (const target of Object.values(mappings)) {
    if (seen.has(target)) throw new ConfigError(`${key} contains multiple mappings for key "${target}"`);
    seen.add(target);
  }
}

function checkUrl(url: string, key: string): void {
  if (!URL.canParse(url)) throw new ConfigError(`error checking ${key}: invalid URL "${url}"`);
}

export function validateSsoConfig(type: "jwt" | "oidc", config: Config): SsoConfig {
  checkKeys(config, SSO_KEYS);
  const c: SsoConfig = {
    JWKSURL: string(config, "JWKSURL"),
    JWKSCACert: string(config, "JWKSCACert"),
    JWTValidationPubKeys: strings(config, "JWTValidationPubKeys"),
    OIDCDiscoveryURL: string(config, "OIDCDiscoveryURL"),
    OIDCDiscoveryCACert: string(config, "OIDCDiscoveryCACert"),
    BoundAudiences: strings(config, "BoundAudiences"),
    BoundIssuer: string(config, "BoundIssuer"),
    ClaimMappings: stringMap(config, "ClaimMappings"),
    ListClaimMappings: stringMap(config, "ListClaimMappings"),
    ExpirationLeeway: duration(config, "ExpirationLeeway"),
    NotBeforeLeeway: duration(config, "NotBeforeLeeway"),
    ClockSkewLeeway: duration(config, "ClockSkewLeeway"),
    JWTSupportedAlgs: strings(config, "JWTSupportedAlgs"),
  };
  const set = (key: string) => {
    const v = config[key];
    return v != null && v !== "" && v !== false && v !== 0 && !(Array.isArray(v) && v.length === 0);
  };
  if (type === "oidc") {
    for (const key of ["OIDCDiscoveryURL", "OIDCClientID", "OIDCClientSecret", "AllowedRedirectURIs"]) {
      if (!set(key)) throw new ConfigError(`'${key}' must be set for type "oidc"`);
    }
    string(config, "OIDCClientID");
    string(config, "OIDCClientSecret");
    strings(config, "OIDCScopes");
    strings(config, "OIDCACRValues");
    bool(config, "VerboseOIDCLogging");
    bool(config, "OIDCClientUsePKCE");
    for (const key of JWT_ONLY)
      if (set(key)) throw new ConfigError(`'${key}' must not be set for type "oidc"`);
    const bad = strings(config, "AllowedRedirectURIs").filter((u) => !URL.canParse(u));
    if (bad.length > 0) throw new ConfigError(`Invalid AllowedRedirectURIs provided: [${bad.join(" ")}]`);
  } else {
    for (const key of OIDC_ONLY)
      if (set(key)) throw new ConfigError(`'${key}' must not be set for type "jwt"`);
    const sources = [c.OIDCDiscoveryURL !== "", c.JWTValidationPubKeys.length > 0, c.JWKSURL !== ""];
    if (sources.filter(Boolean).length !== 1) {
      throw new ConfigError(
        `exactly one of 'JWTValidationPubKeys', 'JWKSURL', or 'OIDCDiscoveryURL' must be set for type "jwt"`,
      );
    }
    if (c.JWKSURL !== "") {
      checkUrl(c.JWKSURL, "JWKSURL");
      if (c.JWKSCACert !== "") parseCerts(c.JWKSCACert, "JWKSCACert");
    } else if (c.JWKSCACert !== "") {
      throw new ConfigError("'JWKSCACert' should not be set unless 'JWKSURL' is set");
    }
    c.JWTValidationPubKeys.forEach((pem, i) => {
      try {
        createPublicKey(pem);
      } catch (err) {
        throw new ConfigError(
          `error parsing public key JWTValidationPubKeys[${i}]: ${(err as Error).message}`,
        );
      }
    });
  }
  if (c.OIDCDiscoveryURL !== "") {
    checkUrl(c.OIDCDiscoveryURL, "OIDCDiscoveryURL");
    if (c.OIDCDiscoveryCACert !== "") parseCerts(c.OIDCDiscoveryCACert, "OIDCDiscoveryCACert");
  } else if (c.OIDCDiscoveryCACert !== "") {
    throw new ConfigError("'OIDCDiscoveryCACert' should not be set unless 'OIDCDiscoveryURL' is set");
  }
  for (const alg of c.JWTSupportedAlgs) {
    if (!(SUPPORTED_ALGS as readonly string[]).includes(alg)) {
      throw new ConfigError(`Invalid supported algorithm: ${alg}`);
    }
  }
  checkMappings(c.ClaimMappings, "ClaimMappings");
  checkMappings(c.ListClaimMappings, "ListClaimMappings");
  return c;
}

/** An oidc method's Config, validated, with the browser-flow fields. */
export function validateOidcConfig(config: Config): OidcConfig {
  const sso = validateSsoConfig("oidc", config);
  return {
    ...sso,
    OIDCClientID: string(config, "OIDCClientID"),
    OIDCClientSecret: string(config, "OIDCClientSecret"),
    OIDCScopes: strings(config, "OIDCScopes"),
    OIDCACRValues: strings(config, "OIDCACRValues"),
    AllowedRedirectURIs: strings(config, "AllowedRedirectURIs"),
    VerboseOIDCLogging: bool(config, "VerboseOIDCLogging") ?? false,
    OIDCClientUsePKCE: bool(config, "OIDCClientUsePKCE") ?? true,
  };
}

/** Validates `config` for `type`; throws ConfigError with Consul's reason. */
export function validateConfig(type: AuthMethodType, config: Config): KubernetesConfig | SsoConfig {
  return type === "kubernetes" ? validateKubernetesConfig(config) : validateSsoConfig(type, config);
}

const KUBERNETES_FIELDS: FieldKinds = new Map([
  ["serviceaccount.namespace", "value"],
  ["serviceaccount.name", "value"],
  ["serviceaccount.uid", "value"],
]);

/** The selectable fields of a method's identities (what selectors may name). */
export function identityFields(type: AuthMethodType, config: Config): FieldKinds {
  if (type === "kubernetes") return KUBERNETES_FIELDS;
  const out = new Map<string, "value" | "list">();
  for (const name of Object.values(stringMap(config, "ClaimMappings"))) out.set(`value.${name}`, "value");
  for (const name of Object.values(stringMap(config, "ListClaimMappings"))) out.set(`list.${name}`, "list");
  return out;
}

/** The variables `${...}` templates may use: every non-list field. */
export function identityVariables(fields: FieldKinds): string[] {
  return [...fields].filter(([, kind]) => kind === "value").map(([name]) => name);
}
