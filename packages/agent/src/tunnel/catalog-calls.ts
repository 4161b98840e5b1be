import { type Authorizer, DEFAULT_NAMESPACE } from "@cairn/acl";
import type { AclEnforcer } from "@cairn/api";
import { type ApplyResult, type Command, decodeCommand, encodeCommand } from "@cairn/fsm";
import type { AgentCatalog, CatalogRead } from "../local/catalog.js";
import type { TunnelPool } from "./pool.js";
import type { TunnelCalls } from "./server-route.js";

const READ = "agent.catalog.read";
const APPLY = "agent.catalog.apply";

/** The only writes a client agent's anti-entropy makes. */
const CATALOG_WRITES = new Set(["catalog.register", "catalog.deregister"]);

/**
 * A server's answers to its client agents' anti-entropy: their node's catalog entries, and their catalog
 * writes as fsm commands, so a client compares and writes exactly what a server's own local agent would.
 * With ACLs on (`acl`), each call carries the client's agent token and is authorized as Consul's catalog
 * endpoints do: node:read to read the node, node:write to write it or its node checks, service:write on
 * each service registered or deregistered (and on the service of a service check).
 */
export function catalogCalls(catalog: AgentCatalog, acl?: AclEnforcer): TunnelCalls {
  return {
    [READ]: async (node, token) => {
      if (typeof node !== "string" || node === "") throw new Error("catalog read needs a node name");
      if (acl) demand(authorizerOf(acl, token), "node", node, "read");
      return catalog.read(node);
    },
    [APPLY]: async (bytes, token) => {
      if (!(bytes instanceof Uint8Array)) throw new Error("catalog write needs an encoded command");
      const command = decodeCommand(bytes);
      if (!CATALOG_WRITES.has(command.type))
        throw new Error(`client agents may only write to the catalog, not ${command.type}`);
      if (acl) await authorizeWrite(authorizerOf(acl, token), command, catalog);
      return catalog.apply(command);
    },
  };
}

/** A client agent's catalog: a server's, through the tunnel, with the agent token of the moment. */
export function tunnelCatalog(pool: TunnelPool, token: () => string = () => ""): AgentCatalog {
  return {
    read: async (node) => (await pool.call(READ, [node, token()])) as CatalogRead,
    apply: async (command) => (await pool.call(APPLY, [encodeCommand(command), token()])) as ApplyResult,
  };
}

function authorizerOf(acl: AclEnforcer, token: unknown): Authorizer {
  // No default token of the server's stands in: the client sends its own (agent, else default) token.
  return acl.forToken(typeof token === "string" ? token : "");
}

type Guarded = "node" | "service";

function demand(authz: Authorizer, type: Guarded, name: string, access: "read" | "write", ns?: string): void {
  if (authz.authorize(ns || DEFAULT_NAMESPACE, type, name, access) === "allow") return;
  throw new Error(`Permission denied: the agent token lacks ${type}:${access} on "${name}"`);
}

async function authorizeWrite(authz: Authorizer, command: Command, catalog: AgentCatalog): Promise<void> {
  if (command.type === "catalog.register") {
    const r = command.registration;
    demand(authz, "node", r.Node, "write");
    const service = r.Service;
    if (service) demand(authz, "service", service.Service, "write", service.Namespace);
    const checks = [...(r.Check ? [r.Check] : []), ...(r.Checks ?? [])];
    for (const check of checks) {
      if (!check.ServiceID) continue;
      const ns = check.Namespace || service?.Namespace;
      const name =
        service && (service.ID || service.Service) === check.ServiceID
          ? service.Service
          : await serviceName(catalog, r.Node, check.ServiceID, ns);
      if (name !== undefined) demand(authz, "service", name, "write", ns);
    }
    return;
  }
  if (command.type !== "catalog.deregister") return;
  let serviceID = command.serviceID;
  if (command.checkID !== undefined) {
    const entry = (await catalog.read(command.node)).catalog.checks.find(
      (c) => c.CheckID === command.checkID && sameNs(c.Namespace, command.ns),
    );
    serviceID = entry?.ServiceID || undefined;
  }
  const name =
    serviceID === undefined ? undefined : await serviceName(catalog, command.node, serviceID, command.ns);
  if (name === undefined) demand(authz, "node", command.node, "write");
  else demand(authz, "service", name, "write", command.ns);
}

async function serviceName(
  catalog: AgentCatalog,
  node: string,
  id: string,
  ns: string | undefined,
): Promise<string | undefined> {
  const { services } = (await catalog.read(node)).catalog;
  return services.find((s) => s.ID === id && sameNs(s.Namespace, ns))?.Service;
}

function sameNs(a: string | undefined, b: string | undefined): boolean {
  return (a || DEFAULT_NAMESPACE) === (b || DEFAULT_NAMESPACE);
}
