import type { WebSocket } from "ws";

/**
 * Pings the socket every `intervalMs` and terminates it when the previous ping went unanswered: a peer that
 * vanished without closing TCP (power loss, partition) is otherwise noticed only by the kernel, much later.
 * Returns a function that stops the pinging.
 */
export function keepAlive(ws: WebSocket, intervalMs: number): () => void {
  let answered = true;
  const onPong = () => {
    answered = true;
  };
  ws.on("pong", onPong);
  const timer = setInterval(() => {
    if (!answered) {
      ws.terminate();
      return;
    }
    answered = false;
    ws.ping();
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    ws.off("pong", onPong);
  };
}

/** Closes with a protocol-error code and a reason the peer can log; terminates if the peer does not answer. */
export function closeWithReason(ws: WebSocket, reason: string): void {
  // A close reason must fit in a control frame (123 bytes).
  ws.close(1002, Buffer.from(reason).subarray(0, 120).toString());
  setTimeout(() => ws.terminate(), 1000).unref();
}
