import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/**
 * The network an auth method needs at login: the Kubernetes API (TokenReview, ServiceAccount) and JWKS /
 * OIDC discovery documents. Routes receive it as a dependency so tests and simulations can supply their
 * own; `httpAuthMethodIO` is the real one.
 */
export interface JsonRequest {
  readonly url: string;
  readonly method: "GET" | "POST";
  /** PEM CA bundle to trust for https (instead of the system roots). */
  readonly caCert?: string;
  readonly bearer?: string;
  /** HTTP Basic credentials (an OAuth client authenticating at a token endpoint). */
  readonly basic?: { readonly user: string; readonly password: string };
  readonly body?: unknown;
  /** Sent as application/x-www-form-urlencoded instead of a JSON body. */
  readonly form?: Readonly<Record<string, string>>;
}

export interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface AuthMethodIO {
  requestJson(req: JsonRequest): Promise<JsonResponse>;
}

export class AuthMethodIOError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthMethodIOError";
  }
}

const TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export const httpAuthMethodIO: AuthMethodIO = {
  requestJson(req) {
    const url = new URL(req.url);
    const headers: Record<string, string> = { Accept: "application/json" };
    let payload: string | undefined;
    if (req.form !== undefined) {
      payload = new URLSearchParams(req.form).toString();
      headers["Content-Type"] = "application/x-www-form-urlencoded";
    } else if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers["Content-Type"] = "application/json";
    }
    if (req.bearer) headers.Authorization = `Bearer ${req.bearer}`;
    if (req.basic) {
      // RFC 6749 2.3.1: both halves form-encoded before base64.
      const enc = (s: string) => encodeURIComponent(s).replaceAll("%20", "+");
      const pair = `${enc(req.basic.user)}:${enc(req.basic.password)}`;
      headers.Authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const r = send(
        url,
        {
          method: req.method,
          headers,
          timeout: TIMEOUT_MS,
          ...(url.protocol === "https:" && req.caCert ? { ca: req.caCert } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES)
              r.destroy(new AuthMethodIOError(`response from ${url.host} too large`));
            else chunks.push(chunk);
          });
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              // not JSON: the caller reports the status
            }
            resolve({ status: res.statusCode ?? 0, body });
          });
          res.on("error", reject);
        },
      );
      r.on("timeout", () => r.destroy(new AuthMethodIOError(`request to ${url.host} timed out`)));
      r.on("error", (err) =>
        reject(new AuthMethodIOError(`${req.method} ${url.origin}${url.pathname}: ${err.message}`)),
      );
      r.end(payload);
    });
  },
};
