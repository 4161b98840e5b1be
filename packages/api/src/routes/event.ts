import { writeJson } from "@cairn/json";
import type { Context } from "hono";
import { Hono } from "hono";
import { waitForNewHash } from "../agent/hash-wait.js";
import { type EventBackend, eventIndex, type UserEvent, UserEventError } from "../events.js";
import { readBodyLimited } from "../http/body.js";
import { clientGone } from "../http/client-gone.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, HttpError, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { MAX_WAIT_MS, parseReadOptions } from "../http/read-options.js";
import { encodedJsonResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { DEFAULT_NAMESPACE } from "../middleware/namespace.js";

/**
 * /v1/event/fire/:name and /v1/event/list over this agent's event log. Without one (an API not wired to
 * gossip) the list is empty and a fire fails with a 500 naming why.
 */
export function eventRoutes(ctx: RouteContext, events: EventBackend | undefined): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/fire/", {
    PUT: () => {
      throw badRequest("Missing name");
    },
  });
  route(app, "/fire/:name{.+}", { PUT: (c) => fire(ctx, events, c) });
  route(app, "/list", { GET: (c) => list(ctx, events, c) });
  return app;
}

async function fire(ctx: RouteContext, events: EventBackend | undefined, c: Context<ApiEnv>) {
  const name = c.req.param("name") ?? "";
  const q = c.get("query");
  const body = await readBodyLimited(
    c,
    ctx.config.maxBodyBytes,
    (n) => `Request body too large (${n} bytes)`,
  );
  if (!eventAllowed(ctx, c.get("token"), name, "write")) throw permissionDenied();
  if (events === undefined) throw new HttpError(500, "User events are not available on this agent");
  let event: UserEvent;
  try {
    event = events.fire({
      name,
      payload: body.length > 0 ? body : null,
      nodeFilter: q.get("node") ?? "",
      serviceFilter: q.get("service") ?? "",
      tagFilter: q.get("tag") ?? "",
    });
  } catch (err) {
    if (err instanceof UserEventError) throw new HttpError(500, err.message);
    throw err;
  }
  // Consul answers with the request it sent, whose Lamport time is only stamped on delivery.
  return encodedJsonResponse(c, writeJson({ ...event, LTime: 0 }));
}

interface ListAnswer {
  events: readonly UserEvent[];
  /** The blocking index as a string, the "hash" waitForNewHash compares. */
  hash: string;
  filteredByAcl: boolean;
}

async function list(ctx: RouteContext, events: EventBackend | undefined, c: Context<ApiEnv>) {
  const opts = parseReadOptions(c.get("query"), ctx.random);
  const name = c.get("query").get("name") ?? "";
  const token = c.get("token");
  const read = (): ListAnswer => {
    let filteredByAcl = false;
    const visible = (events?.events() ?? []).filter((e) => {
      if (name !== "" && e.Name !== name) return false;
      if (eventAllowed(ctx, token, e.Name, "read")) return true;
      filteredByAcl = true;
      return false;
    });
    const last = visible.at(-1);
    // An empty list reports index 1, not 0, so a watcher does not spin on non-blocking reads.
    return {
      events: visible,
      hash: last === undefined ? "1" : eventIndex(last.ID).toString(),
      filteredByAcl,
    };
  };
  let answer = read();
  if (opts.minIndex > 0n && events !== undefined) {
    // Without `wait` Consul holds an event list for its longest query time, not the usual default.
    const waitMs = (c.get("query").get("wait") ?? "") === "" ? MAX_WAIT_MS : opts.waitMs;
    answer = await waitForNewHash(
      read,
      opts.minIndex.toString(),
      BigInt(Math.round(waitMs * 1e6)),
      () => events.changed(),
      clientGone(c),
    );
  }
  c.header("X-Service-Index", answer.hash);
  c.header("X-Consul-Index", answer.hash);
  // Only told to an identified caller, as Consul, so an anonymous one learns nothing of what it cannot see.
  if (token !== "" && answer.filteredByAcl) {
    c.header("X-Service-Results-Filtered-By-ACLs", "true");
    c.header("X-Consul-Results-Filtered-By-ACLs", "true");
  }
  return encodedJsonResponse(c, `[${answer.events.map(eventJson).join(",")}]`);
}

/** Events are immutable records: each is encoded once however many lists and watchers return it. */
const encoded = new WeakMap<UserEvent, string>();

function eventJson(event: UserEvent): string {
  let json = encoded.get(event);
  if (json === undefined) {
    json = writeJson(event);
    encoded.set(event, json);
  }
  return json;
}

/**
 * Event rules (`event "deploy" { policy = "write" }`) are enforced when ACLs are on. The plain Authorizer
 * seam has no event resource, so without the ACL enforcer every event is allowed, as with ACLs off.
 */
function eventAllowed(ctx: RouteContext, token: string, name: string, access: "read" | "write"): boolean {
  if (ctx.acl === undefined) return true;
  return ctx.acl.forToken(token).authorize(DEFAULT_NAMESPACE, "event", name, access) === "allow";
}
