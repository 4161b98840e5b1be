import type { AclTokenRecords } from "@cairn/acl";
import { z } from "zod";

/** How long one resolution may wait for the primary before the down policy decides. */
const RESOLVE_TIMEOUT_MS = 5_000;

const link = z.object({ ID: z.string(), Name: z.string().optional() });
/** The fields of the primary's `/v1/acl/token/self` answer that resolution reads. */
const tokenSelf = z.looseObject({
  AccessorID: z.string(),
  SecretID: z.string(),
  Namespace: z.string().optional(),
  Policies: z.array(link).nullish(),
  Roles: z.array(link).nullish(),
  ServiceIdentities: z
    .array(z.object({ ServiceName: z.string(), Datacenters: z.array(z.string()).nullish() }))
    .nullish(),
  NodeIdentities: z.array(z.object({ NodeName: z.string(), Datacenter: z.string() })).nullish(),
  ExpirationTime: z.string().nullish(),
});

/**
 * A secondary's resolution of a token it does not hold (token replication off), as Consul's servers ask the
 * primary: the token as the primary reads it to its own bearer (`/v1/acl/token/self`, sent by `forward`,
 * the `?dc=` forwarding). Only the token travels: the policies and roles it names are read from this
 * datacenter's replicated ones, which always replicate. Undefined when the primary says the token does not
 * exist; rejects when the primary does not answer (the caller's down policy decides then).
 */
export function primaryTokenResolve(
  forward: (request: Request) => Promise<Response>,
  primary: string,
): (secret: string) => Promise<AclTokenRecords | undefined> {
  return async (secret) => {
    const url = `http://primary/v1/acl/token/self?dc=${encodeURIComponent(primary)}`;
    const response = await forward(
      new Request(url, {
        headers: { "X-Consul-Token": secret },
        signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS),
      }),
    );
    const text = await response.text();
    if (response.status === 403 && text.includes("ACL not found")) return undefined;
    if (response.status !== 200) {
      throw new Error(`primary datacenter ${primary} answered ${response.status}: ${text.trim()}`);
    }
    const token = tokenSelf.parse(JSON.parse(text));
    return { token, policies: [], roles: [], namespaces: {} };
  };
}
