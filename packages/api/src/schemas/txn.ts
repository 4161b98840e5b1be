import { CATALOG_VERBS, KV_VERBS, type KVVerb, type TxnOp } from "@cairn/fsm";
import { z } from "zod";
import { raftIndex, stringList, stringMap, uint64 } from "./scalars.js";

/** Which optional KV fields each verb requires (spec 2, transaction verb table). */
const KV_REQUIRES: Record<KVVerb, { value?: true; index?: true; session?: true; tree?: true }> = {
  set: { value: true },
  cas: { value: true, index: true },
  lock: { value: true, session: true },
  unlock: { value: true, session: true },
  get: {},
  "get-tree": { tree: true },
  "check-index": { index: true },
  "check-session": { session: true },
  "check-not-exists": {},
  delete: {},
  "delete-tree": { tree: true },
  "delete-cas": { index: true },
};

function verb<T extends readonly [string, ...string[]]>(verbs: T) {
  return z
    .string({ message: "missing Verb" })
    .refine((v): v is T[number] => (verbs as readonly string[]).includes(v), {
      error: (issue) => `unknown verb "${String(issue.input)}"`,
    });
}

/** Go's StdEncoding: padded, no stray characters. Node's decoder alone would accept garbage silently. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const base64Value = z
  .string()
  .nullable()
  .refine((v) => v === null || BASE64.test(v), { message: "Value is not valid base64" })
  .transform((v) => (v === null ? new Uint8Array(0) : new Uint8Array(Buffer.from(v, "base64"))));

const kvOp = z
  .object({
    Verb: verb(KV_VERBS),
    Key: z.string({ message: "missing Key" }),
    Value: base64Value.optional(),
    Flags: uint64.optional(),
    Index: raftIndex.optional(),
    Session: z.string().nullable().optional(),
    Namespace: z.string().nullable().optional(),
  })
  .superRefine((op, ctx) => {
    // Refinements still run after an earlier field failed (zod reports all issues): guard the lookup.
    const needs = Object.hasOwn(KV_REQUIRES, op.Verb) ? KV_REQUIRES[op.Verb as KVVerb] : undefined;
    if (needs === undefined) return;
    if (op.Key === "" && !needs.tree)
      ctx.addIssue({ code: "custom", message: "Missing key name", path: ["Key"] });
    if (needs.value && op.Value === undefined)
      ctx.addIssue({ code: "custom", message: `missing Value for verb "${op.Verb}"`, path: ["Value"] });
    if (needs.index && op.Index === undefined)
      ctx.addIssue({ code: "custom", message: `missing Index for verb "${op.Verb}"`, path: ["Index"] });
    if (needs.session && !op.Session)
      ctx.addIssue({ code: "custom", message: `missing Session for verb "${op.Verb}"`, path: ["Session"] });
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

const nodeOp = z.object({
  Verb: verb(CATALOG_VERBS),
  Node: nodeFields.refine((n) => !!n.Node || !!n.ID, { message: "missing node name or ID" }),
});

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
  Verb: verb(CATALOG_VERBS),
  Node: z.string({ message: "missing Node" }).min(1, "missing Node"),
  Service: serviceFields.refine((s) => !!s.Service || !!s.ID, { message: "missing service name or ID" }),
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
  Node: z.string({ message: "missing Check.Node" }).min(1, "missing Check.Node"),
  CheckID: z.string({ message: "missing Check.CheckID" }).min(1, "missing Check.CheckID"),
  Name: z.string().nullable().optional(),
  Status: z.enum(["passing", "warning", "critical", ""]).optional(),
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

const checkOp = z.object({ Verb: verb(CATALOG_VERBS), Check: checkFields });

/** One element of the request array: exactly one of KV, Node, Service, Check. */
export const txnOpSchema = z
  .object({
    KV: kvOp.optional(),
    Node: nodeOp.optional(),
    Service: serviceOp.optional(),
    Check: checkOp.optional(),
  })
  .refine((op) => [op.KV, op.Node, op.Service, op.Check].filter((x) => x !== undefined).length === 1, {
    message: "each operation needs exactly one of KV, Node, Service or Check",
  });

export const txnBodySchema = z.array(txnOpSchema, { message: "body must be a JSON array of operations" });

export type TxnOpInput = z.output<typeof txnOpSchema>;

/** Drops nulls and undefineds so the command carries only what the client set. */
function compact<T extends Record<string, unknown>>(obj: T): { [K in keyof T]: Exclude<T[K], null> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null && v !== undefined) out[k] = v;
  return out as { [K in keyof T]: Exclude<T[K], null> };
}

/** Converts a validated operation into the state machine's form, filling an empty node DC and KV namespace. */
export function toTxnOp(op: TxnOpInput, datacenter: string, namespace: string): TxnOp {
  if (op.KV) {
    const kv = op.KV;
    return {
      KV: compact({
        Verb: kv.Verb,
        Key: kv.Key,
        Value: kv.Value,
        Flags: kv.Flags,
        Index: kv.Index,
        Session: kv.Session || undefined,
        Namespace: kv.Namespace || namespace,
      }),
    };
  }
  if (op.Node) {
    const n = op.Node.Node;
    return {
      Node: {
        Verb: op.Node.Verb,
        Node: compact({ ...n, Node: n.Node ?? "", Datacenter: n.Datacenter || datacenter }),
      },
    };
  }
  if (op.Service) {
    return {
      Service: {
        Verb: op.Service.Verb,
        Node: op.Service.Node,
        Service: compact({ ...op.Service.Service, Service: op.Service.Service.Service ?? "" }),
      },
    };
  }
  const check = op.Check!;
  return {
    Check: { Verb: check.Verb, Check: compact({ ...check.Check, Status: check.Check.Status || undefined }) },
  };
}
