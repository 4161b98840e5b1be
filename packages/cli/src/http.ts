// The HTTP client of Cairn's Consul-compatible API. Failures become one-line errors worded as Consul's Go
// client words them (`Unexpected response code: 500 (No cluster leader)`), which commands prefix.
import http from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import { boolFlag, type FlagValues, parseBool, stringFlag } from "./args.js";
import { readConfigFile } from "./config-file.js";
import { type JsonValue, parseJson } from "./json.js";
import { resolveTls } from "./tls-client.js";

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
  "ca-file": stringFlag(
    "Path to a CA file to use for TLS when communicating with Cairn. This can also be specified via " +
      "the CONSUL_CACERT environment variable.",
  ),
  "ca-path": stringFlag(
    "Path to a directory of CA certificates to use for TLS when communicating with Cairn. This can also " +
      "be specified via the CONSUL_CAPATH environment variable.",
  ),
  "client-cert": stringFlag(
    "Path to a client cert file to use for TLS when 'verify_incoming' is enabled. This can also be " +
      "specified via the CONSUL_CLIENT_CERT environment variable.",
  ),
  "client-key": stringFlag(
    "Path to a client key file to use for TLS when 'verify_incoming' is enabled. This can also be " +
      "specified via the CONSUL_CLIENT_KEY environment variable.",
  ),
  "tls-server-name": stringFlag(
    "The server name to use as the SNI host when connecting via TLS. This can also be specified via " +
      "the CONSUL_TLS_SERVER_NAME environment variable.",
  ),
};

export type HttpFlagValues = FlagValues<typeof httpFlags>;

export interface TlsConfig {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  servername?: string;
  rejectUnauthorized: boolean;
}

export interface HttpConfig {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8500`. */
  baseUrl: string;
  /** Set for a `unix:///path` address: requests go over that socket. */
  socketPath?: string;
  tls: TlsConfig;
  token: string;
  datacenter: string;
  stale: boolean;
  namespace: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Flags win over CAIRN_* variables, which win over CONSUL_* variables, as consul's own precedence. */
export function resolveHttpConfig(flags: HttpFlagValues, env: Env): HttpConfig {
  const fromEnv = (name: string) => env[`CAIRN_${name}`] || env[`CONSUL_${name}`] || "";
  const address = flags["http-addr"] || fromEnv("HTTP_ADDR") || "127.0.0.1:8500";
  const ssl = envBoolean(env, "HTTP_SSL") ?? false;
  let token = flags.token;
  if (token === "" && flags["token-file"] !== "")
    token = readConfigFile("token file", flags["token-file"]).trim();
  if (token === "") token = fromEnv("HTTP_TOKEN");
  const tokenFile = fromEnv("HTTP_TOKEN_FILE");
  if (token === "" && tokenFile !== "") token = readConfigFile("token file", tokenFile).trim();
  const socket = /^unix:\/\//i.exec(address) ? address.slice("unix://".length) : undefined;
  return {
    baseUrl: socket === undefined ? normalizeAddress(address, ssl) : "http://localhost",
    socketPath: socket,
    tls: resolveTls({
      caFile: flags["ca-file"] || fromEnv("CACERT"),
      caPath: flags["ca-path"] || fromEnv("CAPATH"),
      certFile: flags["client-cert"] || fromEnv("CLIENT_CERT"),
      keyFile: flags["client-key"] || fromEnv("CLIENT_KEY"),
      servername: flags["tls-server-name"] || fromEnv("TLS_SERVER_NAME") || undefined,
      verify: envBoolean(env, "HTTP_SSL_VERIFY") ?? true,
    }),
    token,
    datacenter: flags.datacenter,
    stale: flags.stale,
    namespace: flags.namespace,
  };
}

/** A CAIRN_/CONSUL_ boolean read as Go's strconv.ParseBool; anything else is refused rather than guessed. */
function envBoolean(env: Env, name: string): boolean | undefined {
  for (const prefix of ["CAIRN_", "CONSUL_"]) {
    const raw = env[`${prefix}${name}`];
    if (raw === undefined || raw === "") continue;
    try {
      return parseBool(raw);
    } catch {
      throw new Error(`${prefix}${name}: expected true or false, got ${JSON.stringify(raw)}`);
    }
  }
  return undefined;
}

export function normalizeAddress(address: string, ssl = false): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(address)
    ? address
    : `${ssl ? "https" : "http"}://${address}`;
  return withScheme.replace(/\/+$/, "");
}

/**
 * One line for a failed request. OpenSSL's errors span a code path (`...:SSL routines:ssl3_read_bytes:tlsv13
 * alert certificate required:...`); an alert from the peer reads as Go's client words it.
 */
function transportError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const reason = /:SSL routines:[^:]*:([^:]+):/.exec(message)?.[1];
  if (reason === undefined) return message;
  const alert = /^(?:tlsv1[0-9]*|sslv3) alert (.+)$/.exec(reason)?.[1];
  return alert === undefined ? `tls: ${reason}` : `remote error: tls: ${alert}`;
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
  /** The body as it arrives, for large payloads (snapshots). */
  stream: Readable;
  text(): Promise<string>;
  /** Drops the body so the connection can be reused. */
  discard(): void;
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export class HttpClient {
  // Keep-alive: a blocking-query loop or an import reuses one connection. Idle pooled sockets are unref'd
  // by Node, so they never hold the process open.
  private readonly agent: http.Agent;

  constructor(readonly config: HttpConfig) {
    this.agent = config.baseUrl.startsWith("https:")
      ? new https.Agent({ keepAlive: true, ...config.tls })
      : new http.Agent({ keepAlive: true });
  }

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
    let message: http.IncomingMessage;
    try {
      message = await this.send(method, new URL(url), opts);
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const verb = `${method[0]}${method.slice(1).toLowerCase()}`;
      throw new ApiError(`${verb} "${url}": ${transportError(err)}`, 0);
    }
    const status = message.statusCode ?? 0;
    if ((status < 200 || status >= 300) && !(opts.accept ?? []).includes(status)) {
      const text = (await readAll(message)).trim();
      throw new ApiError(`Unexpected response code: ${status} (${text})`, status);
    }
    const header = message.headers["x-service-index"] ?? message.headers["x-consul-index"];
    const index = typeof header === "string" && /^\d+$/.test(header) ? BigInt(header) : 0n;
    return {
      status,
      index,
      stream: message,
      text: () => readAll(message),
      discard: () => void message.resume(),
    };
  }

  private send(method: string, url: URL, opts: RequestOptions): Promise<http.IncomingMessage> {
    const headers: Record<string, string | number> = {};
    if (this.config.token !== "") headers["X-Consul-Token"] = this.config.token;
    const body = typeof opts.body === "string" ? Buffer.from(opts.body) : opts.body;
    if (body !== undefined) headers["Content-Length"] = body.length;
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return Promise.reject(new Error(`unsupported protocol scheme "${url.protocol.replace(/:$/, "")}"`));
    }
    const transport = url.protocol === "https:" ? https : http;
    const options: http.RequestOptions = { method, headers, agent: this.agent, signal: opts.signal };
    if (this.config.socketPath !== undefined) options.socketPath = this.config.socketPath;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, options, resolve);
      req.once("error", reject);
      req.end(body);
    });
  }

  async json(method: string, path: string, opts: RequestOptions = {}): Promise<JsonValue> {
    const res = await this.request(method, path, opts);
    return parseJson(await res.text());
  }
}

/** A KV path as Consul's client escapes it: each segment escaped, slashes kept. */
export function kvPath(key: string): string {
  return `/v1/kv/${key.split("/").map(encodeURIComponent).join("/")}`;
}
