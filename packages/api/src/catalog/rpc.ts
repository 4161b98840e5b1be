import { DEFAULT_NAMESPACE } from "@cairn/fsm";
import { DEFAULT_API_CONFIG } from "../backend.js";
import { tooLarge } from "../http/errors.js";
import { decodeBody } from "../json/decode-body.js";
import { requireLocalDatacenter } from "../middleware/datacenter.js";
import { deregisterBody, registerBody } from "./register-body.js";
import { type CatalogWriteContext, deregisterEntry, registerEntry } from "./writes.js";

/** The catalog writes a client agent makes, by the names of Consul's RPCs. */
export type CatalogRpc = "Catalog.Register" | "Catalog.Deregister";

export function isCatalogRpc(name: unknown): name is CatalogRpc {
  return name === "Catalog.Register" || name === "Catalog.Deregister";
}

/**
 * A catalog write as an RPC carries it (a client agent's anti-entropy, through the tunnel): the JSON body
 * the HTTP endpoint takes, decoded, validated, authorized with `token` and applied by the endpoint's own
 * code. The RPC names no namespace of its own: what the body leaves unnamed is the default namespace, as a
 * Consul agent's RPC leaves it; and it is made in this datacenter, never forwarded.
 */
export async function catalogRpc(
  ctx: CatalogWriteContext,
  rpc: CatalogRpc,
  text: string,
  token: string,
): Promise<void> {
  const size = Buffer.byteLength(text);
  if (size > DEFAULT_API_CONFIG.maxBodyBytes) throw tooLarge(`Request body too large (${size} bytes)`);
  const caller = { token, requestNamespace: undefined, fallbackNamespace: DEFAULT_NAMESPACE };
  if (rpc === "Catalog.Register") {
    const body = decodeBody(registerBody, text);
    requireLocalDatacenter(body.Datacenter ?? undefined, ctx.datacenter);
    await registerEntry(ctx, body, caller);
  } else {
    const body = decodeBody(deregisterBody, text);
    requireLocalDatacenter(body.Datacenter ?? undefined, ctx.datacenter);
    await deregisterEntry(ctx, body, caller);
  }
}
