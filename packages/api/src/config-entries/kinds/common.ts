import { z } from "zod";
import { str, stringMap } from "../fields.js";

/** Fields every kind has. */
export const entryBase = { Kind: str, Name: str, Namespace: str, Meta: stringMap };

/** How one kind is checked and normalised, as Consul's Normalize() and Validate() do it. */
export interface KindSpec<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  /** Fills defaults and canonical spellings; `entry` is the schema's output, already named and kinded. */
  normalize?(entry: z.output<S>): void;
  /** Consul's one-line refusal, or undefined. */
  validate(entry: z.output<S>): string | undefined;
}

export function defineKind<S extends z.ZodType>(spec: KindSpec<S>): KindSpec {
  return spec as unknown as KindSpec;
}

export { z };
