import type { KnownForm } from "@cairn/api";
import { atTurnEnd } from "@cairn/raft";
import type { ResponseFrame } from "./protocol.js";

/** A reusable answer whose status, headers and body are all known: what a response frame is made of. */
export type WholeForm = KnownForm & { readonly headers: Readonly<Record<string, string>> };

/**
 * A server's answers on one tunnel connection, gathered for the rest of the event loop's turn by the answer
 * they carry: when a change wakes many held queries of one client agent with the same answer (the same
 * reusable form, so the same status, headers and body), they leave as one frame naming every request
 * (ResponseFrame.also), made, encoded and decoded once, instead of a frame each.
 */
export class AnswerGroups {
  private readonly turn = new Map<WholeForm, ResponseFrame>();

  constructor(
    private readonly send: (frame: ResponseFrame) => void,
    private readonly frameOf: (id: number, form: WholeForm) => ResponseFrame,
  ) {}

  /** Answers request `id` with `form`, together with the other requests answered with it this turn. */
  add(id: number, form: WholeForm): void {
    const first = this.turn.get(form);
    if (first === undefined) {
      if (this.turn.size === 0) atTurnEnd(() => this.flush());
      this.turn.set(form, this.frameOf(id, form));
    } else if (first.also === undefined) first.also = [id];
    else first.also.push(id);
  }

  private flush(): void {
    for (const frame of this.turn.values()) this.send(frame);
    this.turn.clear();
  }
}
