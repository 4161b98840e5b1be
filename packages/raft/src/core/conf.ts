import type { ConfChange, ConfState } from "./types.js";

/** The payload of a `conf` entry: the change (null for the bootstrap entry) and the configuration it yields. */
export interface ConfEntry {
  change: ConfChange | null;
  conf: ConfState;
}

// Conf entries are rare and tiny, so JSON keeps them readable in dumps and free of codec dependencies.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeConfEntry(e: ConfEntry): Uint8Array {
  return encoder.encode(JSON.stringify(e));
}

export function decodeConfEntry(data: Uint8Array): ConfEntry {
  const v: unknown = JSON.parse(decoder.decode(data));
  if (!isConfEntry(v)) throw new Error("malformed conf entry");
  return v;
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === "string");
}

function isConfEntry(v: unknown): v is ConfEntry {
  if (typeof v !== "object" || v === null) return false;
  const { change, conf } = v as { change?: unknown; conf?: unknown };
  if (typeof conf !== "object" || conf === null) return false;
  const { voters, learners } = conf as { voters?: unknown; learners?: unknown };
  if (!isStringArray(voters) || !isStringArray(learners)) return false;
  if (change === null) return true;
  if (typeof change !== "object" || change === undefined) return false;
  const { op, node } = change as { op?: unknown; node?: unknown };
  return (op === "add-learner" || op === "promote" || op === "remove") && typeof node === "string";
}

/** The configuration after `c`, or a reason it cannot be applied to `conf`. */
export function applyConfChange(
  conf: ConfState,
  c: ConfChange,
): ConfState | "unknown-node" | "invalid-change" {
  const isVoter = conf.voters.includes(c.node);
  const isLearner = conf.learners.includes(c.node);
  switch (c.op) {
    case "add-learner":
      if (isVoter || isLearner) return "invalid-change";
      return { voters: [...conf.voters], learners: [...conf.learners, c.node] };
    case "promote":
      if (!isLearner) return isVoter ? "invalid-change" : "unknown-node";
      return { voters: [...conf.voters, c.node], learners: conf.learners.filter((n) => n !== c.node) };
    case "remove":
      if (!isVoter && !isLearner) return "unknown-node";
      // A cluster without voters could never elect a leader again.
      if (isVoter && conf.voters.length === 1) return "invalid-change";
      return {
        voters: conf.voters.filter((n) => n !== c.node),
        learners: conf.learners.filter((n) => n !== c.node),
      };
  }
}
