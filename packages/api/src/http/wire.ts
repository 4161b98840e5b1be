import { ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { KnownForm } from "./known-form.js";

/**
 * Writing an answer whose status, headers and body are all known (known-form.ts) to an HTTP/1.1 connection
 * as one buffer rendered once: a memoized answer (prepared-answer.ts) is rendered once per second, the Date
 * line being the only part that changes, and every request it answers costs one socket write. A body over
 * 4 KiB is not copied into that buffer but follows it in the same corked write (COPIED_BODY_BYTES).
 *
 * Why not `writeHead` and `end`: Node validates and joins every header of every response again and writes
 * the head and the body as two chunks. When a change wakes 10,000 blocking queries with the same answer,
 * that was most of the server's time after the write syscalls themselves: a bare server answering 10,000 held
 * requests with Cairn's headers and body through `writeHead`/`end` took 1.9× as long as one writing them as
 * one pre-rendered buffer (`scripts/bench/node-writes.ts`, bench/results/2026-11-27-wire-answers.md).
 *
 * Node's response still ends the exchange (`end()` with its head marked written), so keep-alive timers,
 * pipelined requests and `finish`/`close` events behave as for any other response. Only the plain case is
 * taken: a keep-alive HTTP/1.1 exchange, not HEAD, Node's default Date and Keep-Alive handling, and
 * headers that leave Node nothing to decide; everything else goes out through Node as before.
 */

/** The fields of Node's ServerResponse this relies on (present since Node's early releases). */
interface NodeResponse extends ServerResponse {
  _header: string | null;
  _headerSent: boolean;
  _keepAliveTimeout?: unknown;
  _defaultKeepAlive?: unknown;
  _maxRequestsPerSocket?: unknown;
  maxRequestsOnConnectionReached?: unknown;
}

/** Headers Node writes itself, or that change how it frames or ends the exchange. */
const NODE_DECIDES = new Set([
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "date",
  "trailer",
  "upgrade",
  "expect",
]);

/** RFC 9110 token characters (a header name), and what a value may not hold: Node's own checks. */
const NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

interface Rendered {
  /** Date.now() / 1000 when rendered: the Date line's second. */
  second: number;
  keepAliveSeconds: number;
  /** The head, and the body too unless `body` is set. */
  bytes: Buffer;
  /** A body written after the head rather than copied in with it (a large one). */
  body?: Uint8Array;
}

/** The rendering of each reusable answer, for as long as the answer lives. */
const rendered = new WeakMap<KnownForm, Rendered>();

/**
 * Writes `form` to the Node response in `env` (@hono/node-server's) as one pre-rendered buffer and ends it;
 * false, having written nothing, when the exchange is not the plain case this handles.
 */
export function writeWire(env: unknown, form: KnownForm, now = Date.now()): boolean {
  const res = (env as { outgoing?: unknown } | undefined)?.outgoing;
  if (!(res instanceof ServerResponse)) return false;
  const out = res as NodeResponse;
  const keepAliveSeconds = plainKeepAlive(out);
  if (keepAliveSeconds === undefined || !writable(form)) return false;
  const second = Math.floor(now / 1000);
  let wire = rendered.get(form);
  if (wire === undefined || wire.second !== second || wire.keepAliveSeconds !== keepAliveSeconds) {
    const parts = render(form, second, keepAliveSeconds);
    if (parts === undefined) return false;
    wire = { second, keepAliveSeconds, ...parts };
    if (form.reusable) rendered.set(form, wire);
  }
  const socket = out.socket as Socket;
  if (wire.body === undefined) socket.write(wire.bytes);
  else {
    // Corked: the head and the body leave in one writev, as Node sends a head and a Buffer body.
    socket.cork();
    socket.write(wire.bytes);
    socket.write(wire.body);
    socket.uncork();
  }
  out.statusCode = form.status;
  // The head is on the wire: Node's end() then only finishes the exchange (no bytes of its own to write).
  out._header = "(written by wire.ts)";
  out._headerSent = true;
  out.end();
  return true;
}

/**
 * The Keep-Alive timeout in seconds Node would announce, or undefined unless this is a keep-alive HTTP/1.1
 * exchange that owns its socket, has written nothing, and leaves Connection and Keep-Alive to Node.
 */
function plainKeepAlive(out: NodeResponse): number | undefined {
  const socket = out.socket as (Socket & { _httpMessage?: unknown }) | null;
  // A socket that is gone, or that serves an earlier pipelined request first, is left to Node.
  if (socket === null || socket.destroyed || socket._httpMessage !== out) return undefined;
  if (out._header !== null || out.headersSent || out.writableEnded) return undefined;
  if (out.req.method === "HEAD" || out.req.httpVersion !== "1.1" || !out.sendDate) return undefined;
  if (out.shouldKeepAlive !== true || out.maxRequestsOnConnectionReached === true) return undefined;
  // A zero timeout (keep-alive without a limit) has Node write no Keep-Alive line: left to Node.
  if (
    out._defaultKeepAlive !== true ||
    typeof out._keepAliveTimeout !== "number" ||
    out._keepAliveTimeout <= 0
  )
    return undefined;
  if (typeof out._maxRequestsPerSocket === "number" && out._maxRequestsPerSocket > 0) return undefined;
  // Headers set on the Node response itself (nothing here does) would be lost.
  if (out.getHeaderNames().length > 0) return undefined;
  return Math.floor(out._keepAliveTimeout / 1000);
}

function writable(form: KnownForm): form is KnownForm & { headers: Readonly<Record<string, string>> } {
  const { status } = form;
  return (
    form.headers !== undefined &&
    status >= 200 &&
    status <= 599 &&
    status !== 204 &&
    status !== 205 &&
    status !== 304
  );
}

/**
 * Status line, the answer's headers, Node's own and a blank line, followed by the body in the same buffer
 * when it is small; undefined if a header is unfit.
 */
function render(
  form: KnownForm & { headers: Readonly<Record<string, string>> },
  second: number,
  keepAliveSeconds: number,
): Pick<Rendered, "bytes" | "body"> | undefined {
  const body = typeof form.body === "string" ? Buffer.from(form.body) : (form.body ?? EMPTY);
  let head = `HTTP/1.1 ${form.status} ${STATUS_CODES[form.status] ?? "unknown"}\r\n`;
  for (const name in form.headers) {
    const value = form.headers[name] as string;
    if (!fitName(name) || BAD_VALUE.test(value)) return undefined;
    head += `${name}: ${value}\r\n`;
  }
  head += `${dateLine(second)}Connection: keep-alive\r\n`;
  head += `Keep-Alive: timeout=${keepAliveSeconds}\r\nContent-Length: ${body.byteLength}\r\n\r\n`;
  // Header values are Latin-1 on the wire, as Node writes them: one byte per character.
  if (body.byteLength > COPIED_BODY_BYTES) return { bytes: Buffer.from(head, "latin1"), body };
  const bytes = Buffer.allocUnsafe(head.length + body.byteLength);
  bytes.write(head, 0, "latin1");
  bytes.set(body, head.length);
  return { bytes };
}

/**
 * The largest body copied into the head's buffer. Past this, Node's buffer pool no longer serves the
 * allocation, and a copy per answer is a fresh buffer as large as the body: a health read of 450 instances
 * (328 KB) copied for each of thousands of requests a second held V8's collector on the external memory
 * and served 4x fewer (bench/results/2026-11-27-large-answers.md).
 */
const COPIED_BODY_BYTES = Buffer.poolSize >>> 1;

/**
 * Whether a header name may go out here: a token that leaves Node nothing to decide. The names come from a
 * few dozen places in the code, so each is checked once (a follower renders its stale reads per request).
 */
function fitName(name: string): boolean {
  let fit = fitNames.get(name);
  if (fit === undefined) {
    fit = NAME.test(name) && !NODE_DECIDES.has(name.toLowerCase());
    if (fitNames.size < 1024) fitNames.set(name, fit);
  }
  return fit;
}

const fitNames = new Map<string, boolean>();

/** The Date line of `second`, made once per second rather than once per rendering. */
function dateLine(second: number): string {
  if (second !== lastDate.second)
    lastDate = { second, line: `Date: ${new Date(second * 1000).toUTCString()}\r\n` };
  return lastDate.line;
}

let lastDate = { second: Number.NaN, line: "" };

const EMPTY = new Uint8Array(0);
