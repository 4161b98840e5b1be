import type { CheckDefinition, LocalCheck, LocalService } from "@cairn/api";
import type { HealthStatus } from "@cairn/fsm";

export const NODE_MAINTENANCE_CHECK = "_node_maintenance";
export const SERVICE_MAINTENANCE_PREFIX = "_service_maintenance:";

/** Consul's texts when maintenance is enabled without a reason (clients show them as they are). */
const DEFAULT_NODE_REASON =
  "Maintenance mode is enabled for this node, but no reason was provided. This is a default message.";
const DEFAULT_SERVICE_REASON =
  "Maintenance mode is enabled for this service, but no reason was provided. This is a default message.";

/** The catalog record of a check the agent runs, in its initial state (critical unless a status is given). */
export function checkRecord(
  def: CheckDefinition,
  node: string,
  service: LocalService | undefined,
  status: HealthStatus = def.Status ?? "critical",
  output = "",
): LocalCheck {
  return {
    Node: node,
    CheckID: def.CheckID,
    Name: def.Name,
    Status: status,
    Notes: def.Notes,
    Output: output,
    ServiceID: service?.ID ?? "",
    ServiceName: service?.Service ?? "",
    ServiceTags: service ? [...service.Tags] : [],
    Type: def.Kind,
    Definition: definitionRecord(def),
    Namespace: service?.Namespace ?? "default",
  };
}

/** HealthCheck.Definition as the catalog stores it: only what is set, durations in nanoseconds. */
function definitionRecord(def: CheckDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (name: string, value: unknown, empty: unknown) => {
    if (value !== empty) out[name] = value;
  };
  put("HTTP", def.HTTP, "");
  put("Method", def.Method, "");
  if (Object.keys(def.Header).length > 0) out.Header = def.Header;
  put("Body", def.Body, "");
  put("TLSServerName", def.TLSServerName, "");
  put("TLSSkipVerify", def.TLSSkipVerify, false);
  put("TCP", def.TCP, "");
  put("UDP", def.UDP, "");
  put("H2PING", def.H2PING, "");
  put("H2PingUseTLS", def.H2PingUseTLS, false);
  if (def.ScriptArgs.length > 0) out.ScriptArgs = [...def.ScriptArgs];
  put("DockerContainerID", def.DockerContainerID, "");
  put("Shell", def.Shell, "");
  put("GRPC", def.GRPC, "");
  put("GRPCUseTLS", def.GRPCUseTLS, false);
  put("AliasNode", def.AliasNode, "");
  put("AliasService", def.AliasService, "");
  put("Interval", def.IntervalNs, 0);
  put("Timeout", def.TimeoutNs, 0);
  put("TTL", def.TtlNs, 0);
  put("DeregisterCriticalServiceAfter", def.DeregisterCriticalServiceAfterNs, 0);
  return out;
}

export function nodeMaintenanceCheck(node: string, reason: string): LocalCheck {
  return {
    Node: node,
    CheckID: NODE_MAINTENANCE_CHECK,
    Name: "Node Maintenance Mode",
    Status: "critical",
    Notes: reason || DEFAULT_NODE_REASON,
    Output: "",
    ServiceID: "",
    ServiceName: "",
    ServiceTags: [],
    Type: "maintenance",
    Definition: {},
    Namespace: "default",
  };
}

export function serviceMaintenanceCheck(node: string, service: LocalService, reason: string): LocalCheck {
  return {
    Node: node,
    CheckID: `${SERVICE_MAINTENANCE_PREFIX}${service.ID}`,
    Name: "Service Maintenance Mode",
    Status: "critical",
    Notes: reason || DEFAULT_SERVICE_REASON,
    Output: "",
    ServiceID: service.ID,
    ServiceName: service.Service,
    ServiceTags: [...service.Tags],
    Type: "maintenance",
    Definition: {},
    Namespace: service.Namespace,
  };
}
