/**
 * Access levels and decisions, as small integers so the hot path compares numbers. The order matters:
 * a rule grants an access when its level is at least the access's level, and `deny` (the lowest) grants
 * nothing.
 */
export const DENY = 1;
export const READ = 2;
export const LIST = 3;
export const WRITE = 4;
export type Level = typeof DENY | typeof READ | typeof LIST | typeof WRITE;

/** A policy disposition as written in rules. `list` is valid for key rules only. */
export type PolicyName = "deny" | "read" | "list" | "write";
/** What a request needs: `list` is the recursive KV read (Consul's KeyList). */
export type Access = "read" | "list" | "write";
/** `default` means "no rule covers this": the next authorizer in the chain decides. */
export type Decision = "allow" | "deny" | "default";

const LEVEL_OF: Readonly<Record<PolicyName, Level>> = { deny: DENY, read: READ, list: LIST, write: WRITE };
const NEED_OF: Readonly<Record<Access, Level>> = { read: READ, list: LIST, write: WRITE };

export function levelOf(policy: PolicyName): Level {
  return LEVEL_OF[policy];
}

export function needOf(access: Access): Level {
  return NEED_OF[access];
}

/**
 * Consul's `enforce`: write grants read, list and write; list grants list and read; read grants read;
 * deny grants nothing and stops the chain; no rule defers.
 */
export function enforce(level: Level | undefined, need: Level): Decision {
  if (level === undefined) return "default";
  return level >= need ? "allow" : "deny";
}

/**
 * Consul's `takesPrecedenceOver` (acl/policy.go), used when several rules name the same resource and
 * label, whether in one policy or across the policies of a token: deny wins over everything, then the
 * most permissive wins (write over list over read).
 */
export function takesPrecedence(a: Level, b: Level | undefined): boolean {
  if (b === undefined) return true;
  if (a === DENY) return true;
  if (b === DENY) return false;
  return a > b;
}
