import type { z } from "zod";

/**
 * The parts of a zod schema's definition that decoding walks (wrappers, pipes, lazies, arrays, records,
 * objects, unions), read from zod's internal `_zod.def`: the public API has no way to walk a schema.
 */
export interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  getter?: () => z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
}

export function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}
