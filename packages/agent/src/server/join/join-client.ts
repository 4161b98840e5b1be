import WebSocket from "ws";
import { isServerInfo, JOIN_PATH, type JoinAnswer, type ServerInfo } from "./protocol.js";

/** One request to the join service at `address`; rejects on no answer within `timeoutMs`. */
function exchange(address: string, request: unknown, timeoutMs: number): Promise<JoinAnswer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${address}${JOIN_PATH}`, { handshakeTimeout: timeoutMs });
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      if (ws.readyState === WebSocket.OPEN) ws.close();
      else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    };
    const timer = setTimeout(
      () => done(() => reject(new Error(`no answer from ${address} in ${timeoutMs} ms`))),
      timeoutMs,
    );
    // A socket torn down mid-handshake may report more errors after the first; they change nothing.
    ws.on("error", (err) => done(() => reject(err)));
    ws.once("open", () => ws.send(JSON.stringify(request)));
    ws.once("message", (data) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(data));
      } catch {
        done(() => reject(new Error(`malformed answer from ${address}`)));
        return;
      }
      done(() => resolve(parsed as JoinAnswer));
    });
    ws.once("close", () => done(() => reject(new Error(`${address} closed the join connection`))));
  });
}

export async function sayHello(
  address: string,
  from: ServerInfo,
  timeoutMs: number,
): Promise<{ info: ServerInfo; known: string[] }> {
  const answer = await exchange(address, { op: "hello", from }, timeoutMs);
  if (!answer.ok) throw new Error(answer.error);
  if (!("info" in answer) || !isServerInfo(answer.info)) throw new Error(`malformed hello from ${address}`);
  const known = Array.isArray(answer.known) ? answer.known.filter((a) => typeof a === "string") : [];
  return { info: answer.info, known };
}

export async function askToJoin(
  address: string,
  id: string,
  rpcAddress: string,
  timeoutMs: number,
): Promise<void> {
  const answer = await exchange(address, { op: "join", id, address: rpcAddress }, timeoutMs);
  if (!answer.ok) throw new Error(answer.error);
}
