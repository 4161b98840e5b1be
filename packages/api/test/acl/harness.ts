import type { AddressInfo } from "node:net";
import { COMMAND_VERSION } from "@cairn/fsm";
import { serve } from "@hono/node-server";
import type { Logger } from "pino";
import { AclEnforcer } from "../../src/acl/enforcer.js";
import { createApi } from "../../src/app.js";
import { LocalBackend } from "../../src/local-backend.js";
import { anonymousToken, GLOBAL_MANAGEMENT_POLICY, managementToken } from "../../src/routes/acl.js";

export const ROOT = "11111111-2222-3333-4444-555555555555";

export interface AclServer {
  backend: LocalBackend;
  url: string;
  close(): Promise<void>;
  /** A request with `token` (undefined: none); JSON bodies are stringified, text comes back parsed if JSON. */
  call<T = unknown>(
    method: string,
    path: string,
    token?: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; text: string }>;
  /** A policy with `rules` and a token linking it (in `ns`); returns the token's secret. */
  tokenWith(rules: string, ns?: string): Promise<string>;
}

export interface AclServerOptions {
  /** ACLs on (default) with this default policy; false: ACLs off. */
  acl?: "allow" | "deny" | false;
  /** Create the built-ins and the `ROOT` management token at start (as a leader would); default true. */
  initialize?: boolean;
  defaultToken?: string;
  logger?: Logger;
  now?: () => number;
  /** Consul's `acl-bootstrap-reset` file. */
  aclBootstrapResetFile?: string;
}

let counter = 0;

/** What a new cluster's leader applies first: the built-in policy, the anonymous token and `ROOT`. */
export function initAcls(backend: LocalBackend): Promise<unknown> {
  return backend.apply({
    v: COMMAND_VERSION,
    type: "acl.init",
    policy: GLOBAL_MANAGEMENT_POLICY,
    anonymous: anonymousToken(),
    initialManagement: managementToken(
      "00000000-0000-0000-0000-00000000000a",
      ROOT,
      "Initial Management Token",
    ),
    now: Date.now(),
  });
}

/** A real HTTP server over a LocalBackend with the ACL enforcer on. */
export async function startAclServer(options: AclServerOptions = {}): Promise<AclServer> {
  const backend = new LocalBackend();
  const aclMode = options.acl ?? "deny";
  if (options.initialize ?? true) await initAcls(backend);
  const acl =
    aclMode === false
      ? undefined
      : new AclEnforcer({
          store: backend.store,
          datacenter: "dc1",
          defaultPolicy: aclMode,
          ...(options.defaultToken ? { defaultToken: () => options.defaultToken ?? "" } : {}),
          ...(options.now ? { clock: options.now } : {}),
        });
  const app = createApi({
    backend,
    nodeName: "agent-one",
    datacenter: "dc1",
    config: { coordinateUpdatePeriodMs: 10 },
    ...(acl ? { acl } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.aclBootstrapResetFile ? { aclBootstrapResetFile: options.aclBootstrapResetFile } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call: AclServer["call"] = async (method, path, token, body) => {
    const headers: Record<string, string> = token === undefined ? {} : { "X-Consul-Token": token };
    const res = await fetch(url + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // plain-text bodies stay text
    }
    return { status: res.status, body: parsed as never, text };
  };
  return {
    backend,
    url,
    call,
    async tokenWith(rules, ns) {
      const name = `p${++counter}`;
      const q = ns ? `?ns=${ns}` : "";
      const p = await call<{ ID: string }>("PUT", `/v1/acl/policy${q}`, ROOT, { Name: name, Rules: rules });
      if (p.status !== 200) throw new Error(`policy: ${p.status} ${p.text}`);
      const t = await call<{ SecretID: string }>("PUT", `/v1/acl/token${q}`, ROOT, {
        Policies: [{ ID: p.body.ID }],
      });
      if (t.status !== 200) throw new Error(`token: ${t.status} ${t.text}`);
      return t.body.SecretID;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
