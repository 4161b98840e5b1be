import { Hono } from "hono";
import { type Authorizer, allowAll } from "../authorizer.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import { type AutopilotOperator, autopilotRoutes } from "./operator-autopilot.js";

/** One server of the Raft configuration, in Consul's field names (ProtocolVersion is added by the route). */
export interface RaftServerView {
  ID: string;
  /** Node name, "(unknown)" when the server is not in the catalog yet. */
  Node: string;
  Address: string;
  Leader: boolean;
  Voter: boolean;
  /** The server's last log index as the leader knows it; absent when not known. */
  LastIndex?: number;
}

export interface RaftConfigurationView {
  Servers: RaftServerView[];
  /** Raft index the configuration was read at. */
  Index: number;
}

/** What the operator endpoints need from the server; the agent implements it over Raft. */
export interface RaftOperator extends AutopilotOperator {
  /** `stale`: answer from this server's view without asking the leader. */
  configuration(stale: boolean): Promise<RaftConfigurationView>;
  removePeer(peer: { id: string } | { address: string }): Promise<void>;
  /** Hand leadership to `id`, or to the best other voter when undefined. */
  transferLeader(id: string | undefined): Promise<void>;
}

/** A request the operator seam refused (an unknown peer, nobody to transfer to): a 400 with its message. */
export class RaftOperatorError extends Error {
  override readonly name = "RaftOperatorError";
}

/** /v1/operator/raft/{configuration,peer,transfer-leader} and /v1/operator/autopilot/*, as Consul 1.15 answers them. */
export function operatorRoutes(operator: RaftOperator, authorizer: Authorizer = allowAll): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const allow = (token: string, ns: string, access: "read" | "write") => {
    if (authorizer.authorize(token, ns, "operator", "", access) !== "allow") throw permissionDenied();
  };
  const refused = (err: unknown): never => {
    if (err instanceof RaftOperatorError) throw badRequest(err.message);
    throw err;
  };

  route(app, "/raft/configuration", {
    GET: async (c) => {
      allow(c.get("token"), c.get("namespace"), "read");
      const conf = await operator.configuration(c.get("query").has("stale"));
      return jsonResponse(c, {
        Servers: conf.Servers.map((s) => ({
          ID: s.ID,
          Node: s.Node,
          Address: s.Address,
          Leader: s.Leader,
          ProtocolVersion: "3",
          Voter: s.Voter,
          ...(s.LastIndex === undefined ? {} : { LastIndex: s.LastIndex }),
        })),
        Index: conf.Index,
      });
    },
  });

  route(app, "/raft/peer", {
    DELETE: async (c) => {
      allow(c.get("token"), c.get("namespace"), "write");
      const id = c.get("query").get("id") ?? "";
      const address = c.get("query").get("address") ?? "";
      if (id === "" && address === "") {
        throw badRequest(
          "Must specify either ?id with the server's ID or ?address with IP:port of peer to remove",
        );
      }
      await operator.removePeer(id !== "" ? { id } : { address }).catch(refused);
      return c.body(null, 200);
    },
  });

  route(app, "/raft/transfer-leader", {
    POST: async (c) => {
      allow(c.get("token"), c.get("namespace"), "write");
      const id = c.get("query").get("id") || undefined;
      await operator.transferLeader(id).catch(refused);
      return jsonResponse(c, { Success: true });
    },
  });

  autopilotRoutes(app, operator, allow);
  return app;
}
