import type { Context } from "hono";
import { clientGone } from "../http/client-gone.js";
import type { ApiEnv } from "../http/env.js";
import type { AgentBackend, MonitorLevel } from "./backend.js";

const TEXT = { "Content-Type": "text/plain; charset=utf-8" };
/** Log lines a monitor client may fall behind by before lines are dropped (Consul buffers 512). */
const MONITOR_QUEUE_LINES = 512;

/** Streams log lines as they come until the client goes away; the subscription ends with the response. */
export function monitorResponse(
  c: Context<ApiEnv>,
  agent: AgentBackend,
  level: MonitorLevel,
  json: boolean,
): Response {
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  let unsubscribeGone: (() => void) | undefined;
  const end = () => {
    stop?.();
    stop = undefined;
    unsubscribeGone?.();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let dropped = 0;
        stop = agent.monitor(level, json, (line) => {
          // A client that reads slower than the agent logs loses lines rather than growing the queue.
          if ((controller.desiredSize ?? 1) <= 0) {
            dropped++;
            return;
          }
          try {
            if (dropped > 0) controller.enqueue(encoder.encode(`[monitor dropped ${dropped} log lines]\n`));
            dropped = 0;
            controller.enqueue(encoder.encode(line.endsWith("\n") ? line : `${line}\n`));
          } catch {
            end();
          }
        });
        unsubscribeGone = clientGone(c)(() => {
          end();
          try {
            controller.close();
          } catch {
            // already closed
          }
        });
      },
      cancel: end,
    },
    new CountQueuingStrategy({ highWaterMark: MONITOR_QUEUE_LINES }),
  );
  return new Response(stream, { status: 200, headers: TEXT });
}
