/**
 * HIL-style `${name}` interpolation for BindName and BindNamespace: only variable references, every one
 * of which must be a known variable (Consul refuses unknown ones at rule creation and login alike).
 */

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateError";
  }
}

export function interpolate(template: string, vars: Readonly<Record<string, string>>): string {
  let out = "";
  let i = 0;
  while (i < template.length) {
    const start = template.indexOf("${", i);
    if (start < 0) return out + template.slice(i);
    out += template.slice(i, start);
    const end = template.indexOf("}", start);
    if (end < 0) throw new TemplateError(`unterminated "\${" at ${start + 1}`);
    const name = template.slice(start + 2, end).trim();
    if (!Object.hasOwn(vars, name)) throw new TemplateError(`unknown variable accessed: ${name}`);
    out += vars[name];
    i = end + 1;
  }
  return out;
}
