import { COMMAND_VERSION, type KVEntry, type Read } from "@cairn/fsm";
import { writeJson } from "@cairn/json";
import type { Context } from "hono";
import { Hono } from "hono";
import { filterAllowed } from "../authorizer.js";
import { applyCommand } from "../http/apply.js";
import { blockingAnswer } from "../http/blocking-query.js";
import { readBodyLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest, permissionDenied } from "../http/errors.js";
import { route } from "../http/methods.js";
import { type PreparedAnswer, prepareAnswer, sendPrepared } from "../http/prepared-answer.js";
import type { Query } from "../http/query.js";
import { jsonReadHeaders, type ReadMeta, readMetaHeaders, withLastContact } from "../http/read-meta.js";
import { parseReadOptions } from "../http/read-options.js";
import { booleanResponse } from "../http/respond.js";
import type { RouteContext } from "../http/route-context.js";
import { ViewMemo } from "../http/view-memo.js";
import { encodeKVEntries } from "../kv/encode.js";
import { kvPath } from "../kv/path.js";
import { singleNamespace } from "../middleware/namespace.js";
import { toRaftIndex } from "../schemas/scalars.js";
import { requireSession } from "../session/id.js";

/** /v1/kv/:key — GET (get, recurse, keys, raw), PUT (set, cas, acquire, release), DELETE (key, recurse, cas). */
export function kvRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const handlers = {
    GET: kvGet(ctx),
    PUT: (c: Context<ApiEnv>) => put(ctx, c),
    DELETE: (c: Context<ApiEnv>) => del(ctx, c),
  };
  route(app, "/", handlers);
  route(app, "/*", handlers);
  return app;
}

/**
 * GET /v1/kv: each read runs and each answer is prepared once per store view and question, shared by every
 * waiter that a change wakes (the reads are token-independent; what a token may see is part of the answer's
 * question). The answers are built from what was taken out of the request, never the Context, so a held
 * query keeps none of it.
 */
function kvGet(ctx: RouteContext): (c: Context<ApiEnv>) => Promise<Response> {
  const memo = new ViewMemo<PreparedAnswer>();
  const entries = new ViewMemo<Read<KVEntry | undefined>>();
  const lists = new ViewMemo<Read<KVEntry[]>>();
  const keyLists = new ViewMemo<Read<string[]>>();
  /** The answer to `asked` over `view`, built once and sent with this read's last contact. */
  const shared = (view: object, asked: string, meta: ReadMeta, build: () => PreparedAnswer) =>
    sendPrepared(withLastContact(memo.get(view, asked, build), meta));
  return async (c) => {
    const q = c.get("query");
    const key = kvPath(c.req.url);
    const opts = parseReadOptions(q, ctx.random);
    const ns = c.get("namespace");
    const token = c.get("token");

    if (q.has("keys")) {
      const separator = q.get("separator") ?? q.get("seperator") ?? "";
      const read = question(ns, key, separator);
      return blockingAnswer(
        ctx,
        c,
        opts,
        (v) => keyLists.get(v, read, () => v.kvKeys(key, separator, ns)),
        ({ result, meta, view }) => {
          // Which keys a token may see depends on the token, so it is part of the question.
          const answer = `keys\0${read}${question(token, metaKey(meta))}`;
          return shared(view, answer, meta, () => {
            const allowed = filterAllowed(ctx.authorizer, token, ns, result, keyResource, "read");
            if (allowed.length === 0 && key !== "") return prepareAnswer(404, null, readMetaHeaders(meta));
            return prepareAnswer(200, writeJson(allowed), jsonReadHeaders(meta));
          });
        },
      );
    }

    if (q.has("recurse")) {
      const read = question(ns, key);
      return blockingAnswer(
        ctx,
        c,
        opts,
        (v) => lists.get(v, read, () => v.kvList(key, ns)),
        ({ result, meta, view }) => {
          const answer = `recurse\0${read}${question(token, metaKey(meta))}`;
          return shared(view, answer, meta, () => {
            const allowed = filterAllowed(ctx.authorizer, token, ns, result, entryResource, "read");
            if (allowed.length === 0) return prepareAnswer(404, null, readMetaHeaders(meta));
            return prepareAnswer(200, encodeKVEntries(allowed), jsonReadHeaders(meta));
          });
        },
      );
    }

    if (key === "") throw badRequest("Missing key name");
    singleNamespace(ns);
    if (ctx.authorizer.authorize(token, ns, "key", key, "read") !== "allow") throw permissionDenied();
    const raw = q.has("raw");
    const read = question(ns, key);
    return blockingAnswer(
      ctx,
      c,
      opts,
      (v) => entries.get(v, read, () => v.kvGet(key, ns)),
      ({ result, meta, view }) => {
        // The token was checked above, so everyone allowed to ask gets the same answer.
        const answer = `${raw ? "raw" : "get"}\0${read}${question(metaKey(meta))}`;
        return shared(view, answer, meta, () => {
          if (result === undefined) return prepareAnswer(404, null, readMetaHeaders(meta));
          if (!raw) return prepareAnswer(200, encodeKVEntries([result]), jsonReadHeaders(meta));
          return prepareAnswer(200, (result.Value ?? new Uint8Array(0)) as Uint8Array<ArrayBuffer>, {
            ...readMetaHeaders(meta),
            "Content-Type": "text/plain",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "sandbox",
          });
        });
      },
    );
  };
}

const keyResource = (k: string) => ({ type: "key", name: k }) as const;
const entryResource = (e: KVEntry) => ({ type: "key", name: e.Key }) as const;

/**
 * A memo key made of `parts`, each prefixed with its length: a KV key may hold any character, NUL included,
 * so joining with a separator could make two different questions one.
 */
function question(...parts: string[]): string {
  let out = "";
  for (const part of parts) out += `${part.length}:${part}`;
  return out;
}

/**
 * The parts of the read's metadata that are not already fixed by the store index and go into an answer's
 * memo key; the last contact is not one of them (withLastContact swaps it in per request).
 */
function metaKey(meta: ReadMeta): string {
  return meta.knownLeader ? "1" : "0";
}

/** Consul refuses combinations of mutually exclusive flags with this message. */
function refuseConflicting(q: Query, url: string, flags: readonly string[]): void {
  if (flags.filter((f) => q.has(f)).length > 1) {
    const search = url.includes("?") ? url.slice(url.indexOf("?") + 1) : "";
    const params = new URLSearchParams(search);
    params.sort();
    throw badRequest(`Conflicting flags: ${params.toString()}`);
  }
}

async function put(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const q = c.get("query");
  const key = kvPath(c.req.url);
  const ns = singleNamespace(c.get("namespace"));
  if (key === "") throw badRequest("Missing key name");
  refuseConflicting(q, c.req.url, ["cas", "acquire", "release"]);
  const flags = q.uint64("flags") ?? 0n;
  const cas = optionalIndex(q, "cas");
  const acquire = q.has("acquire") ? requireSession(q.get("acquire") ?? "") : undefined;
  const release = q.has("release") ? requireSession(q.get("release") ?? "") : undefined;
  if (ctx.authorizer.authorize(c.get("token"), ns, "key", key, "write") !== "allow") throw permissionDenied();

  const limit = ctx.config.kvMaxValueBytes;
  const value = await readBodyLimited(
    c,
    limit,
    (size) => `Request body(${size} bytes) too large, max size: ${limit} bytes.`,
  );

  if (acquire !== undefined) {
    const command = {
      v: COMMAND_VERSION,
      type: "kv.lock",
      ns,
      key,
      value,
      flags,
      session: acquire,
      now: ctx.now(),
    } as const;
    // A session that does not exist stays Consul's 500 `invalid session "<id>"`: Patroni recognises a lost
    // session only by that status and text, and creates a new one at once.
    return kvWritten(await applyCommand(ctx, command));
  }
  if (release !== undefined) {
    return kvWritten(
      await applyCommand(ctx, {
        v: COMMAND_VERSION,
        type: "kv.unlock",
        ns,
        key,
        value,
        flags,
        session: release,
      }),
    );
  }
  if (cas !== undefined) {
    return kvWritten(
      await applyCommand(ctx, { v: COMMAND_VERSION, type: "kv.cas", ns, key, value, flags, index: cas }),
    );
  }
  await applyCommand(ctx, { v: COMMAND_VERSION, type: "kv.set", ns, key, value, flags });
  return booleanResponse(true);
}

async function del(ctx: RouteContext, c: Context<ApiEnv>): Promise<Response> {
  const q = c.get("query");
  const key = kvPath(c.req.url);
  const ns = singleNamespace(c.get("namespace"));
  refuseConflicting(q, c.req.url, ["recurse", "cas"]);
  const recurse = q.has("recurse");
  if (!recurse && key === "") throw badRequest("Missing key name");
  const cas = optionalIndex(q, "cas");
  if (ctx.authorizer.authorize(c.get("token"), ns, "key", key, "write") !== "allow") throw permissionDenied();

  if (recurse) {
    await applyCommand(ctx, { v: COMMAND_VERSION, type: "kv.delete-tree", ns, prefix: key });
    return booleanResponse(true);
  }
  if (cas !== undefined) {
    return kvWritten(
      await applyCommand(ctx, { v: COMMAND_VERSION, type: "kv.delete-cas", ns, key, index: cas }),
    );
  }
  await applyCommand(ctx, { v: COMMAND_VERSION, type: "kv.delete", ns, key });
  return booleanResponse(true);
}

/** A KV write's answer: whether it was applied (a check-and-set or lock may not be). */
function kvWritten(result: Awaited<ReturnType<typeof applyCommand>>): Response {
  if (typeof result !== "boolean") throw new Error("a KV write answered something other than true or false");
  return booleanResponse(result);
}

function optionalIndex(q: Query, name: string): number | undefined {
  const value = q.uint64(name);
  return value === undefined ? undefined : toRaftIndex(value);
}
