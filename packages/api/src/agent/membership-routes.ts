import { type Context, Hono } from "hono";
import { type Authorizer, allowAll, filterAllowed } from "../authorizer.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, notFound, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";

/** One gossip member as `/v1/agent/members` shows it (serf.Member's JSON; Status 0 none .. 4 failed). */
export interface AgentMemberJson {
  Name: string;
  Addr: string;
  Port: number;
  Tags: Record<string, string>;
  Status: number;
  ProtocolMin: number;
  ProtocolMax: number;
  ProtocolCur: number;
  DelegateMin: number;
  DelegateMax: number;
  DelegateCur: number;
}

/** What the membership endpoints need from the agent's gossip pools. */
export interface MembershipBackend {
  /** The LAN pool, or (servers) the WAN pool; `segment` "" or `_all`. */
  members(opts: { wan: boolean; segment?: string }): AgentMemberJson[];
  /** Joins the pool through `address`; throws MembershipRequestError when it cannot (bad address, no answer). */
  join(address: string, opts: { wan: boolean }): Promise<void>;
  /** Graceful leave of every pool, then the agent shuts down (after this resolves, so the answer gets out). */
  leave(): Promise<void>;
  /** A failed member becomes left (and, with prune, is forgotten); false when nothing changed. */
  forceLeave(node: string, opts: { prune: boolean; wan: boolean }): boolean;
}

/** A membership request the agent refused (an address nobody answers at, a WAN join on a client): a 400. */
export class MembershipRequestError extends Error {
  override readonly name = "MembershipRequestError";
}

export interface MembershipRoutesOptions {
  /** This agent's node name: the resource of agent:write. */
  nodeName: string;
  authorizer?: Authorizer;
}

const ALL_SEGMENTS = "_all";

/**
 * /v1/agent/{members,join,leave,force-leave}, mounted at /v1/agent, answering as Consul 1.15 does: members
 * are filtered by node:read, join and leave need agent:write, force-leave operator:write.
 */
export function membershipRoutes(backend: MembershipBackend, options: MembershipRoutesOptions): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const authorizer = options.authorizer ?? allowAll;
  const allow = (c: Context<ApiEnv>, type: "agent" | "operator", name: string) => {
    if (authorizer.authorize(c.get("token"), c.get("namespace"), type, name, "write") !== "allow")
      throw permissionDenied();
  };
  // Consul reads `wan` on members and join as "any non-empty value", on force-leave as "present".
  const wanValue = (c: Context<ApiEnv>) => (c.get("query").get("wan") ?? "") !== "";
  const refused = (err: unknown): never => {
    if (err instanceof MembershipRequestError) throw badRequest(err.message);
    throw err;
  };

  route(app, "/members", {
    GET: (c) => {
      const wan = wanValue(c);
      const segment = c.get("query").get("segment") ?? "";
      if (wan && segment !== "" && segment !== ALL_SEGMENTS)
        throw badRequest("Cannot provide a segment with wan=true");
      if (segment !== "" && segment !== ALL_SEGMENTS)
        throw badRequest("Network segments are not supported in this version of Consul");
      const members = backend.members({ wan, segment });
      const visible = filterAllowed(
        authorizer,
        c.get("token"),
        c.get("namespace"),
        members,
        (m) => ({ type: "node", name: m.Name }),
        "read",
      );
      if (visible.length < members.length) {
        c.header("X-Service-Results-Filtered-By-ACLs", "true");
        c.header("X-Consul-Results-Filtered-By-ACLs", "true");
      }
      return jsonResponse(c, visible);
    },
  });

  route(app, "/join/:address{.+}", {
    PUT: async (c) => {
      allow(c, "agent", options.nodeName);
      const address = c.req.param("address") ?? "";
      await backend.join(address, { wan: wanValue(c) }).catch(refused);
      return c.body(null, 200);
    },
  });
  for (const bare of ["/join", "/join/"]) {
    route(app, bare, {
      PUT: () => {
        throw badRequest("Missing address to join");
      },
    });
  }

  route(app, "/leave", {
    PUT: async (c) => {
      allow(c, "agent", options.nodeName);
      await backend.leave();
      return c.body(null, 200);
    },
  });

  route(app, "/force-leave/:node{.+}", {
    PUT: (c) => {
      allow(c, "operator", "");
      const node = c.req.param("node") ?? "";
      const wan = c.get("query").has("wan");
      // Consul refuses a name it does not know (with a 500; a 404 says what happened).
      if (!backend.members({ wan, segment: ALL_SEGMENTS }).some((m) => m.Name === node))
        throw notFound(`agent: No node found with name '${node}'`);
      backend.forceLeave(node, { prune: c.get("query").has("prune"), wan });
      return c.body(null, 200);
    },
  });
  for (const bare of ["/force-leave", "/force-leave/"]) {
    route(app, bare, {
      PUT: () => {
        throw badRequest("Missing node name");
      },
    });
  }
  return app;
}
