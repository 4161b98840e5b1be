// A server with ACLs on, for the process tests of what sits beside it (client agents, the agent cache).

import type { AgentProcess } from "./agent.js";
import { awaitHttp } from "./agent.js";
import { http } from "./http.js";
import type { AgentScratch } from "./scratch.js";
import { waitFor } from "./wait.js";

/** An `acl` stanza with `default_policy = "deny"`: `tokens` is the body of its `tokens` block, `extra` more lines. */
export function aclHcl(tokens: string, extra = ""): string {
  return `acl {\n enabled = true\n default_policy = "deny"\n${extra}\n tokens {\n ${tokens}\n }\n}`;
}

/**
 * A single bootstrapped server named "srv" with ACLs on (default deny) and `management` as its initial
 * management token, returned once that token works.
 */
export async function startAclServer(
  scratch: AgentScratch,
  management: string,
  ports: { http: number; server: number; serfLan: number },
): Promise<AgentProcess> {
  const server = scratch.spawn({
    name: "srv",
    ports,
    flags: [
      "-server",
      "-bootstrap",
      "-node",
      "srv",
      "-data-dir",
      scratch.path("srv"),
      "-bind",
      "127.0.0.1",
      "-client",
      "127.0.0.1",
      "-hcl",
      "performance { raft_multiplier = 1 }",
      "-hcl",
      aclHcl(`initial_management = "${management}"`),
    ],
    logFile: scratch.path("srv.log"),
  });
  // Each condition is timed from when its agent serves HTTP: a cold start has its own, longer, deadline.
  await awaitHttp(server);
  await waitFor(
    "the server's initial management token",
    async () =>
      (await asToken(server, management, "GET", "/v1/acl/token/self")).status === 200 ? true : undefined,
    20_000,
  );
  return server;
}

/** A policy named `name` with `rules`, and a token with the secret `secret` holding it, made as `management`. */
export async function tokenWith(
  server: AgentProcess,
  management: string,
  secret: string,
  name: string,
  rules: string,
): Promise<void> {
  for (const [path, body] of [
    ["/v1/acl/policy", { Name: name, Rules: rules }],
    ["/v1/acl/token", { SecretID: secret, Policies: [{ Name: name }] }],
  ] as const) {
    const r = await asToken(server, management, "PUT", path, body);
    if (r.status !== 200) throw new Error(`PUT ${path} for ${name}: ${r.status} ${r.text}`);
  }
}

function asToken(agent: AgentProcess, token: string, method: string, path: string, body?: unknown) {
  return http(`${agent.url}${path}`, method, body === undefined ? undefined : JSON.stringify(body), {
    headers: { "X-Consul-Token": token },
  });
}
