import type { CatalogVerb, HealthStatus, KVVerb, TxnOp } from "@cairn/fsm";
import { z } from "zod";
import { raftIndex, stringList, stringMap, uint64 } from "./scalars.js";

/**
 * The shape of a /v1/txn body: field types only, as Go decodes it into Consul's structs. A type mismatch
 * makes the body undecodable (400); what is missing or unknown (verbs, keys, sessions...) is a problem of
 * one operation, reported by OpIndex (see txn/problems.ts).
 */
/** Go's StdEncoding: padded, no stray characters. Node's decoder alone would accept garbage silently. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const base64Value = z
  .string()
  .nullable()
  .refine((v) => v === null || BASE64.test(v), { message: "Value is not valid base64" })
  .transform((v) => (v === null ? new Uint8Array(0) : new Uint8Array(Buffer.from(v, "base64"))));

const verbField = z.string().nullable().optional();

const kvOp = z.object({
  Verb: verbField,
  Key: z.string().nullable().optional(),
  Value: base64Value.optional(),
  Flags: uint64.optional(),
  Index: raftIndex.optional(),
  Session: z.string().nullable().optional(),
  Namespace: z.string().nullable().optional(),
});

const nodeFields = z.object({
  ID: z.string().nullable().optional(),
  Node: z.string().nullable().optional(),
  Address: z.string().nullable().optional(),
  Datacenter: z.string().nullable().optional(),
  TaggedAddresses: stringMap.optional(),
  Meta: stringMap.optional(),
  ModifyIndex: raftIndex.optional(),
});

const nodeOp = z.object({ Verb: verbField, Node: nodeFields.nullable().optional() });

const serviceFields = z.looseObject({
  ID: z.string().nullable().optional(),
  Service: z.string().nullable().optional(),
  Tags: stringList.optional(),
  Address: z.string().nullable().optional(),
  TaggedAddresses: z
    .record(z.string(), z.object({ Address: z.string(), Port: z.number().int() }))
    .nullable()
    .optional(),
  Meta: stringMap.optional(),
  Port: z.number().int().optional(),
  Kind: z.string().nullable().optional(),
  Proxy: z.record(z.string(), z.unknown()).nullable().optional(),
  Connect: z.record(z.string(), z.unknown()).nullable().optional(),
  EnableTagOverride: z.boolean().optional(),
  Weights: z.object({ Passing: z.number().int(), Warning: z.number().int() }).nullable().optional(),
  Namespace: z.string().nullable().optional(),
  ModifyIndex: raftIndex.optional(),
});

const serviceOp = z.object({
  Verb: verbField,
  Node: z.string().nullable().optional(),
  Service: serviceFields.nullable().optional(),
});

const checkDefinition = z.looseObject({
  HTTP: z.string().optional(),
  TLSSkipVerify: z.boolean().optional(),
  Header: z.record(z.string(), z.array(z.string())).nullable().optional(),
  Method: z.string().optional(),
  Body: z.string().optional(),
  TCP: z.string().optional(),
  Interval: z.union([z.string(), z.number()]).optional(),
  Timeout: z.union([z.string(), z.number()]).optional(),
  DeregisterCriticalServiceAfter: z.union([z.string(), z.number()]).optional(),
});

const checkFields = z.object({
  Node: z.string().nullable().optional(),
  CheckID: z.string().nullable().optional(),
  Name: z.string().nullable().optional(),
  Status: z.string().nullable().optional(),
  Notes: z.string().nullable().optional(),
  Output: z.string().nullable().optional(),
  ServiceID: z.string().nullable().optional(),
  ServiceName: z.string().nullable().optional(),
  ServiceTags: stringList.optional(),
  Type: z.string().nullable().optional(),
  Definition: checkDefinition.nullable().optional(),
  Namespace: z.string().nullable().optional(),
  ModifyIndex: raftIndex.optional(),
});

const checkOp = z.object({ Verb: verbField, Check: checkFields.nullable().optional() });

/** One element of the request array; that it holds exactly one of KV, Node, Service, Check is a problem of its own. */
export const txnOpSchema = z.object({
  KV: kvOp.nullable().optional(),
  Node: nodeOp.nullable().optional(),
  Service: serviceOp.nullable().optional(),
  Check: checkOp.nullable().optional(),
});

export const txnBodySchema = z.array(txnOpSchema, { message: "body must be a JSON array of operations" });

export type TxnOpInput = z.output<typeof txnOpSchema>;

/** Drops nulls and undefineds so the command carries only what the client set. */
function compact<T extends Record<string, unknown>>(obj: T): { [K in keyof T]: Exclude<T[K], null> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], null> };
}

/**
 * Converts an operation txn/problems.ts found nothing wrong with into the state machine's form, filling
 * an empty node DC and KV namespace.
 */
export function toTxnOp(op: TxnOpInput, datacenter: string, namespace: string): TxnOp {
  if (op.KV) {
    const kv = op.KV;
    return {
      KV: compact({
        Verb: kv.Verb as KVVerb,
        Key: kv.Key ?? "",
        Value: kv.Value,
        Flags: kv.Flags,
        Index: kv.Index,
        Session: kv.Session || undefined,
        Namespace: kv.Namespace || namespace,
      }),
    };
  }
  if (op.Node) {
    const n = op.Node.Node ?? {};
    return {
      Node: {
        Verb: op.Node.Verb as CatalogVerb,
        Node: compact({ ...n, Node: n.Node ?? "", Datacenter: n.Datacenter || datacenter }),
      },
    };
  }
  if (op.Service) {
    const service = op.Service.Service ?? {};
    return {
      Service: {
        Verb: op.Service.Verb as CatalogVerb,
        Node: op.Service.Node ?? "",
        Service: compact({ ...service, Service: service.Service ?? "" }),
      },
    };
  }
  const check = op.Check!;
  const fields = check.Check ?? {};
  return {
    Check: {
      Verb: check.Verb as CatalogVerb,
      Check: compact({
        ...fields,
        Node: fields.Node ?? "",
        CheckID: fields.CheckID || fields.Name || "",
        Status: (fields.Status || undefined) as HealthStatus | undefined,
      }),
    },
  };
}
