// A real Cairn API on loopback for the event and watch commands, with a one-agent event log standing in
// for the gossip-fed one the agent wires (that log is tested in @cairn/agent).
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import {
  createApi,
  type EventBackend,
  LocalBackend,
  type UserEvent,
  UserEventError,
  type UserEventRequest,
} from "@cairn/api";
import { serve } from "@hono/node-server";

class SingleAgentEvents implements EventBackend {
  readonly list: UserEvent[] = [];
  #wake: (() => void) | undefined;
  #changed: Promise<void> | undefined;

  fire(request: UserEventRequest): UserEvent {
    if ((request.payload?.length ?? 0) > 100) throw new UserEventError("user event exceeds configured limit");
    const event: UserEvent = {
      ID: randomUUID(),
      Name: request.name,
      Payload: request.payload,
      NodeFilter: request.nodeFilter,
      ServiceFilter: request.serviceFilter,
      TagFilter: request.tagFilter,
      Version: 1,
      LTime: this.list.length,
    };
    this.list.push(event);
    const wake = this.#wake;
    this.#wake = undefined;
    this.#changed = undefined;
    wake?.();
    return event;
  }

  events(): readonly UserEvent[] {
    return this.list.slice();
  }

  changed(): Promise<void> {
    this.#changed ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    return this.#changed;
  }
}

export interface EventServer {
  env: Record<string, string>;
  url: string;
  events: SingleAgentEvents;
  close(): Promise<void>;
}

export async function startEventServer(): Promise<EventServer> {
  const events = new SingleAgentEvents();
  const app = createApi({ backend: new LocalBackend(), nodeName: "cli-node", datacenter: "dc1", events });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: { CAIRN_HTTP_ADDR: address, PATH: process.env.PATH ?? "" },
    url: `http://${address}`,
    events,
    close: () =>
      new Promise((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
