import { type Authorizer, DEFAULT_NAMESPACE } from "@cairn/acl";
import { type AclEnforcer, registerPrivileges } from "@cairn/api";
import { type ApplyResult, type Command, decodeCommand, encodeCommand, type NodeService } from "@cairn/fsm";
import { SecondaryAclEnforcer } from "../federation/secondary-acl-enforcer.js";
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
 * With ACLs on (`acl`), each call carries the token of what it writes (a service's, a check's, the agent
 * token for node info and removals; the agent token for reads) and is authorized as Consul's catalog
 * endpoint vets it: node:read to read the node; node:write to change the node entry or write a node check;
 * service:write on a registered service (and on one it replaces by ID) and on another service a check
 * belongs to; node:write, or else service:write on what goes, to deregister.
 */
export function catalogCalls(catalog: AgentCatalog, acl?: AclEnforcer): TunnelCalls {
  return {
    [READ]: async (node, token) => {
      if (typeof node !== "string" || node === "") throw new Error("catalog read needs a node name");
      if (acl) demand(await authorizerOf(acl, token), "node", node, "read");
      return catalog.read(node);
    },
    [APPLY]: async (bytes, token) => {
      if (!(bytes instanceof Uint8Array)) throw new Error("catalog write needs an encoded command");
      const command = decodeCommand(bytes);
      if (!CATALOG_WRITES.has(command.type))
        throw new Error(`client agents may only write to the catalog, not ${command.type}`);
      if (acl) await authorizeWrite(await authorizerOf(acl, token), command, catalog);
      return catalog.apply(command, "");
    },
  };
}

/**
 * A client agent's catalog: a server's, through the tunnel. Reads go with the agent token of the moment
 * (`readToken`), each write with the token anti-entropy gives it.
 */
export function tunnelCatalog(pool: TunnelPool, readToken: () => string = () => ""): AgentCatalog {
  return {
    read: async (node) => (await pool.call(READ, [node, readToken()])) as CatalogRead,
    apply: async (command, token) => (await pool.call(APPLY, [encodeCommand(command), token])) as ApplyResult,
  };
}

async function authorizerOf(acl: AclEnforcer, token: unknown): Promise<Authorizer> {
  // No default token of the server's stands in: the client sends its own (resolved to its default) token.
  const secret = typeof token === "string" ? token : "";
  if (acl instanceof SecondaryAclEnforcer) await acl.prepare(secret);
  return acl.forToken(secret);
}

type Guarded = "node" | "service";

function demand(authz: Authorizer, type: Guarded, name: string, access: "read" | "write", ns?: string): void {
  if (authz.authorize(ns || DEFAULT_NAMESPACE, type, name, access) === "allow") return;
  throw new Error(`Permission denied: the token lacks ${type}:${access} on "${name}"`);
}

async function authorizeWrite(authz: Authorizer, command: Command, catalog: AgentCatalog): Promise<void> {
  if (command.type === "catalog.register") {
    // As the HTTP endpoint vets a registration, with the single Check folded into Checks.
    const r = command.registration;
    const stored = (await catalog.read(r.Node)).catalog;
    const spec = { ...r, Checks: [...(r.Check ? [r.Check] : []), ...(r.Checks ?? [])] };
    const before = stored.node ? { node: stored.node, services: stored.services } : undefined;
    for (const need of registerPrivileges(spec, before))
      demand(authz, need.type, need.name, "write", r.Service?.Namespace);
    return;
  }
  if (command.type !== "catalog.deregister") return;
  // node:write on the node removes anything on it: an agent token may clean up after a token since deleted.
  if (authz.authorize(command.ns || DEFAULT_NAMESPACE, "node", command.node, "write") === "allow") return;
  const stored = (await catalog.read(command.node)).catalog;
  let serviceID = command.serviceID;
  if (serviceID === undefined && command.checkID !== undefined) {
    const check = stored.checks.find((c) => c.CheckID === command.checkID && sameNs(c.Namespace, command.ns));
    if (!check) throw new Error(`Unknown check ID '${command.checkID}'`);
    serviceID = check.ServiceID || undefined;
  }
  const service = serviceID === undefined ? undefined : findService(stored.services, serviceID, command.ns);
  if (serviceID !== undefined && !service) throw new Error(`Unknown service ID '${serviceID}'`);
  if (service) demand(authz, "service", service.Service, "write", command.ns);
  else demand(authz, "node", command.node, "write");
}

function findService(
  services: readonly NodeService[],
  id: string | undefined,
  ns: string | undefined,
): NodeService | undefined {
  return services.find((s) => s.ID === id && sameNs(s.Namespace, ns));
}

function sameNs(a: string | undefined, b: string | undefined): boolean {
  return (a || DEFAULT_NAMESPACE) === (b || DEFAULT_NAMESPACE);
}
