import { DurationError, parseDurationNs } from "@cairn/duration";
import { z } from "zod";
import { stringList, stringMap } from "../schemas/scalars.js";

/**
 * Bodies of PUT /v1/catalog/register and /deregister as Consul's structs decode them: field names match
 * case-insensitively (decodeBody), unknown fields are ignored, JSON null reads as the zero value.
 */

const optString = z.string().nullable().optional();
const int = z.number().int();

/** A Go time.Duration field: a duration string or a number of nanoseconds, kept as nanoseconds. */
const duration = z.union([z.string(), z.number(), z.bigint()]).transform((raw, ctx) => {
  if (typeof raw !== "string") return Number(raw);
  try {
    return Number(parseDurationNs(raw));
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    ctx.addIssue({ code: "custom", message: `time: invalid duration "${raw}"` });
    return z.NEVER;
  }
});

const upstream = z.looseObject({
  DestinationType: optString,
  DestinationNamespace: optString,
  DestinationName: optString,
  Datacenter: optString,
  LocalBindAddress: optString,
  LocalBindPort: int.optional(),
  Config: z.record(z.string(), z.unknown()).nullable().optional(),
  MeshGateway: z.looseObject({ Mode: optString }).nullable().optional(),
});

const proxy = z.looseObject({
  DestinationServiceName: optString,
  DestinationServiceID: optString,
  LocalServiceAddress: optString,
  LocalServicePort: int.optional(),
  Mode: optString,
  Config: z.record(z.string(), z.unknown()).nullable().optional(),
  Upstreams: z.array(upstream).nullable().optional(),
  MeshGateway: z.looseObject({ Mode: optString }).nullable().optional(),
  Expose: z
    .looseObject({ Checks: z.boolean().optional(), Paths: z.array(z.unknown()).nullable().optional() })
    .nullable()
    .optional(),
  TransparentProxy: z.unknown().optional(),
});

export const serviceBody = z.looseObject({
  ID: optString,
  Service: optString,
  Tags: stringList.optional(),
  Address: optString,
  TaggedAddresses: z
    .record(z.string(), z.looseObject({ Address: z.string().nullable().optional(), Port: int.optional() }))
    .nullable()
    .optional(),
  Meta: stringMap.optional(),
  Port: int.optional(),
  Kind: optString,
  Proxy: proxy.nullable().optional(),
  Connect: z.looseObject({ Native: z.boolean().optional() }).nullable().optional(),
  EnableTagOverride: z.boolean().optional(),
  Weights: z.looseObject({ Passing: int, Warning: int }).nullable().optional(),
  Namespace: optString,
});

const definitionBody = z.looseObject({
  HTTP: optString,
  TLSServerName: optString,
  TLSSkipVerify: z.boolean().optional(),
  Header: z.record(z.string(), z.array(z.string())).nullable().optional(),
  Method: optString,
  Body: optString,
  TCP: optString,
  H2PING: optString,
  Interval: duration.optional(),
  OutputMaxSize: int.optional(),
  Timeout: duration.optional(),
  DeregisterCriticalServiceAfter: duration.optional(),
  ScriptArgs: stringList.optional(),
  DockerContainerID: optString,
  Shell: optString,
  GRPC: optString,
  GRPCUseTLS: z.boolean().optional(),
  AliasNode: optString,
  AliasService: optString,
  TTL: duration.optional(),
});

export const checkBody = z.looseObject({
  Node: optString,
  CheckID: optString,
  Name: optString,
  Status: optString,
  Notes: optString,
  Output: optString,
  ServiceID: optString,
  Type: optString,
  Definition: definitionBody.nullable().optional(),
  Namespace: optString,
});

export const registerBody = z.looseObject({
  ID: optString,
  Node: optString,
  Address: optString,
  Datacenter: optString,
  TaggedAddresses: stringMap.optional(),
  NodeMeta: stringMap.optional(),
  Service: serviceBody.nullable().optional(),
  Check: checkBody.nullable().optional(),
  Checks: z.array(checkBody).nullable().optional(),
  SkipNodeUpdate: z.boolean().optional(),
  Namespace: optString,
});

export const deregisterBody = z.looseObject({
  Node: optString,
  Datacenter: optString,
  ServiceID: optString,
  CheckID: optString,
  Namespace: optString,
});

export type RegisterBody = z.output<typeof registerBody>;
export type ServiceBody = z.output<typeof serviceBody>;
export type CheckBody = z.output<typeof checkBody>;
export type DeregisterBody = z.output<typeof deregisterBody>;
