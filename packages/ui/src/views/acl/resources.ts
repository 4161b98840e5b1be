/**
 * The four ACL resources the UI manages, as data: where they live under /v1/acl, which field identifies
 * them, the columns of their list and the fields of their form, and how a form becomes a request body.
 */

export type FieldKind = "text" | "textarea" | "rules" | "links" | "bool" | "json" | "list";

export interface FieldSpec {
  /** The field of Consul's record (`Description`, `Policies`, ...). */
  readonly name: string;
  readonly label: string;
  readonly kind: FieldKind;
  /** Shown only when creating (an auth method's name and type are fixed once made). */
  readonly createOnly?: boolean;
  readonly hint?: string;
}

export interface AclResource {
  /** The route segment and heading: `tokens`, `policies`, `roles`, `auth-methods`. */
  readonly slug: string;
  readonly title: string;
  readonly singular: string;
  /** GET list path. */
  readonly listPath: string;
  /** GET/PUT/DELETE one record: `${itemPath}/${id}`; PUT `${itemPath}` creates. */
  readonly itemPath: string;
  /** The record field that identifies it in item URLs. */
  readonly idField: string;
  /** The columns of the list, by record field. */
  readonly columns: readonly { readonly field: string; readonly label: string }[];
  readonly fields: readonly FieldSpec[];
  /** The privilege a list needs, for the 403 explanation. */
  readonly readPrivilege: string;
  readonly writePrivilege: string;
}

const links = (name: string, label: string): FieldSpec => ({
  name,
  label,
  kind: "links",
  hint: "names, separated by commas",
});

export const ACL_RESOURCES: readonly AclResource[] = [
  {
    slug: "tokens",
    title: "Tokens",
    singular: "token",
    listPath: "/v1/acl/tokens",
    itemPath: "/v1/acl/token",
    idField: "AccessorID",
    columns: [
      { field: "AccessorID", label: "Accessor ID" },
      { field: "Description", label: "Description" },
      { field: "Policies", label: "Policies" },
      { field: "Roles", label: "Roles" },
      { field: "Local", label: "Scope" },
    ],
    fields: [
      { name: "Description", label: "Description", kind: "text" },
      links("Policies", "Policies"),
      links("Roles", "Roles"),
      {
        name: "ServiceIdentities",
        label: "Service identities",
        kind: "json",
        hint: 'JSON, e.g. [{"ServiceName":"web"}]',
      },
      { name: "Local", label: "Local to this datacenter", kind: "bool", createOnly: true },
    ],
    readPrivilege: "acl:read",
    writePrivilege: "acl:write",
  },
  {
    slug: "policies",
    title: "Policies",
    singular: "policy",
    listPath: "/v1/acl/policies",
    itemPath: "/v1/acl/policy",
    idField: "ID",
    columns: [
      { field: "Name", label: "Name" },
      { field: "Description", label: "Description" },
      { field: "Datacenters", label: "Datacenters" },
    ],
    fields: [
      { name: "Name", label: "Name", kind: "text" },
      { name: "Description", label: "Description", kind: "textarea" },
      {
        name: "Rules",
        label: "Rules",
        kind: "rules",
        hint: 'HCL or JSON, e.g. key_prefix "app/" { policy = "read" }',
      },
      {
        name: "Datacenters",
        label: "Datacenters",
        kind: "list",
        hint: "empty for all; names separated by commas",
      },
    ],
    readPrivilege: "acl:read",
    writePrivilege: "acl:write",
  },
  {
    slug: "roles",
    title: "Roles",
    singular: "role",
    listPath: "/v1/acl/roles",
    itemPath: "/v1/acl/role",
    idField: "ID",
    columns: [
      { field: "Name", label: "Name" },
      { field: "Description", label: "Description" },
      { field: "Policies", label: "Policies" },
    ],
    fields: [
      { name: "Name", label: "Name", kind: "text" },
      { name: "Description", label: "Description", kind: "textarea" },
      links("Policies", "Policies"),
      {
        name: "ServiceIdentities",
        label: "Service identities",
        kind: "json",
        hint: 'JSON, e.g. [{"ServiceName":"web"}]',
      },
    ],
    readPrivilege: "acl:read",
    writePrivilege: "acl:write",
  },
  {
    slug: "auth-methods",
    title: "Auth methods",
    singular: "auth method",
    listPath: "/v1/acl/auth-methods",
    itemPath: "/v1/acl/auth-method",
    idField: "Name",
    columns: [
      { field: "Name", label: "Name" },
      { field: "Type", label: "Type" },
      { field: "DisplayName", label: "Display name" },
      { field: "Description", label: "Description" },
    ],
    fields: [
      { name: "Name", label: "Name", kind: "text", createOnly: true },
      { name: "Type", label: "Type", kind: "text", createOnly: true, hint: "jwt, oidc or kubernetes" },
      { name: "DisplayName", label: "Display name", kind: "text" },
      { name: "Description", label: "Description", kind: "textarea" },
      {
        name: "MaxTokenTTL",
        label: "Max token TTL",
        kind: "text",
        hint: "a duration such as 1h; empty for none",
      },
      { name: "TokenLocality", label: "Token locality", kind: "text", hint: "local or global" },
      { name: "Config", label: "Config", kind: "json", hint: "JSON object, as the method type expects" },
    ],
    readPrivilege: "acl:read",
    writePrivilege: "acl:write",
  },
];

export function aclResource(slug: string): AclResource | undefined {
  return ACL_RESOURCES.find((r) => r.slug === slug);
}

/** A form's values: text for every field but booleans. */
export type FormValues = Record<string, string | boolean>;

function linkNames(value: unknown): string {
  if (!Array.isArray(value)) return "";
  return value
    .map((l) =>
      l && typeof l === "object"
        ? String((l as { Name?: unknown; ID?: unknown }).Name ?? (l as { ID?: unknown }).ID ?? "")
        : "",
    )
    .filter((n) => n !== "")
    .join(", ");
}

/** A record's fields as form text (links as names, JSON fields pretty-printed). */
export function formFromRecord(
  resource: AclResource,
  record: Record<string, unknown> | undefined,
): FormValues {
  const out: FormValues = {};
  for (const f of resource.fields) {
    const v = record?.[f.name];
    if (f.kind === "bool") out[f.name] = v === true;
    else if (f.kind === "links") out[f.name] = linkNames(v);
    else if (f.kind === "list") out[f.name] = Array.isArray(v) ? v.join(", ") : "";
    else if (f.kind === "json") out[f.name] = v === undefined || v === null ? "" : JSON.stringify(v, null, 2);
    else out[f.name] = typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
  }
  return out;
}

function splitNames(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export type BodyResult =
  | { readonly ok: true; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly error: string };

/**
 * The PUT body for a form: every field the form shows, so clearing one clears it (Consul replaces the
 * record on update). `existing` carries the identifying field of the record being edited.
 */
export function bodyFromForm(
  resource: AclResource,
  form: FormValues,
  existing?: Record<string, unknown>,
): BodyResult {
  const body: Record<string, unknown> = {};
  if (existing) {
    body[resource.idField] = existing[resource.idField];
    for (const f of resource.fields) if (f.createOnly) body[f.name] = existing[f.name];
  }
  for (const f of resource.fields) {
    if (existing && f.createOnly) continue;
    const v = form[f.name];
    if (f.kind === "bool") {
      body[f.name] = v === true;
      continue;
    }
    const text = typeof v === "string" ? v : "";
    if (f.kind === "links") body[f.name] = splitNames(text).map((Name) => ({ Name }));
    else if (f.kind === "list") body[f.name] = splitNames(text);
    else if (f.kind === "json") {
      if (text.trim() === "") continue;
      try {
        body[f.name] = JSON.parse(text);
      } catch (err) {
        return { ok: false, error: `${f.label}: not valid JSON (${(err as Error).message})` };
      }
    } else if (text !== "" || existing) body[f.name] = text;
  }
  return { ok: true, body };
}

/** A list cell: link lists by name, booleans as the token scope, arrays joined, anything else as text. */
export function cellText(resource: AclResource, field: string, value: unknown): string {
  if (resource.slug === "tokens" && field === "Local") return value === true ? "local" : "global";
  if (field === "Policies" || field === "Roles") return linkNames(value);
  if (Array.isArray(value)) return value.join(", ");
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
