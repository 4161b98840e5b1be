/**
 * The discovery chain compiler's input and output. Input entries are config entries in Consul's CamelCase
 * JSON form (as the state store keeps them); output is Consul's CompiledDiscoveryChain JSON.
 */

export type ConfigEntryFields = Readonly<Record<string, unknown>>;

/** The config entries a chain may consult, looked up by service name and namespace. */
export interface ChainEntries {
  resolver(service: string, ns: string): ConfigEntryFields | undefined;
  splitter(service: string, ns: string): ConfigEntryFields | undefined;
  router(service: string, ns: string): ConfigEntryFields | undefined;
  serviceDefaults(service: string, ns: string): ConfigEntryFields | undefined;
  /** The cluster-wide proxy-defaults entry (`global`). */
  proxyDefaults(): ConfigEntryFields | undefined;
}

/** A duration both as Go prints it (`15s`, `1m30s`) and in nanoseconds. */
export interface ChainDuration {
  readonly text: string;
  readonly nanos: bigint;
}

export interface ChainOverrides {
  readonly connectTimeout?: ChainDuration | undefined;
  readonly protocol?: string | undefined;
  readonly meshGatewayMode?: string | undefined;
}

export interface CompileRequest {
  readonly serviceName: string;
  /** The namespace the chain is evaluated in. */
  readonly namespace: string;
  /** The datacenter the chain is evaluated in (`compile-dc`, else the agent's). */
  readonly datacenter: string;
  /** `<cluster id>.consul`: SNI and target names end with `.internal.` and this. */
  readonly trustDomain: string;
  readonly entries: ChainEntries;
  readonly overrides?: ChainOverrides | undefined;
}

export interface ChainTarget {
  ID: string;
  Service: string;
  ServiceSubset?: string;
  Namespace: string;
  Datacenter: string;
  MeshGateway: { Mode?: string };
  Subset: { Filter?: string; OnlyPassing?: boolean };
  External?: boolean;
  SNI: string;
  Name: string;
}

export interface ResolverNode {
  Type: "resolver";
  Name: string;
  Resolver: {
    Default?: true;
    ConnectTimeout: string;
    Target: string;
    Failover?: { Targets: string[] };
  };
}

export interface SplitterNode {
  Type: "splitter";
  Name: string;
  Splits: { Weight: number; NextNode: string }[];
}

export interface RouterNode {
  Type: "router";
  Name: string;
  Routes: { Definition: ConfigEntryFields; NextNode: string }[];
}

export type ChainNode = ResolverNode | SplitterNode | RouterNode;

export interface CompiledChain {
  ServiceName: string;
  Namespace: string;
  Datacenter: string;
  CustomizationHash?: string;
  Protocol: string;
  StartNode: string;
  Nodes: Record<string, ChainNode>;
  Targets: Record<string, ChainTarget>;
}

/** A chain the entries cannot form (Consul's ConfigEntryGraphError): the message is Consul's. */
export class ChainCompileError extends Error {
  override readonly name = "ChainCompileError";
}
