import { readFileSync, rmSync } from "node:fs";

/**
 * The reset index an operator wrote to Consul's `acl-bootstrap-reset` file, or undefined when there is no
 * file or it does not hold a whole number (Consul treats both as "no reset").
 */
export function readBootstrapResetIndex(path: string | undefined): number | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  const index = Number(trimmed);
  return Number.isSafeInteger(index) && index > 0 ? index : undefined;
}

/** After a reset bootstrap the file has done its job: one reset allows one bootstrap. */
export function removeBootstrapResetFile(path: string | undefined): void {
  if (path !== undefined) rmSync(path, { force: true });
}
