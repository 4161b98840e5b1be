import { SnapshotFormatError } from "@cairn/fsm";
import { Hono } from "hono";
import { stream } from "hono/streaming";
import { requireManagement } from "../acl/request.js";
import { streamBodyLimited } from "../http/body.js";
import type { ApiEnv } from "../http/env.js";
import { badRequest } from "../http/errors.js";
import { route } from "../http/methods.js";
import { setReadMeta } from "../http/read-meta.js";
import { parseReadOptions } from "../http/read-options.js";
import type { RouteContext } from "../http/route-context.js";

/**
 * GET /v1/snapshot streams a point-in-time snapshot of the state out (save); PUT /v1/snapshot replaces the
 * state with an uploaded one (restore). The archive format belongs to the backend.
 */
export function snapshotRoutes(ctx: RouteContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  route(app, "/", {
    GET: async (c) => {
      requireManagement(ctx, c);
      const opts = parseReadOptions(c.get("query"), ctx.random);
      const contact = await ctx.backend.readBarrier(opts.consistency, opts.maxStaleMs);
      const archive = await ctx.backend.snapshotSave();
      setReadMeta(c, { index: archive.index, ...contact });
      c.header("Content-Type", "application/octet-stream");
      const data = archive.data;
      if (data instanceof Uint8Array) return c.body(data as Uint8Array<ArrayBuffer>);
      return stream(c, async (out) => {
        for await (const chunk of data) await out.write(chunk);
      });
    },
    PUT: async (c) => {
      requireManagement(ctx, c);
      // Streamed: the archive is never held whole here (a restore streams through the log in chunks).
      const body = streamBodyLimited(
        c,
        ctx.config.maxSnapshotBytes,
        (size) => `Snapshot too large (${size} > ${ctx.config.maxSnapshotBytes} bytes)`,
      );
      try {
        await ctx.backend.snapshotRestore(body);
      } catch (err) {
        if (err instanceof SnapshotFormatError) throw badRequest(`Invalid snapshot: ${err.message}`);
        throw err;
      }
      return c.body(null, 200);
    },
  });
  return app;
}
