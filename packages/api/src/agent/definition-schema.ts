import { DurationError, parseDurationNs } from "@cairn/duration";
import { z } from "zod";
import { stringList, stringMap } from "../schemas/scalars.js";

/**
 * Service and check definitions as Consul's agent decodes them, from `/v1/agent/service/register`,
 * `/v1/agent/check/register` and the `service`/`check` blocks of configuration files. Field names match
 * case-insensitively after `foldAliases` has turned snake_case spellings into plain ones; unknown fields
 * are ignored and JSON null reads as the zero value, as in Go.
 */

const optString = z.string().nullable().optional();
const int = z.number().int();

/** A Go time.Duration: a duration string or nanoseconds; kept as nanoseconds. */
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

export const checkDefinitionBody = z.looseObject({
  ID: optString,
  CheckID: optString,
  Name: optString,
  Notes: optString,
  ServiceID: optString,
  Status: optString,
  ScriptArgs: stringList.optional(),
  HTTP: optString,
  Header: z.record(z.string(), z.array(z.string())).nullable().optional(),
  Method: optString,
  Body: optString,
  TLSServerName: optString,
  TLSSkipVerify: z.boolean().optional(),
  TCP: optString,
  UDP: optString,
  GRPC: optString,
  GRPCUseTLS: z.boolean().optional(),
  H2PING: optString,
  H2PingUseTLS: z.boolean().optional(),
  DockerContainerID: optString,
  Shell: optString,
  AliasNode: optString,
  AliasService: optString,
  Interval: duration.optional(),
  Timeout: duration.optional(),
  TTL: duration.optional(),
  DeregisterCriticalServiceAfter: duration.optional(),
  SuccessBeforePassing: int.optional(),
  FailuresBeforeCritical: int.optional(),
  FailuresBeforeWarning: int.optional(),
  OutputMaxSize: int.optional(),
  Namespace: optString,
});

const weights = z.looseObject({ Passing: int.optional(), Warning: int.optional() });

export const serviceDefinitionBody = z.looseObject({
  ID: optString,
  Name: optString,
  Tags: stringList.optional(),
  Address: optString,
  TaggedAddresses: z
    .record(z.string(), z.looseObject({ Address: optString, Port: int.optional() }))
    .nullable()
    .optional(),
  Meta: stringMap.optional(),
  Port: int.optional(),
  Kind: optString,
  Proxy: z.record(z.string(), z.unknown()).nullable().optional(),
  Connect: z.record(z.string(), z.unknown()).nullable().optional(),
  EnableTagOverride: z.boolean().optional(),
  Weights: weights.nullable().optional(),
  Check: checkDefinitionBody.nullable().optional(),
  Checks: z.array(checkDefinitionBody).nullable().optional(),
  Namespace: optString,
});

export const checkUpdateBody = z.looseObject({ Status: optString, Output: optString });
export const tokenBody = z.looseObject({ Token: optString });

export type CheckDefinitionBody = z.output<typeof checkDefinitionBody>;
export type ServiceDefinitionBody = z.output<typeof serviceDefinitionBody>;
