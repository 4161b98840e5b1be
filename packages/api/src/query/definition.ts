import {
  compileTemplate,
  type PreparedQueryDefinition,
  type ServiceQuery,
  TemplateError,
} from "@cairn/discovery";
import { DurationError, parseDurationNs } from "@cairn/duration";
import type { PreparedQuery, PreparedQuerySpec } from "@cairn/fsm";
import { badRequest } from "../http/errors.js";
import type { PreparedQueryBody } from "./body.js";

/** What a non-management reader sees in place of a query's token, and what may never be stored as one. */
export const REDACTED_TOKEN = "<hidden>";

const META_KEY = /^[a-zA-Z0-9_-]+$/;
const META_MAX_PAIRS = 64;

/** A body as the query it stores: Go's zero values filled in, and Consul's checks made (400 with its reason). */
export function toQuerySpec(body: PreparedQueryBody, id: string): PreparedQuerySpec {
  const s = body.Service ?? {};
  const service: ServiceQuery = {
    Service: s.Service ?? "",
    Failover: { NearestN: s.Failover?.NearestN ?? 0, Datacenters: s.Failover?.Datacenters ?? null },
    IgnoreCheckIDs: s.IgnoreCheckIDs ?? null,
    OnlyPassing: s.OnlyPassing ?? false,
    Near: s.Near ?? "",
    Tags: s.Tags ?? null,
    NodeMeta: s.NodeMeta ?? null,
    ServiceMeta: s.ServiceMeta ?? null,
    Connect: s.Connect ?? false,
  };
  const spec: PreparedQuerySpec = {
    ID: id,
    Name: body.Name ?? "",
    Session: body.Session ?? "",
    Token: body.Token ?? "",
    Template: {
      Type: body.Template?.Type ?? "",
      Regexp: body.Template?.Regexp ?? "",
      RemoveEmptyTags: body.Template?.RemoveEmptyTags ?? false,
    },
    Service: service as unknown as Readonly<Record<string, unknown>>,
    DNS: { TTL: body.DNS?.TTL ?? "" },
  };
  const invalid = queryError(spec, service);
  if (invalid) throw badRequest(`Invalid prepared query: ${invalid}`);
  if (spec.Template.Type !== "") {
    try {
      compileTemplate(toDefinition(spec));
    } catch (err) {
      if (err instanceof TemplateError) throw badRequest(`failed compiling template: ${err.message}`);
      throw err;
    }
  }
  return spec;
}

/** Consul's parseQuery. */
function queryError(q: PreparedQuerySpec, s: ServiceQuery): string | undefined {
  if (q.Name === "" && q.Template.Type === "" && q.Session === "") return "Must be bound to a session";
  if (q.Token === REDACTED_TOKEN) {
    return `Bad Token '${q.Token}', it looks like a query definition with a redacted token was submitted`;
  }
  if (s.Service === "") return "Must provide a Service name to query";
  if (s.Failover.NearestN < 0) return `Bad NearestN '${s.Failover.NearestN}', must be >= 0`;
  const meta = Object.entries(s.NodeMeta ?? {});
  if (meta.length > META_MAX_PAIRS) {
    return `Node metadata cannot contain more than ${META_MAX_PAIRS} key/value pairs`;
  }
  for (const [key, value] of meta) {
    const why =
      key === ""
        ? "Key cannot be blank"
        : !META_KEY.test(key)
          ? "Key contains invalid characters"
          : key.length > 128
            ? "Key is too long (limit: 128 characters)"
            : value.length > 512
              ? "Value is too long (limit: 512 characters)"
              : undefined;
    if (why) return `Couldn't load metadata pair ('${key}', '${value}'): ${why}`;
  }
  if (q.DNS.TTL !== "") {
    let ttl: bigint;
    try {
      ttl = parseDurationNs(q.DNS.TTL);
    } catch (err) {
      if (!(err instanceof DurationError)) throw err;
      return `Bad DNS TTL '${q.DNS.TTL}': time: ${err.message}`;
    }
    if (ttl < 0n) return `DNS TTL '${ttl}', must be >=0`;
  }
  return undefined;
}

/** A stored query as the discovery package reads it (the API stored its Service in that shape). */
export function toDefinition(q: PreparedQuery | PreparedQuerySpec): PreparedQueryDefinition {
  return {
    ID: q.ID,
    Name: q.Name,
    Session: q.Session,
    Token: q.Token,
    Template: q.Template,
    Service: q.Service as unknown as ServiceQuery,
    DNS: q.DNS,
  };
}
