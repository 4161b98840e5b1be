import { z } from "zod";

/** zod schemas of the ACL and namespace request bodies (field names as Consul's structs; nulls allowed). */

const str = z.string().nullish();
export const linkSchema = z.object({ ID: str, Name: str });
const links = z.array(linkSchema).nullish();
const serviceIdentity = z.object({
  ServiceName: z.string().nullish(),
  Datacenters: z.array(z.string()).nullish(),
});
const nodeIdentity = z.object({ NodeName: z.string().nullish(), Datacenter: z.string().nullish() });

export const tokenBody = z.object({
  AccessorID: str,
  SecretID: str,
  Description: str,
  Policies: links,
  Roles: links,
  ServiceIdentities: z.array(serviceIdentity).nullish(),
  NodeIdentities: z.array(nodeIdentity).nullish(),
  Local: z.boolean().nullish(),
  AuthMethod: str,
  ExpirationTime: str,
  ExpirationTTL: z.union([z.string(), z.number()]).nullish(),
  Namespace: str,
});
export type TokenBody = z.output<typeof tokenBody>;

export const cloneBody = z.object({ Description: str, Namespace: str });

export const policyBody = z.object({
  ID: str,
  Name: str,
  Description: str,
  Rules: str,
  Datacenters: z.array(z.string()).nullish(),
  Namespace: str,
});
export type PolicyBody = z.output<typeof policyBody>;

export const roleBody = z.object({
  ID: str,
  Name: str,
  Description: str,
  Policies: links,
  ServiceIdentities: z.array(serviceIdentity).nullish(),
  NodeIdentities: z.array(nodeIdentity).nullish(),
  Namespace: str,
});
export type RoleBody = z.output<typeof roleBody>;

export const legacyTokenBody = z.object({
  ID: str,
  Name: str,
  Type: str,
  Rules: str,
});
export type LegacyTokenBody = z.output<typeof legacyTokenBody>;

export const namespaceBody = z.object({
  Name: str,
  Description: str,
  ACLs: z.object({ PolicyDefaults: links, RoleDefaults: links }).nullish(),
  Meta: z.record(z.string(), z.string()).nullish(),
});
export type NamespaceBody = z.output<typeof namespaceBody>;
