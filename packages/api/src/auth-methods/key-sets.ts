import type { JSONWebKeySet } from "jose";
import type { SsoConfig } from "./config.js";
import { type AuthMethodIO, AuthMethodIOError } from "./io.js";

/**
 * Remote key sets of jwt methods (JWKSURL, or the jwks_uri of an OIDC discovery document), fetched once
 * and reused for `ttlMs`; a token whose key is missing or whose signature fails may refresh a set, at most
 * once per `minRefreshMs`, so rotated keys are picked up without letting bad tokens hammer the endpoint.
 */

async function fetchJson(io: AuthMethodIO, url: string, caCert: string): Promise<unknown> {
  const res = await io.requestJson({ url, method: "GET", ...(caCert ? { caCert } : {}) });
  if (res.status < 200 || res.status > 299)
    throw new AuthMethodIOError(`fetching ${url}: status ${res.status}`);
  return res.body;
}

function isKeySet(value: unknown): value is JSONWebKeySet {
  return typeof value === "object" && value !== null && Array.isArray((value as { keys?: unknown }).keys);
}

export interface KeySource {
  readonly jwks: JSONWebKeySet;
  /** Set for OIDC discovery: the issuer tokens must carry. */
  readonly issuer?: string;
  /** Set for OIDC discovery: where the browser flow goes. */
  readonly endpoints?: OidcEndpoints;
}

export interface OidcEndpoints {
  readonly authorization?: string;
  readonly token?: string;
  readonly userinfo?: string;
  /** token_endpoint_auth_methods_supported (empty: the spec's default, client_secret_basic). */
  readonly tokenAuthMethods: readonly string[];
}

function endpointsOf(doc: Record<string, unknown>): OidcEndpoints {
  const url = (v: unknown) => (typeof v === "string" && URL.canParse(v) ? v : undefined);
  const methods = doc.token_endpoint_auth_methods_supported;
  const out: { -readonly [K in keyof OidcEndpoints]: OidcEndpoints[K] } = {
    tokenAuthMethods: Array.isArray(methods) ? methods.filter((m) => typeof m === "string") : [],
  };
  const authorization = url(doc.authorization_endpoint);
  const token = url(doc.token_endpoint);
  const userinfo = url(doc.userinfo_endpoint);
  if (authorization) out.authorization = authorization;
  if (token) out.token = token;
  if (userinfo) out.userinfo = userinfo;
  return out;
}

async function remoteKeys(io: AuthMethodIO, config: SsoConfig): Promise<KeySource> {
  if (config.JWKSURL !== "") {
    const jwks = await fetchJson(io, config.JWKSURL, config.JWKSCACert);
    if (!isKeySet(jwks)) throw new AuthMethodIOError(`${config.JWKSURL} did not return a JSON Web Key Set`);
    return { jwks };
  }
  const base = config.OIDCDiscoveryURL.replace(/\/+$/, "");
  const doc = await fetchJson(io, `${base}/.well-known/openid-configuration`, config.OIDCDiscoveryCACert);
  const fields = (typeof doc === "object" && doc !== null ? doc : {}) as Record<string, unknown>;
  const { jwks_uri: jwksUri, issuer } = fields;
  if (typeof jwksUri !== "string") throw new AuthMethodIOError(`${base}: discovery document has no jwks_uri`);
  const jwks = await fetchJson(io, jwksUri, config.OIDCDiscoveryCACert);
  if (!isKeySet(jwks)) throw new AuthMethodIOError(`${jwksUri} did not return a JSON Web Key Set`);
  const endpoints = endpointsOf(fields);
  return typeof issuer === "string" ? { jwks, issuer, endpoints } : { jwks, endpoints };
}

interface Entry {
  readonly source: KeySource;
  readonly fetchedAt: number;
}

const MAX_ENTRIES = 1024;

export class KeySetCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly io: AuthMethodIO,
    private readonly ttlMs = 5 * 60_000,
    private readonly minRefreshMs = 10_000,
  ) {}

  #key(config: SsoConfig): string {
    return JSON.stringify([
      config.JWKSURL,
      config.JWKSCACert,
      config.OIDCDiscoveryURL,
      config.OIDCDiscoveryCACert,
    ]);
  }

  async #fetch(config: SsoConfig, nowMs: number): Promise<KeySource> {
    const source = await remoteKeys(this.io, config);
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(this.#key(config), { source, fetchedAt: nowMs });
    return source;
  }

  /** The method's key set, from the cache while it is fresh. */
  async get(config: SsoConfig, nowMs: number): Promise<{ source: KeySource }> {
    const entry = this.#entries.get(this.#key(config));
    if (entry && nowMs - entry.fetchedAt < this.ttlMs) return entry;
    return { source: await this.#fetch(config, nowMs) };
  }

  /** A newer key set, or undefined when the cached one is too recent to refetch. */
  async refresh(config: SsoConfig, nowMs: number): Promise<KeySource | undefined> {
    const entry = this.#entries.get(this.#key(config));
    if (entry && nowMs - entry.fetchedAt < this.minRefreshMs) return undefined;
    return this.#fetch(config, nowMs);
  }
}
