// Many long-held HTTP requests (blocking queries, long polls) on raw sockets: one connection each, the
// request written once, and only the arrival time and status line of the answer noted. Skipping the HTTP
// client machinery keeps the load generator's own cost small next to the server's when 10,000 answers
// arrive at once.

import { connect, type Socket } from "node:net";
import type { HttpTarget } from "./http-client.js";

export interface HeldRequests {
  /** performance.now() of each answer's first bytes, in arrival order. */
  readonly answeredAt: number[];
  /** Answers whose status line was not 200. */
  readonly notOk: number;
  /** Connections that closed without an answer. */
  readonly lost: number;
  /**
   * How each request that ended so far ended: an answer's status line, or "closed without an answer". Read
   * before the change being timed, it says why a request did not wait for it.
   */
  readonly endings: readonly string[];
  /** Resolves when every request has an answer or failed, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
  close(): void;
}

const OK = "HTTP/1.1 200";
const LOST = "closed without an answer";

/**
 * Opens `count` connections to `target` (`batch` at a time, so the listen backlog never overflows) and
 * sends `GET path` on each (`path(i)` on the i-th, given a function); resolves once all are connected and
 * written.
 */
export async function holdRequests(
  target: HttpTarget,
  path: string | ((i: number) => string),
  count: number,
  batch = 250,
): Promise<HeldRequests> {
  const requestFor = (p: string) =>
    Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${target.host}:${target.port}\r\n\r\n`);
  const same = typeof path === "string" ? requestFor(path) : undefined;
  const sockets: Socket[] = [];
  const answeredAt: number[] = [];
  const endings: string[] = [];
  let done = 0;
  let onSettled: (() => void) | undefined;
  const finish = () => {
    if (++done === count) onSettled?.();
  };

  for (let start = 0; start < count; start += batch) {
    const opened: Promise<void>[] = [];
    for (let i = start; i < Math.min(count, start + batch); i++) {
      opened.push(
        new Promise<void>((resolve, reject) => {
          const socket = connect({ host: target.host, port: target.port, noDelay: true });
          sockets.push(socket);
          let answered = false;
          socket.once("connect", () => {
            socket.write(same ?? requestFor((path as (i: number) => string)(i)));
            resolve();
          });
          socket.once("data", (chunk: Buffer) => {
            answered = true;
            answeredAt.push(performance.now());
            endings.push(endingOf(chunk));
            finish();
            // The socket stays open until close(): tearing 10,000 connections down mid-measurement would
            // put the server's connection-close work inside the window being timed.
          });
          socket.once("error", (err) => {
            reject(err);
          });
          socket.once("close", () => {
            if (!answered) {
              endings.push(LOST);
              finish();
            }
          });
        }),
      );
    }
    await Promise.all(opened);
  }

  return {
    answeredAt,
    endings,
    get notOk() {
      return endings.filter((e) => e !== LOST && !e.startsWith(OK)).length;
    },
    get lost() {
      return endings.filter((e) => e === LOST).length;
    },
    settled: (timeoutMs) =>
      new Promise<void>((resolve) => {
        if (done === count) return resolve();
        const timer = setTimeout(resolve, timeoutMs);
        onSettled = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
    close: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

/** "2× HTTP/1.1 500 Internal Server Error, 1× closed without an answer": how requests ended, by kind. */
export function endingsSummary(endings: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const e of endings) counts.set(e, (counts.get(e) ?? 0) + 1);
  return [...counts].map(([e, n]) => `${n}× ${e}`).join(", ");
}

/** An answer's status line and, unless it is a 200, the start of its body (the reason). */
function endingOf(chunk: Buffer): string {
  const text = chunk.subarray(0, 1024).toString("latin1");
  const lineEnd = text.indexOf("\r\n");
  const statusLine = lineEnd < 0 ? text : text.slice(0, lineEnd);
  if (statusLine.startsWith(OK)) return statusLine;
  const bodyStart = text.indexOf("\r\n\r\n");
  return bodyStart < 0 ? statusLine : `${statusLine}: ${text.slice(bodyStart + 4, bodyStart + 124)}`;
}
