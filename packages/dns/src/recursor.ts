import dgram from "node:dgram";
import { isIP, Socket } from "node:net";

export type Transport = "udp" | "tcp";

/** `8.8.8.8`, `8.8.8.8:53`, `[::1]:5353` as host and port (53 by default). */
export function recursorAddress(text: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { host: bracketed[1] ?? "", port: Number(bracketed[2] ?? 53) };
  if (isIP(text) === 6) return { host: text, port: 53 };
  const [host = "", port] = text.split(":");
  return { host, port: port === undefined ? 53 : Number(port) };
}

/**
 * Sends the query as it came to each recursor in turn, over the transport it came on, and resolves with the
 * first answer; undefined when none answers within its timeout (the caller answers SERVFAIL).
 */
export async function forward(
  query: Buffer,
  recursors: readonly string[],
  transport: Transport,
  timeoutMs: number,
): Promise<Buffer | undefined> {
  for (const recursor of recursors) {
    const { host, port } = recursorAddress(recursor);
    try {
      const answer =
        transport === "udp"
          ? await overUdp(query, host, port, timeoutMs)
          : await overTcp(query, host, port, timeoutMs);
      if (answer.length >= 12 && answer.readUInt16BE(0) === query.readUInt16BE(0)) return answer;
    } catch {
      // The next recursor is tried, as Consul's sequential strategy does.
    }
  }
  return undefined;
}

function overUdp(query: Buffer, host: string, port: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(isIP(host) === 6 ? "udp6" : "udp4");
    const timer = setTimeout(() => done(new Error("recursor timeout")), timeoutMs);
    let finished = false;
    const done = (err: Error | undefined, answer?: Buffer) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.close();
      if (err || !answer) reject(err);
      else resolve(answer);
    };
    socket.on("error", (err) => done(err));
    socket.on("message", (message) => done(undefined, message));
    socket.send(query, port, host, (err) => {
      if (err) done(err);
    });
  });
}

function overTcp(query: Buffer, host: string, port: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => done(new Error("recursor timeout")), timeoutMs);
    let finished = false;
    const done = (err: Error | undefined, answer?: Buffer) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      if (err || !answer) reject(err ?? new Error("recursor closed the connection"));
      else resolve(answer);
    };
    socket.on("error", (err) => done(err));
    socket.on("close", () => done(new Error("recursor closed the connection")));
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0))
        done(undefined, received.subarray(2, 2 + received.readUInt16BE(0)));
    });
    socket.connect(port, host, () => {
      const framed = Buffer.alloc(2 + query.length);
      framed.writeUInt16BE(query.length, 0);
      query.copy(framed, 2);
      socket.write(framed);
    });
  });
}
