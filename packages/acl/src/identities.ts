import { AclIdentityError } from "./errors.js";
import type { PolicyRules } from "./rules.js";

export interface ServiceIdentity {
  readonly ServiceName: string;
  /** Empty or absent: valid in every datacenter, including future ones. */
  readonly Datacenters?: readonly string[] | null;
}

export interface NodeIdentity {
  readonly NodeName: string;
  readonly Datacenter: string;
}

const SERVICE_NAME = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
export const MAX_SERVICE_NAME_LENGTH = 256;

/** Spec 1: at most 256 characters, lowercase alphanumerics, `-` and `_`, starting and ending alphanumeric. */
export function validateServiceIdentity(identity: ServiceIdentity): void {
  const name = identity.ServiceName;
  if (typeof name !== "string" || name === "")
    throw new AclIdentityError("ServiceIdentity.ServiceName is required");
  if (name.length > MAX_SERVICE_NAME_LENGTH) {
    throw new AclIdentityError(
      `ServiceIdentity.ServiceName is longer than ${MAX_SERVICE_NAME_LENGTH} characters`,
    );
  }
  if (!SERVICE_NAME.test(name)) {
    throw new AclIdentityError(
      `ServiceIdentity.ServiceName "${name}" must contain only lowercase alphanumerics, '-' and '_', and start and end with an alphanumeric`,
    );
  }
}

export function validateNodeIdentity(identity: NodeIdentity): void {
  if (typeof identity.NodeName !== "string" || identity.NodeName === "") {
    throw new AclIdentityError("NodeIdentity.NodeName is required");
  }
  if (typeof identity.Datacenter !== "string" || identity.Datacenter === "") {
    throw new AclIdentityError("NodeIdentity.Datacenter is required");
  }
}

/** Does a service identity (or a policy, with the same field) apply in `datacenter`? */
export function appliesIn(datacenters: readonly string[] | null | undefined, datacenter: string): boolean {
  return datacenters == null || datacenters.length === 0 || datacenters.includes(datacenter);
}

/**
 * The policy Consul synthesizes for a service identity: write on the service and its sidecar proxy, read on
 * every service and node (for discovery).
 */
export function serviceIdentityRules(serviceName: string): PolicyRules {
  return {
    singletons: {},
    rules: [
      { resource: "service", name: serviceName, prefix: false, policy: "write" },
      { resource: "service", name: `${serviceName}-sidecar-proxy`, prefix: false, policy: "write" },
      { resource: "service", name: "", prefix: true, policy: "read" },
      { resource: "node", name: "", prefix: true, policy: "read" },
    ],
    namespaces: [],
  };
}

/** The policy Consul synthesizes for a node identity: write on the node, read on every service. */
export function nodeIdentityRules(nodeName: string): PolicyRules {
  return {
    singletons: {},
    rules: [
      { resource: "node", name: nodeName, prefix: false, policy: "write" },
      { resource: "service", name: "", prefix: true, policy: "read" },
    ],
    namespaces: [],
  };
}
