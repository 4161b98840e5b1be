import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { tooLarge } from "./errors.js";

/**
 * Reads the request body, refusing (413) more than `limit` bytes: first by Content-Length, then while
 * streaming, so a chunked upload cannot grow memory past the limit either. Under @hono/node-server the
 * Node request stream is read directly, which skips building a WHATWG Request for every write.
 */
export async function readBodyLimited(
  c: Context,
  limit: number,
  describe: (size: number) => string,
): Promise<Buffer> {
  // Read already (the request is looked at before its route): the stream is spent, the bytes are here.
  const read = (c.var as { body?: Buffer }).body;
  if (read !== undefined) {
    if (read.byteLength > limit) throw tooLarge(describe(read.byteLength));
    return read;
  }
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit) throw tooLarge(describe(declared));
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const take = (chunk: Uint8Array): boolean => {
    size += chunk.byteLength;
    if (size > limit) return false;
    chunks.push(chunk);
    return true;
  };
  if (incoming !== undefined) {
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      if (!take(chunk)) {
        incoming.resume(); // drain the rest so the connection stays usable for the error response
        throw tooLarge(describe(size));
      }
    }
  } else if (c.req.raw.body !== null) {
    const reader = c.req.raw.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!take(value)) {
        await reader.cancel();
        throw tooLarge(describe(size));
      }
    }
  }
  return Buffer.concat(chunks, size);
}

/** The body as UTF-8 text, under the same limit. */
export async function readTextLimited(
  c: Context,
  limit: number,
  describe: (size: number) => string,
): Promise<string> {
  return (await readBodyLimited(c, limit, describe)).toString("utf8");
}
