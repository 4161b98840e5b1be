import { type Context, Hono } from "hono";
import { z } from "zod";
import { type Authorizer, allowAll } from "../authorizer.js";
import { readTextLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, HttpError, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { jsonResponse } from "../http/respond.js";
import { decodeBody } from "../json/decode-body.js";

export type KeyringOperation = "list" | "install" | "use" | "remove";

/** One gossip pool's answer, as Consul's KeyringResponse. */
export interface KeyringPoolAnswer {
  WAN: boolean;
  Datacenter: string;
  Segment: string;
  Messages: Record<string, string>;
  Keys: Record<string, number>;
  PrimaryKeys: Record<string, number>;
  NumNodes: number;
  /** Empty when every member of the pool answered and none failed. */
  Error: string;
}

/** What the keyring endpoint needs of the agent's gossip pools. */
export interface KeyringOperator {
  /** Refuses (throws KeyringKeyError) a key that is not base64 of 16, 24 or 32 bytes, before sending anything. */
  keyring(
    op: KeyringOperation,
    key: string | undefined,
    opts: { localOnly: boolean },
  ): Promise<KeyringPoolAnswer[]>;
}

/** A malformed key, refused before any member is asked. */
export class KeyringKeyError extends Error {
  override readonly name = "KeyringKeyError";
}

const keyBody = z.object({ Key: z.string().optional() }).passthrough();

const MAX_BODY = 64 * 1024;

/**
 * `/v1/operator/keyring`, as Consul's agent answers it: GET lists the keys of every pool (WAN first, then
 * the datacenter's LAN; `local-only`: the LAN alone), POST installs a key, PUT makes it primary, DELETE removes it. A pool where a member
 * failed or did not answer turns the answer into a 500 naming the pool and each failing member.
 */
export function keyringRoutes(operator: KeyringOperator, authorizer: Authorizer = allowAll): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const allow = (token: string, ns: string, access: "read" | "write") => {
    if (authorizer.authorize(token, ns, "keyring", "", access) !== "allow") throw permissionDenied();
  };
  const options = (
    query: { get(name: string): string | undefined; has(name: string): boolean },
    list: boolean,
  ) => {
    const relay = query.get("relay-factor");
    if (relay !== undefined && relay !== "") {
      const n = Number(relay);
      if (!/^\d+$/.test(relay) || !Number.isSafeInteger(n))
        throw badRequest(`Error parsing relay factor: ${relay}`);
      if (n > 5) throw badRequest("Relay factor must be in range: [0, 5]");
    }
    const localOnly = parseFlag(query.get("local-only"));
    if (localOnly && !list) throw badRequest("local-only can only be set for list requests");
    return { localOnly };
  };
  const run = async (op: KeyringOperation, key: string | undefined, localOnly: boolean) => {
    try {
      return await operator.keyring(op, key, { localOnly });
    } catch (err) {
      if (err instanceof KeyringKeyError) throw badRequest(err.message);
      throw err;
    }
  };
  const change = (op: Exclude<KeyringOperation, "list">) => async (c: Context<ApiEnv>) => {
    allow(c.get("token"), c.get("namespace"), "write");
    const { localOnly } = options(c.get("query"), false);
    const text = await readTextLimited(c, MAX_BODY, (n) => `Request body too large (${n} bytes)`);
    const body = decodeBody(keyBody, text.trim() === "" ? "{}" : text);
    const answers = await run(op, body.Key ?? "", localOnly);
    failures(answers);
    return c.body(null, 200);
  };

  route(app, "/keyring", {
    GET: async (c) => {
      allow(c.get("token"), c.get("namespace"), "read");
      const { localOnly } = options(c.get("query"), true);
      const answers = await run("list", undefined, localOnly);
      failures(answers);
      return jsonResponse(c, answers.map(wireShape));
    },
    POST: change("install"),
    PUT: change("use"),
    DELETE: change("remove"),
  });
  return app;
}

function parseFlag(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  if (raw === "" || raw === "1" || raw.toLowerCase() === "true") return true;
  if (raw === "0" || raw.toLowerCase() === "false") return false;
  throw badRequest(`Invalid value for local-only: ${raw}`);
}

/** Consul's field order. */
function wireShape(a: KeyringPoolAnswer): Omit<KeyringPoolAnswer, "Error"> {
  return {
    WAN: a.WAN,
    Datacenter: a.Datacenter,
    Segment: a.Segment,
    Messages: a.Messages,
    Keys: a.Keys,
    PrimaryKeys: a.PrimaryKeys,
    NumNodes: a.NumNodes,
  };
}

/** Consul's keyringErrorsOrNil: every pool that reported an error, then each failing member's message. */
function failures(answers: readonly KeyringPoolAnswer[]): void {
  const lines: string[] = [];
  for (const a of answers) {
    if (a.Error === "") continue;
    const pool = a.WAN ? "WAN" : `${a.Datacenter} (LAN)`;
    lines.push(`${pool} error: ${a.Error}`);
    for (const [node, message] of Object.entries(a.Messages)) lines.push(`${node}: ${message}`);
  }
  if (lines.length > 0) throw new HttpError(500, lines.join("\n"));
}
