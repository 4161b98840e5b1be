import type { Socket } from "node:net";
import { atTurnEnd } from "@cairn/raft";
import type { WebSocket } from "ws";

/** Bytes corked on each socket in the current turn of the event loop. */
const corked = new WeakMap<Socket, { bytes: number }>();

/**
 * Past this many bytes in one turn the frames so far leave at once. A server waking hundreds of blocking
 * queries builds their answers in one turn; held back to its end, the client agent on the other core could not
 * start writing the first answers until the last was built (its first answer came 2-4 times later than a
 * follower's). 16 KiB is some fifty small answers: still one write per many frames.
 */
const FLUSH_BYTES = 16 * 1024;

/**
 * Sends a tunnel frame; frames sent on the same connection in one turn of the event loop leave together, in
 * one write per FLUSH_BYTES. Under load many answers complete in one turn, and a write (a syscall) per frame
 * cost the client agent a fifth of its CPU. The socket is uncorked at the end of the turn (atTurnEnd: in the
 * same check phase even when the frame was sent from it), so a lone frame waits for nothing but the rest of
 * the turn.
 */
export function sendBatched(ws: WebSocket, data: Uint8Array): void {
  // ws keeps its socket private; without it (not yet connected, or a future ws), frames go one by one.
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  if (socket === undefined) {
    ws.send(data);
    return;
  }
  let turn = corked.get(socket);
  if (turn === undefined) {
    turn = { bytes: 0 };
    corked.set(socket, turn);
    socket.cork();
    atTurnEnd(() => {
      corked.delete(socket);
      socket.uncork();
    });
  }
  ws.send(data);
  turn.bytes += data.byteLength;
  if (turn.bytes >= FLUSH_BYTES) {
    turn.bytes = 0;
    // Writes what is corked and corks again: the end-of-turn uncork still balances the one cork left.
    socket.uncork();
    socket.cork();
  }
}
