import { z } from "zod";

/** The primary's ACL list answers, as far as replication reads them (unknown fields are ignored). */

const link = z.object({ ID: z.string() });
const links = z
  .array(link)
  .nullish()
  .transform((v) => v ?? []);
const serviceIdentities = z
  .array(z.object({ ServiceName: z.string(), Datacenters: z.array(z.string()).nullish() }))
  .nullish()
  .transform((v) =>
    (v ?? []).map((s) =>
      s.Datacenters?.length
        ? { ServiceName: s.ServiceName, Datacenters: s.Datacenters }
        : { ServiceName: s.ServiceName },
    ),
  );
const nodeIdentities = z
  .array(z.object({ NodeName: z.string(), Datacenter: z.string() }))
  .nullish()
  .transform((v) => (v ?? []).map((n) => ({ NodeName: n.NodeName, Datacenter: n.Datacenter })));
const strings = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);
const ns = z
  .string()
  .nullish()
  .transform((v) => v || "default");

export const policyStubs = z.array(
  z.object({ ID: z.string(), Name: z.string(), Hash: z.string().nullish() }),
);

export const remotePolicy = z.object({
  ID: z.string(),
  Name: z.string(),
  Description: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  Rules: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  Datacenters: strings,
  Namespace: ns,
});

export const remoteRoles = z.array(
  z.object({
    ID: z.string(),
    Name: z.string(),
    Description: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
    Policies: links,
    ServiceIdentities: serviceIdentities,
    NodeIdentities: nodeIdentities,
    Namespace: ns,
  }),
);

export const remoteTokens = z.array(
  z.object({
    AccessorID: z.string(),
    SecretID: z.string(),
    Description: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
    Policies: links,
    Roles: links,
    ServiceIdentities: serviceIdentities,
    NodeIdentities: nodeIdentities,
    Local: z
      .boolean()
      .nullish()
      .transform((v) => v ?? false),
    AuthMethod: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
    AuthMethodNamespace: z.string().nullish(),
    ExpirationTime: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
    Rules: z
      .string()
      .nullish()
      .transform((v) => v ?? ""),
    CreateTime: z.string().nullish(),
    Namespace: ns,
  }),
);

/** A list answer in the expected shape, or an error naming what the primary sent. */
export function decodeList<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new Error(
      `unexpected ${what} from the primary datacenter: ${parsed.error.issues[0]?.message ?? "malformed"}`,
    );
  }
  return parsed.data;
}
