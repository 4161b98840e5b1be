import { createHash } from "node:crypto";
import { checkJson, connectJson, goMap, proxyJson } from "../catalog/shapes.js";
import { scopedNamespace } from "../http/default-scope.js";
import type { LocalCheck, LocalService } from "./backend.js";

type Json = Record<string, unknown>;

/**
 * api.AgentService as `/v1/agent/services` and `/v1/agent/service/:id` write it: fields in the Go struct's
 * order, omitempty ones left out when empty, and the agent's datacenter.
 */
export function agentServiceJson(s: LocalService, datacenter: string): Json {
  const out: Json = {};
  if (s.Kind !== "") out.Kind = s.Kind;
  out.ID = s.ID;
  out.Service = s.Service;
  out.Tags = [...s.Tags];
  out.Meta = goMap(s.Meta);
  out.Port = s.Port;
  out.Address = s.Address;
  const tagged = Object.keys(s.TaggedAddresses);
  if (tagged.length > 0) out.TaggedAddresses = goMap(s.TaggedAddresses);
  out.Weights = { Passing: s.Weights.Passing, Warning: s.Weights.Warning };
  out.EnableTagOverride = s.EnableTagOverride;
  if (s.Proxy !== null && Object.keys(s.Proxy).length > 0) out.Proxy = proxyJson(s.Proxy);
  if (s.Connect !== null && Object.keys(s.Connect).length > 0) out.Connect = connectJson(s.Connect);
  out.Namespace = scopedNamespace(s.Namespace);
  out.Datacenter = datacenter;
  return out;
}

/** A service's content hash (`/v1/agent/service/:id` sends it as ContentHash and X-Consul-ContentHash). */
export function contentHash(service: Json): string {
  return createHash("sha256").update(JSON.stringify(service)).digest("hex").slice(0, 16);
}

/** structs.HealthCheck as the agent lists it: the catalog's shape with zero indexes. */
export function agentCheckJson(c: LocalCheck): Json {
  return checkJson({ ...c, CreateIndex: 0, ModifyIndex: 0 });
}
