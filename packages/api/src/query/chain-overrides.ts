import type { ChainOverrides } from "@cairn/discovery";
import { DurationError, formatDuration, parseDurationNs } from "@cairn/duration";
import { z } from "zod";
import { badRequest, HttpError } from "../http/errors.js";
import { decodeBody } from "../json/decode-body.js";

/** Go decodes these weakly: a number or bool protocol becomes its text, a number timeout is nanoseconds. */
const scalar = z.union([z.string(), z.number(), z.boolean()]).nullish();
const meshGateway = z.object({ Mode: scalar }).nullish();

/** The POST body of /v1/discovery-chain/:service, in CamelCase or snake_case. */
const overridesBody = z.object({
  OverrideConnectTimeout: z.union([z.string(), z.number()]).nullish(),
  OverrideProtocol: scalar,
  OverrideMeshGateway: meshGateway,
  override_connect_timeout: z.union([z.string(), z.number()]).nullish(),
  override_protocol: scalar,
  override_mesh_gateway: meshGateway,
});

const MESH_GATEWAY_MODES: ReadonlySet<string> = new Set(["", "none", "local", "remote"]);

export function parseChainOverrides(text: string): ChainOverrides {
  if (text.trim() === "") return {};
  let b: z.output<typeof overridesBody> | null;
  try {
    b = decodeBody(overridesBody.nullable(), text);
  } catch (err) {
    // Consul's wording for this endpoint.
    if (err instanceof HttpError)
      throw badRequest(err.message.replace(/^Request decode failed/, "Request decoding failed"));
    throw err;
  }
  if (b === null) return {};
  const timeout = b.OverrideConnectTimeout ?? b.override_connect_timeout;
  const protocol = b.OverrideProtocol ?? b.override_protocol;
  const mode = (b.OverrideMeshGateway ?? b.override_mesh_gateway)?.Mode;
  let nanos = 0n;
  if (typeof timeout === "string") {
    try {
      nanos = parseDurationNs(timeout);
    } catch (err) {
      if (err instanceof DurationError) throw badRequest(`Request decoding failed: time: ${err.message}`);
      throw err;
    }
  } else if (typeof timeout === "number") nanos = BigInt(Math.trunc(timeout));
  const meshGatewayMode = mode === undefined || mode === null ? "" : String(mode);
  if (!MESH_GATEWAY_MODES.has(meshGatewayMode))
    throw badRequest("Invalid OverrideMeshGateway.Mode parameter");
  return {
    ...(nanos > 0n ? { connectTimeout: { text: formatDuration(nanos), nanos } } : {}),
    ...(protocol === undefined || protocol === null ? {} : { protocol: String(protocol) }),
    ...(meshGatewayMode === "" ? {} : { meshGatewayMode }),
  };
}
