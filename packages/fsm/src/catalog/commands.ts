import type { Versioned } from "../commands/version.js";
import type { HealthStatus, ServiceAddress, ServiceWeights } from "./records.js";

export interface NodeSpec {
  readonly ID?: string;
  readonly Node: string;
  readonly Address?: string;
  readonly Datacenter?: string;
  readonly TaggedAddresses?: Readonly<Record<string, string>>;
  /** `NodeMeta` in registrations, `Meta` in node objects; either is accepted. */
  readonly Meta?: Readonly<Record<string, string>>;
  /** For the cas verbs. */
  readonly ModifyIndex?: number;
}

export interface ServiceSpec {
  readonly ID?: string;
  readonly Service: string;
  readonly Tags?: readonly string[];
  readonly Address?: string;
  readonly TaggedAddresses?: Readonly<Record<string, ServiceAddress>>;
  readonly Meta?: Readonly<Record<string, string>>;
  readonly Port?: number;
  readonly Kind?: string;
  readonly Proxy?: Readonly<Record<string, unknown>> | null;
  readonly Connect?: Readonly<Record<string, unknown>> | null;
  readonly EnableTagOverride?: boolean;
  readonly Weights?: ServiceWeights;
  readonly Namespace?: string;
  readonly ModifyIndex?: number;
}

export interface CheckSpec {
  /** Defaults to the registration's node. */
  readonly Node?: string;
  /** Defaults to Name. */
  readonly CheckID?: string;
  readonly Name?: string;
  /** Defaults to critical, as Consul does. */
  readonly Status?: HealthStatus;
  readonly Notes?: string;
  readonly Output?: string;
  readonly ServiceID?: string;
  readonly Type?: string;
  readonly Definition?: Readonly<Record<string, unknown>>;
  readonly Namespace?: string;
  readonly ModifyIndex?: number;
}

export interface RegisterSpec {
  readonly ID?: string;
  readonly Node: string;
  readonly Address: string;
  readonly Datacenter?: string;
  readonly TaggedAddresses?: Readonly<Record<string, string>>;
  readonly NodeMeta?: Readonly<Record<string, string>>;
  readonly Service?: ServiceSpec;
  readonly Check?: CheckSpec;
  readonly Checks?: readonly CheckSpec[];
  readonly SkipNodeUpdate?: boolean;
}

export interface CatalogRegisterCommand extends Versioned {
  readonly type: "catalog.register";
  readonly registration: RegisterSpec;
  /** Sessions invalidated by a check going critical start their lock-delay from here. */
  readonly now: number;
}

/** Node alone: the node and everything on it. With ServiceID: that service and its checks. With CheckID: that check. */
export interface CatalogDeregisterCommand extends Versioned {
  readonly type: "catalog.deregister";
  readonly ns?: string;
  readonly node: string;
  readonly serviceID?: string;
  readonly checkID?: string;
  readonly now: number;
}

export type CatalogCommand = CatalogRegisterCommand | CatalogDeregisterCommand;
