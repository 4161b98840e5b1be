import { COMMAND_VERSION } from "@cairn/fsm";
import type { Authorizer } from "../authorizer.js";
import type { ClusterBackend } from "../backend.js";
import { applyCommand } from "../http/apply.js";
import { badRequest, permissionDenied } from "../http/errors.js";
import { registerPrivileges } from "./register-acl.js";
import type { DeregisterBody, RegisterBody } from "./register-body.js";
import { agreedNamespace, toRegistration } from "./registration.js";
import { requireNoNul, requireParam } from "./request.js";

/**
 * Catalog.Register and Catalog.Deregister past their decoding: validation, authorization and the write, as
 * Consul's catalog endpoint does them. The one door for catalog writes: the HTTP endpoints and client
 * agents' anti-entropy (through the tunnel) both come here. Every refusal is an HttpError.
 */

/** What a catalog write needs of the API: the write path and replica, the authorizer, and the clock. */
export interface CatalogWriteContext {
  readonly backend: Pick<ClusterBackend, "apply" | "store">;
  readonly authorizer: Authorizer;
  readonly datacenter: string;
  readonly now: () => number;
}

/** Who writes: the token the write is authorized with and the namespace rules of the request. */
export interface CatalogCaller {
  readonly token: string;
  /** The namespace the request named (?ns or a namespace header); undefined when it named none. */
  readonly requestNamespace: string | undefined;
  /** Used when neither the request nor the body names one: the token's namespace, else the default. */
  readonly fallbackNamespace: string;
}

export async function registerEntry(
  ctx: CatalogWriteContext,
  body: RegisterBody,
  caller: CatalogCaller,
): Promise<void> {
  const { spec, namespace } = toRegistration(body, {
    requestNamespace: caller.requestNamespace,
    fallbackNamespace: caller.fallbackNamespace,
    datacenter: ctx.datacenter,
  });
  const stored = ctx.backend.store.view().node(spec.Node, namespace).value;
  for (const need of registerPrivileges(spec, stored)) {
    if (ctx.authorizer.authorize(caller.token, namespace, need.type, need.name, "write") !== "allow")
      throw permissionDenied();
  }
  await applyCommand(ctx, {
    v: COMMAND_VERSION,
    type: "catalog.register",
    registration: spec,
    now: ctx.now(),
  });
}

export async function deregisterEntry(
  ctx: CatalogWriteContext,
  body: DeregisterBody,
  caller: CatalogCaller,
): Promise<void> {
  const node = requireParam(body.Node ?? "", "Must provide node");
  requireNoNul(node, "node name");
  const ns = agreedNamespace(
    caller.requestNamespace,
    [["the body", body.Namespace]],
    caller.fallbackNamespace,
  );
  const serviceID = body.ServiceID || undefined;
  const checkID = body.CheckID || undefined;
  vetDeregister(ctx, caller.token, { node, ns, serviceID, checkID });
  await applyCommand(ctx, {
    v: COMMAND_VERSION,
    type: "catalog.deregister",
    ns,
    node,
    ...(serviceID ? { serviceID } : {}),
    ...(checkID ? { checkID } : {}),
    now: ctx.now(),
  });
}

interface Removal {
  node: string;
  ns: string;
  serviceID: string | undefined;
  checkID: string | undefined;
}

/**
 * As Consul vets a deregistration: node:write on the node removes anything on it (so an agent token may
 * clean up after a service token since deleted); without it, service:write on the service that goes (or
 * that the check belongs to), in the order the state machine reads the fields: ServiceID, then CheckID.
 * Removing the node itself takes node:write.
 */
function vetDeregister(ctx: CatalogWriteContext, token: string, r: Removal): void {
  const may = (type: "node" | "service", name: string) =>
    ctx.authorizer.authorize(token, r.ns, type, name, "write") === "allow";
  if (may("node", r.node)) return;
  const view = ctx.backend.store.view();
  let service: string | undefined;
  if (r.serviceID !== undefined) {
    service = view.node(r.node, r.ns).value?.services.find((s) => s.ID === r.serviceID)?.Service;
    if (service === undefined) throw badRequest(`Unknown service ID '${r.serviceID}'`);
  } else if (r.checkID !== undefined) {
    const check = view.checksForNode(r.node, r.ns).value.find((c) => c.CheckID === r.checkID);
    if (check === undefined) throw badRequest(`Unknown check ID '${r.checkID}'`);
    service = check.ServiceID ? check.ServiceName : undefined;
  }
  if (service === undefined || !may("service", service)) throw permissionDenied();
}
