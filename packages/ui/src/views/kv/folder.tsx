import { useState } from "preact/hooks";
import { describeError } from "../../api/errors";
import { useBlocking } from "../../api/hooks";
import { ErrorBanner } from "../../components/error-banner";
import { Loading, PagedList } from "../../components/list";
import { useAclState } from "../acl/acl-state";
import { KvCrumbs } from "./breadcrumbs";
import { deleteFolder, kvHref, kvUrl, putKey } from "./kv-api";
import { listFolder, parentFolder } from "./tree";

/** A folder: its sub-folders and keys (live), a form to create a key or folder in it, and folder delete. */
export function FolderView({ prefix }: { prefix: string }) {
  // A folder with nothing in it answers 404, which is a normal, blocking answer here.
  const listing = useBlocking<string[] | null>(kvUrl(prefix), { keys: true, separator: "/" }, "5m", {
    allowNotFound: true,
  });
  const { entries, prefixIsKey } = listFolder(listing.data ?? [], prefix);
  const acl = useAclState();
  const filtered = acl.kind === "token" || acl.kind === "unknown-token";
  return (
    <section>
      <KvCrumbs keyOrPrefix={prefix} />
      <h1>{prefix === "" ? "Key/value" : prefix}</h1>
      <ErrorBanner error={listing.error} needs={`key:list on "${prefix}"`} />
      {filtered ? <p class="hint">ACLs are on: only the keys your token may read are listed.</p> : null}
      {listing.data === undefined ? (
        listing.error ? null : (
          <Loading what="keys" />
        )
      ) : (
        <PagedList
          label={prefix === "" ? "Keys" : `Keys in ${prefix}`}
          items={entries}
          keyOf={(e) => e.key}
          empty={
            filtered ? (
              <>
                No keys here that your token may read. Keys it may not read are hidden:{" "}
                <a href="#/acl">log in</a> with a token whose policy grants <code>key_prefix</code> read here.
              </>
            ) : prefix === "" ? (
              "No keys yet."
            ) : prefixIsKey ? (
              "This folder is empty."
            ) : (
              "No keys under this prefix."
            )
          }
          render={(e) => (
            <>
              <a class="name" href={kvHref(e.key)}>
                {e.folder ? `${e.name === "" ? "(empty)" : e.name}/` : e.name}
              </a>
              <span class="meta">{e.folder ? "folder" : "key"}</span>
            </>
          )}
        />
      )}
      <CreateForm prefix={prefix} />
      {prefix !== "" ? <DeleteFolder prefix={prefix} /> : null}
    </section>
  );
}

function CreateForm({ prefix }: { prefix: string }) {
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const [message, setMessage] = useState<{ error: boolean; text: string; key?: string }>();
  const [busy, setBusy] = useState(false);
  const folder = name.endsWith("/");
  async function submit(e: Event) {
    e.preventDefault();
    if (name === "") return setMessage({ error: true, text: "Give the key a name." });
    const key = prefix + name;
    setBusy(true);
    try {
      // cas=0: create only; an existing key is reported, never overwritten.
      const created = await putKey(key, folder ? "" : value, 0, 0);
      if (!created) return setMessage({ error: true, text: "A key with this name already exists:", key });
      setName("");
      setValue("");
      setMessage(undefined);
      window.location.hash = kvHref(key);
    } catch (err) {
      setMessage({ error: true, text: describeError(err) });
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="editor" onSubmit={submit} aria-label="Create a key">
      <h2>Create</h2>
      <label>
        Key name{" "}
        <small>
          (in {prefix === "" ? "the root" : <code>{prefix}</code>}; end with <code>/</code> to make a folder)
        </small>
        <input value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
      </label>
      {folder ? null : (
        <label>
          Value
          <textarea
            rows={4}
            value={value}
            onInput={(e) => setValue((e.currentTarget as HTMLTextAreaElement).value)}
          />
        </label>
      )}
      {message ? (
        <p role="alert" class={message.error ? "form-error" : undefined}>
          {message.text} {message.key !== undefined ? <a href={kvHref(message.key)}>{message.key}</a> : null}
        </p>
      ) : null}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {folder ? "Create folder" : "Create key"}
        </button>
      </div>
    </form>
  );
}

function DeleteFolder({ prefix }: { prefix: string }) {
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>();
  async function remove() {
    try {
      await deleteFolder(prefix);
      window.location.hash = kvHref(parentFolder(prefix));
    } catch (err) {
      setError(err);
    }
  }
  return (
    <div class="danger-zone">
      <ErrorBanner error={error} needs={`key:write on "${prefix}"`} />
      {asking ? (
        <p role="alert">
          Delete <code>{prefix}</code> and every key under it?{" "}
          <button type="button" class="danger" onClick={remove}>
            Delete folder
          </button>{" "}
          <button type="button" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </p>
      ) : (
        <button type="button" class="danger" onClick={() => setAsking(true)}>
          Delete this folder…
        </button>
      )}
    </div>
  );
}
