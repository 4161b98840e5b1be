import { useEffect, useState } from "preact/hooks";
import { api } from "../../api/client";
import { describeError } from "../../api/errors";
import { useBlocking } from "../../api/hooks";
import { ErrorBanner } from "../../components/error-banner";
import { Loading } from "../../components/list";
import { aclsDisabled } from "./acl-state";
import { itemHref } from "./list";
import { type AclResource, bodyFromForm, type FieldSpec, type FormValues, formFromRecord } from "./resources";
import { AclsDisabled, AclTabs } from "./tabs";

type AclRecord = Record<string, unknown>;

/** `id` undefined: the create form. Otherwise the record, read live, with its edit form and delete. */
export function ResourceEditor({ resource, id }: { resource: AclResource; id: string | undefined }) {
  const record = useBlocking<AclRecord | null>(
    id === undefined ? null : `${resource.itemPath}/${encodeURIComponent(id)}`,
  );
  if (id !== undefined && record.data === undefined) {
    return (
      <section>
        <h1>
          {resource.singular} {id}
        </h1>
        <AclTabs current={resource.slug} />
        {aclsDisabled(record.error) ? (
          <AclsDisabled />
        ) : (
          <ErrorBanner error={record.error} needs={resource.readPrivilege} />
        )}
        {record.error ? null : <Loading what={`the ${resource.singular}`} />}
      </section>
    );
  }
  const existing = id === undefined ? undefined : (record.data ?? undefined);
  return <EditorForm key={`${resource.slug}/${id ?? ""}`} resource={resource} existing={existing} />;
}

function EditorForm({ resource, existing }: { resource: AclResource; existing: AclRecord | undefined }) {
  // The record as the form was filled from it: a live change replaces the form only while it is unedited.
  const [base, setBase] = useState<FormValues>(() => formFromRecord(resource, existing));
  const [form, setForm] = useState<FormValues>(base);
  const [changed, setChanged] = useState(false);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<AclRecord>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [saved, setSaved] = useState(false);
  const reload = () => {
    const fresh = formFromRecord(resource, existing);
    setBase(fresh);
    setForm(fresh);
    setChanged(false);
  };
  useEffect(() => {
    const fresh = formFromRecord(resource, existing);
    if (JSON.stringify(fresh) === JSON.stringify(base)) return;
    if (JSON.stringify(form) === JSON.stringify(base) || JSON.stringify(form) === JSON.stringify(fresh))
      reload();
    else setChanged(true);
  }, [existing?.ModifyIndex]);
  const id = existing ? String(existing[resource.idField] ?? "") : undefined;

  async function save(e: Event) {
    e.preventDefault();
    setSaved(false);
    const body = bodyFromForm(resource, form, existing);
    if (!body.ok) return setError(new Error(body.error));
    try {
      const path = id === undefined ? resource.itemPath : `${resource.itemPath}/${encodeURIComponent(id)}`;
      const res = await api<AclRecord>(path, { method: "PUT", body: body.body });
      setError(undefined);
      if (id === undefined) setCreated(res.data);
      else setSaved(true);
    } catch (err) {
      setError(err);
    }
  }

  async function remove() {
    setConfirmDelete(false);
    if (id === undefined) return;
    try {
      await api(`${resource.itemPath}/${encodeURIComponent(id)}`, { method: "DELETE" });
      window.location.hash = `#/acl/${resource.slug}`;
    } catch (err) {
      setError(err);
    }
  }

  const title =
    id === undefined
      ? `Create a ${resource.singular}`
      : `${resource.singular[0]?.toUpperCase()}${resource.singular.slice(1)} ${String(existing?.Name ?? id)}`;
  if (created) {
    const newId = String(created[resource.idField] ?? "");
    return (
      <section>
        <h1>{title}</h1>
        <AclTabs current={resource.slug} />
        <div class="banner banner-ok" role="status">
          Created. <a href={itemHref(resource, newId)}>Open it</a>
          {typeof created.SecretID === "string" ? (
            <>
              {" "}
              · Secret ID: <code>{created.SecretID}</code> (log in with it on the <a href="#/acl">Log in</a>{" "}
              page)
            </>
          ) : null}
        </div>
      </section>
    );
  }
  return (
    <section>
      <p>
        <a href={`#/acl/${resource.slug}`}>{resource.title}</a> /
      </p>
      <h1>{title}</h1>
      <AclTabs current={resource.slug} />
      {existing && resource.slug === "tokens" ? <TokenIds token={existing} /> : null}
      {error instanceof Error && !("status" in error) ? (
        <p class="form-error" role="alert">
          {describeError(error)}
        </p>
      ) : (
        <ErrorBanner error={error} needs={resource.writePrivilege} />
      )}
      {changed ? (
        <div class="banner banner-warn" role="status">
          This {resource.singular} changed since you opened it; saving would replace that change with this
          form.{" "}
          <button type="button" onClick={reload}>
            Reload
          </button>
        </div>
      ) : null}
      {saved ? (
        <div class="banner banner-ok" role="status">
          Saved.
        </div>
      ) : null}
      <form class="editor" onSubmit={save} aria-label={title}>
        {resource.fields.map((f) =>
          existing && f.createOnly ? (
            <ReadOnlyField key={f.name} field={f} value={form[f.name]} />
          ) : (
            <Field
              key={f.name}
              field={f}
              value={form[f.name]}
              onChange={(v) => setForm({ ...form, [f.name]: v })}
            />
          ),
        )}
        <div class="actions">
          <button type="submit">{id === undefined ? "Create" : "Save"}</button>
        </div>
      </form>
      {id !== undefined ? (
        <div class="danger-zone">
          {confirmDelete ? (
            <p role="alert">
              Delete this {resource.singular}?{" "}
              <button type="button" class="danger" onClick={remove}>
                Delete
              </button>{" "}
              <button type="button" onClick={() => setConfirmDelete(false)}>
                Cancel
              </button>
            </p>
          ) : (
            <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
              Delete this {resource.singular}…
            </button>
          )}
        </div>
      ) : null}
    </section>
  );
}

function TokenIds({ token }: { token: AclRecord }) {
  const [shown, setShown] = useState(false);
  const secret = typeof token.SecretID === "string" ? token.SecretID : undefined;
  return (
    <dl class="pairs" aria-label="Token IDs">
      <div>
        <dt>Accessor ID</dt>
        <dd>
          <code>{String(token.AccessorID ?? "")}</code>
        </dd>
      </div>
      <div>
        <dt>Secret ID</dt>
        <dd>
          {secret === undefined ? (
            "hidden (needs acl:write)"
          ) : shown ? (
            <code>{secret}</code>
          ) : (
            <button type="button" onClick={() => setShown(true)}>
              Show
            </button>
          )}
        </dd>
      </div>
    </dl>
  );
}

function ReadOnlyField({ field, value }: { field: FieldSpec; value: string | boolean | undefined }) {
  return (
    <p>
      <span class="hint">{field.label}:</span>{" "}
      {typeof value === "boolean" ? (value ? "yes" : "no") : value || "—"}
    </p>
  );
}

function Field({
  field,
  value,
  onChange,
}: {
  field: FieldSpec;
  value: string | boolean | undefined;
  onChange(v: string | boolean): void;
}) {
  if (field.kind === "bool") {
    return (
      <label class="check">
        <input
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
        />
        {field.label}
      </label>
    );
  }
  const text = typeof value === "string" ? value : "";
  const input = (e: Event) => onChange((e.currentTarget as HTMLInputElement | HTMLTextAreaElement).value);
  const multiline = field.kind === "textarea" || field.kind === "rules" || field.kind === "json";
  const id = `acl-field-${field.name}`;
  return (
    <div class="field">
      <label for={id}>
        {field.label}
        {field.hint ? <small> ({field.hint})</small> : null}
      </label>
      {multiline ? (
        <textarea
          id={id}
          class={field.kind === "textarea" ? undefined : "code"}
          rows={field.kind === "rules" ? 14 : field.kind === "json" ? 6 : 3}
          spellcheck={false}
          value={text}
          onInput={input}
        />
      ) : (
        <input id={id} value={text} onInput={input} />
      )}
    </div>
  );
}
