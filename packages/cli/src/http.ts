// The HTTP client of Cairn's Consul-compatible API. Failures become one-line errors worded as Consul's Go
// client words them (`Unexpected response code: 500 (No cluster leader)`), which commands prefix.
import { readFileSync } from "node:fs";
import { boolFlag, type FlagValues, stringFlag } from "./args.js";
import { type JsonValue, parseJson } from "./json.js";

export const httpFlags = {
  "http-addr": stringFlag(
    "The address and port of the Cairn HTTP agent. The value can be an IP address or DNS address, " +
      "but it must also include the port. This can also be specified via the CAIRN_HTTP_ADDR or " +
      "CONSUL_HTTP_ADDR environment variable. The default value is http://127.0.0.1:8500.",
  ),
  token: stringFlag(
    "ACL token to use in the request. This can also be specified via the CAIRN_HTTP_TOKEN or " +
      "CONSUL_HTTP_TOKEN environment variable. If unspecified, the query will default to the token " +
      "of the Cairn agent at the HTTP address.",
  ),
  "token-file": stringFlag(
    "File containing the ACL token to use in the request instead of one specified via the -token " +
      "argument or CONSUL_HTTP_TOKEN environment variable. This can also be specified via the " +
      "CONSUL_HTTP_TOKEN_FILE environment variable.",
  ),
  datacenter: stringFlag(
    "Name of the datacenter to query. If unspecified, this will default to the datacenter of the queried agent.",
  ),
  stale: boolFlag(
    "Permit any Cairn server (non-leader) to respond to this request. This allows for lower latency " +
      "and higher throughput, but can result in stale data. This option has no effect on non-read " +
      "operations. The default value is false.",
  ),
  namespace: stringFlag(
    "Specifies the namespace to query. If not provided, the namespace will be inferred from the " +
      "request's ACL token, or will default to the default namespace.",
  ),
};

export type HttpFlagValues = FlagValues<typeof httpFlags>;

export interface HttpConfig {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8500`. */
  baseUrl: string;
  token: string;
  datacenter: string;
  stale: boolean;
  namespace: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Flags win over CAIRN_* variables, which win over CONSUL_* variables, as consul's own precedence. */
export function resolveHttpConfig(flags: HttpFlagValues, env: Env): HttpConfig {
  const address = flags["http-addr"] || env.CAIRN_HTTP_ADDR || env.CONSUL_HTTP_ADDR || "127.0.0.1:8500";
  const ssl = (env.CAIRN_HTTP_SSL ?? env.CONSUL_HTTP_SSL ?? "").toLowerCase() === "true";
  const tokenFile = flags["token-file"] || env.CAIRN_HTTP_TOKEN_FILE || env.CONSUL_HTTP_TOKEN_FILE || "";
  let token = flags.token;
  if (token === "" && flags["token-file"] !== "") token = readTokenFile(flags["token-file"]);
  if (token === "") token = env.CAIRN_HTTP_TOKEN || env.CONSUL_HTTP_TOKEN || "";
  if (token === "" && tokenFile !== "") token = readTokenFile(tokenFile);
  return {
    baseUrl: normalizeAddress(address, ssl),
    token,
    datacenter: flags.datacenter,
    stale: flags.stale,
    namespace: flags.namespace,
  };
}

function readTokenFile(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (err) {
    throw new Error(`Error loading token file: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function normalizeAddress(address: string, ssl = false): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(address)
    ? address
    : `${ssl ? "https" : "http"}://${address}`;
  return withScheme.replace(/\/+$/, "");
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface RequestOptions {
  query?: Record<string, string | bigint | boolean | undefined>;
  body?: Uint8Array | string;
  /** Reads take -stale; writes do not. */
  read?: boolean;
  /** Statuses returned to the caller instead of thrown (404 for a missing key). */
  accept?: readonly number[];
  signal?: AbortSignal;
}

export interface ApiResponse {
  status: number;
  /** X-Service-Index / X-Consul-Index, exact. */
  index: bigint;
  response: Response;
}

export class HttpClient {
  constructor(readonly config: HttpConfig) {}

  url(path: string, opts: RequestOptions = {}): string {
    const params = new URLSearchParams();
    if (this.config.datacenter !== "") params.set("dc", this.config.datacenter);
    if (this.config.namespace !== "") params.set("ns", this.config.namespace);
    if (opts.read && this.config.stale) params.set("stale", "");
    for (const [name, value] of Object.entries(opts.query ?? {})) {
      if (value === undefined || value === false) continue;
      params.set(name, value === true ? "" : String(value));
    }
    // Bare boolean parameters (`?recurse`) as Consul's client sends them.
    const query = params.toString().replace(/=(?=&|$)/g, "");
    return `${this.config.baseUrl}${path}${query === "" ? "" : `?${query}`}`;
  }

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const url = this.url(path, opts);
    const headers: Record<string, string> = {};
    if (this.config.token !== "") headers["X-Consul-Token"] = this.config.token;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: opts.body,
        signal: opts.signal,
      });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      throw new ApiError(
        `${method[0]}${method.slice(1).toLowerCase()} "${url}": ${describeFetchError(err)}`,
        0,
      );
    }
    const ok = response.status >= 200 && response.status < 300;
    if (!ok && !(opts.accept ?? []).includes(response.status)) {
      const text = (await response.text()).trim();
      throw new ApiError(`Unexpected response code: ${response.status} (${text})`, response.status);
    }
    const header = response.headers.get("x-service-index") ?? response.headers.get("x-consul-index");
    const index = header !== null && /^\d+$/.test(header) ? BigInt(header) : 0n;
    return { status: response.status, index, response };
  }

  async json(method: string, path: string, opts: RequestOptions = {}): Promise<JsonValue> {
    const { response } = await this.request(method, path, opts);
    return parseJson(await response.text());
  }
}

function describeFetchError(err: unknown): string {
  if (err instanceof Error) {
    const cause: unknown = err.cause;
    if (cause instanceof Error) return cause.message;
    return err.message;
  }
  return String(err);
}

/** A KV path as Consul's client escapes it: each segment escaped, slashes kept. */
export function kvPath(key: string): string {
  return `/v1/kv/${key.split("/").map(encodeURIComponent).join("/")}`;
}
