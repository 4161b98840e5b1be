// A change that wakes several held queries of one client with the same answer crosses the tunnel as one frame
// naming every request, to a client that named `shared-answers` when it dialed; to one that did not (an agent
// of an earlier version), as a frame each. Raw websockets against a real in-process server.
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  type ClientFrame,
  decodeServerFrame,
  encodeFrame,
  type ResponseFrame,
  SHARED_ANSWERS,
  TUNNEL_FEATURES_HEADER,
  TUNNEL_PATH,
  toBytes,
} from "../../src/tunnel/protocol.js";
import { leadingTunnelServer, until } from "./harness.js";

const server = leadingTunnelServer("tunnel-groups");

/** A raw tunnel client: sends frames, and collects the response frames to requests (id 0 is leader news). */
async function dial(features?: string) {
  const ws = new WebSocket(
    `ws://${server().ref.rpcAddress}${TUNNEL_PATH}`,
    features === undefined ? {} : { headers: { [TUNNEL_FEATURES_HEADER]: features } },
  );
  const frames: ResponseFrame[] = [];
  ws.on("message", (data) => {
    const frame = decodeServerFrame(toBytes(data as Buffer));
    if (frame?.t === "res" && frame.id !== 0) frames.push(frame);
  });
  await new Promise((resolve) => ws.once("open", resolve));
  const send = (frame: ClientFrame) => ws.send(encodeFrame(frame));
  const answered = (id: number) => frames.some((f) => f.id === id || f.also?.includes(id));
  return { ws, frames, send, answered };
}

/** Holds five blocking queries on one key (each with its own wait), changes the key, returns their frames. */
async function wakeFive(client: Awaited<ReturnType<typeof dial>>, key: string): Promise<ResponseFrame[]> {
  const put = (id: number, value: string) =>
    client.send({ t: "req", id, method: "PUT", url: `/v1/kv/${key}`, headers: [], body: Buffer.from(value) });
  put(1, "before");
  await until(() => client.answered(1));
  client.send({ t: "req", id: 3, method: "GET", url: `/v1/kv/${key}`, headers: [] });
  await until(() => client.answered(3));
  const read = client.frames.find((f) => f.id === 3)!;
  const index = read.headers.find(([name]) => name.toLowerCase() === "x-consul-index")![1];
  const before = server().server.store.watches.waiting;
  const ids = [10, 11, 12, 13, 14];
  for (const [i, id] of ids.entries()) {
    client.send({
      t: "req",
      id,
      method: "GET",
      url: `/v1/kv/${key}?index=${index}&wait=${30 + i}s`,
      headers: [],
    });
  }
  await until(() => server().server.store.watches.waiting === before + ids.length);
  put(2, "after");
  await until(() => ids.every(client.answered));
  return client.frames.filter((f) => ids.includes(f.id));
}

describe("answers shared on the tunnel", () => {
  it("sends one frame for the held queries a change answers alike, to a client that asked for it", async () => {
    const client = await dial(`other, ${SHARED_ANSWERS}`);
    const frames = await wakeFive(client, "groups/shared");
    expect(frames.length).toBe(1);
    const [frame] = frames;
    expect([frame!.id, ...(frame!.also ?? [])].sort()).toEqual([10, 11, 12, 13, 14]);
    expect(frame!.status).toBe(200);
    const [entry] = JSON.parse(Buffer.from(frame!.body!).toString()) as [{ Value: string }];
    expect(Buffer.from(entry.Value, "base64").toString()).toBe("after");
    client.ws.close();
  });

  it("sends a frame per request to a client that did not", async () => {
    for (const features of [undefined, "something-else"]) {
      const client = await dial(features);
      const frames = await wakeFive(client, `groups/each-${features}`);
      expect(frames.map((f) => f.id).sort()).toEqual([10, 11, 12, 13, 14]);
      expect(frames.every((f) => f.also === undefined)).toBe(true);
      client.ws.close();
    }
  });
});
