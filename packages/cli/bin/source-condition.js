// A module hook that resolves with the "source" export condition, as `node --conditions=source` would:
// the workspace packages then load from their TypeScript sources instead of a dist/ that does not exist.
export async function resolve(specifier, context, next) {
  const conditions = context.conditions.includes("source")
    ? context.conditions
    : [...context.conditions, "source"];
  return next(specifier, { ...context, conditions });
}
