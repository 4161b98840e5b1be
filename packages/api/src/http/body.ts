import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { ApiEnv } from "./env.js";
import { nodeRequest } from "./env.js";
import { tooLarge } from "./errors.js";

/** Request bodies whose bytes their maker holds (requests that came through the client tunnel). */
const knownBodies = new WeakMap<Request, Uint8Array>();

/**
 * Marks `request` as carrying `body`: the API takes those bytes as they are instead of streaming them back
 * out of the fetch Request, which cost a forwarded write more than the rest of reading it.
 */
export function withKnownBody(request: Request, body: Uint8Array): Request {
  knownBodies.set(request, body);
  return request;
}

/**
 * Reads the request body, refusing (413) more than `limit` bytes: first by Content-Length, then while
 * streaming, so a chunked upload cannot grow memory past the limit either.
 */
export async function readBodyLimited(
  c: Context,
  limit: number,
  describe: (size: number) => string,
): Promise<Buffer> {
  const incoming = nodeRequest(c.env);
  if (incoming !== undefined && readEarlier(c) === undefined && !knownBodies.has(c.req.raw)) {
    // Node's own header, not Hono's: asking the request for one would build its WHATWG form.
    refuseDeclared(incoming.headers["content-length"], limit, describe);
    return readIncoming(incoming, limit, describe);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of streamBodyLimited(c, limit, describe)) {
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  // Already read by a middleware: those bytes as they are (as before); otherwise one fresh buffer.
  const read = readEarlier(c);
  return read ?? Buffer.concat(chunks, size);
}

/**
 * A Node request's whole body, through its events: every write reads one, and the two async iterators of
 * `streamBodyLimited` cost a small PUT more than the rest of reading it. Past `limit` the rest is drained
 * (not destroyed) so the 413 can go out on the same connection.
 */
function readIncoming(
  incoming: IncomingMessage,
  limit: number,
  describe: (size: number) => string,
): Promise<Buffer> {
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        settle();
        incoming.resume();
        reject(tooLarge(describe(size)));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      settle();
      // A copy, as before: a chunk may be a view into a larger socket buffer that the body would keep alive.
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      settle();
      reject(err);
    };
    // A client that went away before the end: no body will come.
    const onClose = () => {
      settle();
      reject(new Error("the client closed the connection before sending the whole body"));
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

/**
 * The request body as it arrives, under the same limit (the 413 is thrown by the iteration that would
 * pass it). Under @hono/node-server the Node request stream is read directly, which skips building a
 * WHATWG Request for every write.
 */
export async function* streamBodyLimited(
  c: Context,
  limit: number,
  describe: (size: number) => string,
): AsyncGenerator<Uint8Array> {
  // Read already (the request is looked at before its route): the stream is spent, the bytes are here.
  // Or bytes the request's maker held.
  const read = readEarlier(c) ?? knownBodies.get(c.req.raw);
  if (read !== undefined) {
    if (read.byteLength > limit) throw tooLarge(describe(read.byteLength));
    yield read;
    return;
  }
  refuseDeclared(c.req.header("content-length"), limit, describe);
  const incoming = nodeRequest(c.env);
  let size = 0;
  let whole = false;
  if (incoming !== undefined) {
    try {
      // Not the stream's plain iterator: leaving it early (too large, or a consumer that stopped) would
      // destroy the request and with it the socket the error response must go out on.
      for await (const chunk of incoming.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        size += chunk.byteLength;
        if (size > limit) throw tooLarge(describe(size));
        yield chunk;
      }
      whole = true;
    } finally {
      if (!whole) incoming.resume(); // drain the rest so the connection stays usable for the error response
    }
  } else if (c.req.raw.body !== null) {
    const reader = c.req.raw.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) throw tooLarge(describe(size));
        yield value;
      }
      whole = true;
    } finally {
      if (!whole) await reader.cancel();
    }
  }
}

/** The 413 for a body whose Content-Length already says it is past the limit. */
function refuseDeclared(
  contentLength: string | undefined,
  limit: number,
  describe: (size: number) => string,
): void {
  const declared = Number(contentLength ?? "0");
  if (declared > limit) throw tooLarge(describe(declared));
}

/** The body as UTF-8 text, under the same limit. */
export async function readTextLimited(
  c: Context,
  limit: number,
  describe: (size: number) => string,
): Promise<string> {
  return (await readBodyLimited(c, limit, describe)).toString("utf8");
}

/**
 * The body a middleware read before the route (primary-writes sets it). Through `get`, not `c.var`: Hono
 * builds a new object of every variable on each `c.var` access.
 */
function readEarlier(c: Context): Buffer | undefined {
  return (c as Context<ApiEnv>).get("body");
}
