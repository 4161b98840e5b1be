// The browser half of `cairn login -type oidc`, as `consul login -type oidc`: a loopback listener for the
// provider's redirect, the auth URL printed for the user to open, then the code traded for a token.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Io } from "../command.js";
import type { HttpClient } from "../http.js";
import { asString, field, isObject } from "../json.js";

export const DEFAULT_CALLBACK_LISTEN_ADDR = "127.0.0.1:8550";
const CALLBACK_PATH = "/oidc/callback";

export interface OidcLoginOptions {
  readonly method: string;
  readonly listenAddr: string;
  readonly meta: Readonly<Record<string, string>>;
}

function splitHostPort(addr: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr);
  const port = Number(m?.[3]);
  if (!m || port > 65535) return undefined;
  return { host: m[1] ?? m[2] ?? "", port };
}

function page(title: string, message: string): string {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html><head><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1><p>${esc(message)}</p></body></html>`;
}

async function listen(host: string, port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host || "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

interface Callback {
  readonly code: string;
  readonly state: string;
  respond(ok: boolean, message: string): void;
}

/** The first request to the callback path (others get 404); rejects when the provider reports an error. */
function nextCallback(server: Server, stop: AbortSignal): Promise<Callback> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error("interrupted"));
    stop.addEventListener("abort", onAbort, { once: true });
    server.on("request", (req, res) => {
      const url = new URL(req.url ?? "/", "http://localhost");
      if (req.method !== "GET" || url.pathname !== CALLBACK_PATH) {
        res.writeHead(404).end();
        return;
      }
      const respond = (ok: boolean, message: string) => {
        res.writeHead(ok ? 200 : 400, { "Content-Type": "text/html; charset=utf-8", Connection: "close" });
        res.end(page(ok ? "Signed in" : "Login failed", message));
      };
      stop.removeEventListener("abort", onAbort);
      const error = url.searchParams.get("error");
      if (error !== null) {
        const description = url.searchParams.get("error_description");
        const reason = description ? `${error}: ${description}` : error;
        respond(false, reason);
        reject(new Error(`the OIDC provider refused the login: ${reason}`));
        return;
      }
      resolve({
        code: url.searchParams.get("code") ?? "",
        state: url.searchParams.get("state") ?? "",
        respond,
      });
    });
  });
}

/** Runs the flow and returns the new token's SecretID; throws with a one-line reason. */
export async function oidcLogin(io: Io, client: HttpClient, o: OidcLoginOptions): Promise<string> {
  const addr = splitHostPort(o.listenAddr);
  if (!addr) throw new Error(`invalid -oidc-callback-listen-addr "${o.listenAddr}"`);
  let server: Server;
  try {
    server = await listen(addr.host, addr.port);
  } catch (err) {
    throw new Error(`cannot listen for the OIDC callback on ${o.listenAddr}: ${(err as Error).message}`);
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const port = (server.address() as AddressInfo).port;
    const redirectUri = `http://localhost:${port}${CALLBACK_PATH}`;
    const clientNonce = randomBytes(20).toString("hex");
    const waiting = nextCallback(server, stop.signal);
    // Nothing else settles it before the auth URL is shown; keep an early rejection from going unhandled.
    waiting.catch(() => {});
    const answer = await client.json("POST", "/v1/acl/oidc/auth-url", {
      body: JSON.stringify({
        AuthMethod: o.method,
        RedirectURI: redirectUri,
        ClientNonce: clientNonce,
        ...(Object.keys(o.meta).length > 0 ? { Meta: o.meta } : {}),
      }),
    });
    const authUrl = isObject(answer) ? asString(field(answer, "AuthURL") ?? "") : "";
    if (authUrl === "") throw new Error("the agent returned no AuthURL");
    io.out(
      `Complete the login via your OIDC provider. Open this URL in your browser:\n\n    ${authUrl}\n\nWaiting for OIDC authentication to complete...`,
    );
    const cb = await waiting;
    try {
      const token = await client.json("POST", "/v1/acl/oidc/callback", {
        body: JSON.stringify({
          AuthMethod: o.method,
          State: cb.state,
          Code: cb.code,
          ClientNonce: clientNonce,
        }),
      });
      const secret = isObject(token) ? asString(field(token, "SecretID") ?? "") : "";
      if (secret === "") throw new Error("the agent returned no SecretID");
      cb.respond(
        true,
        "Signed in via your OIDC provider. You can now close this window and start using Cairn.",
      );
      return secret;
    } catch (err) {
      cb.respond(false, (err as Error).message);
      throw err;
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
