import { useEffect, useState } from "preact/hooks";
import { describeError } from "../../api/errors";
import { useBlocking } from "../../api/hooks";
import { ErrorBanner } from "../../components/error-banner";
import { Loading, Pairs } from "../../components/list";
import { KvCrumbs } from "./breadcrumbs";
import { deleteKey, type KvPair, kvHref, kvUrl, putKey } from "./kv-api";
import { LockHolder } from "./lock-holder";
import { parentFolder } from "./tree";
import { decodeValue, renderValue, type ValueView } from "./value-format";

const VIEWS: readonly [ValueView, string][] = [
  ["text", "Text"],
  ["json", "JSON"],
  ["yaml", "YAML"],
  ["hcl", "HCL"],
];

function textOf(pair: KvPair | null): string {
  const d = decodeValue(pair?.Value);
  return d.kind === "text" ? d.text : "";
}

/**
 * One key, live. The editor keeps the version it was opened at and writes with `cas` at that version, so a
 * change made meanwhile is reported ("changed since you opened it") and never overwritten.
 */
export function KeyView({ name }: { name: string }) {
  const live = useBlocking<KvPair[] | null>(kvUrl(name), {}, "5m", { allowNotFound: true });
  const current = live.data === undefined ? undefined : (live.data?.[0] ?? null);
  // The version the editor shows (null: the key did not exist when opened, so saving creates it).
  const [opened, setOpened] = useState<KvPair | null | undefined>(undefined);
  const [text, setText] = useState("");
  const [flags, setFlags] = useState("0");
  const [view, setView] = useState<ValueView>("text");
  const [status, setStatus] = useState<{ kind: "saved" | "conflict" | "error" | "invalid"; text: string }>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [busy, setBusy] = useState(false);

  function adopt(pair: KvPair | null) {
    setOpened(pair);
    setText(textOf(pair));
    setFlags(String(pair?.Flags ?? 0));
  }

  const dirty = opened !== undefined && (text !== textOf(opened) || flags !== String(opened?.Flags ?? 0));
  const changedSince =
    opened !== undefined &&
    current !== undefined &&
    (current?.ModifyIndex ?? 0) !== (opened?.ModifyIndex ?? 0);

  useEffect(() => {
    if (current === undefined) return;
    if (opened === undefined) return adopt(current);
    if (!changedSince) return;
    // Live update: follow the server while the user has not edited, or when the change is what they saved.
    const same = current !== null && textOf(current) === text && String(current.Flags) === flags;
    if (!dirty || same) {
      adopt(current);
      if (status?.kind === "conflict") setStatus(undefined);
    }
  }, [current]);

  if (current === undefined && opened === undefined) {
    return (
      <section>
        <KvCrumbs keyOrPrefix={name} />
        <h1>{name}</h1>
        <ErrorBanner error={live.error} needs={`key:read on "${name}"`} />
        {live.error ? null : <Loading what="the key" />}
      </section>
    );
  }

  const decoded = decodeValue(opened?.Value);
  const flagsValid = /^\d+$/.test(flags) && Number(flags) <= Number.MAX_SAFE_INTEGER;

  async function save(e: Event) {
    e.preventDefault();
    if (!flagsValid) return setStatus({ kind: "invalid", text: "Flags must be a whole number." });
    setBusy(true);
    try {
      const ok = await putKey(name, text, opened?.ModifyIndex ?? 0, Number(flags));
      setStatus(
        ok
          ? { kind: "saved", text: "Saved." }
          : {
              kind: "conflict",
              text: "This key changed since you opened it, so your edit was not saved (nothing was overwritten). Reload to see the current value; your text stays in the editor until you do.",
            },
      );
    } catch (err) {
      setStatus({ kind: "error", text: describeError(err) });
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    setConfirmDelete(false);
    try {
      const ok = await deleteKey(name, opened?.ModifyIndex ?? 0);
      if (ok) window.location.hash = kvHref(parentFolder(name));
      else
        setStatus({
          kind: "conflict",
          text: "This key changed since you opened it, so it was not deleted. Reload to see the current value.",
        });
    } catch (err) {
      setStatus({ kind: "error", text: describeError(err) });
    }
  }

  function formatJson() {
    const r = renderValue(text, "json");
    if (r.ok) setText(r.text);
    else setStatus({ kind: "invalid", text: r.error });
  }

  const rendered = view === "text" ? undefined : renderValue(text, view);
  return (
    <section>
      <KvCrumbs keyOrPrefix={name} />
      <h1>{name}</h1>
      {current?.Session ? <LockHolder session={current.Session} /> : null}
      {changedSince && status?.kind !== "conflict" ? (
        <div class="banner banner-warn" role="status">
          {current === null
            ? "This key was deleted since you opened it."
            : "This key changed since you opened it; saving now will be refused."}{" "}
          <button type="button" onClick={() => adopt(current ?? null)}>
            Reload
          </button>
        </div>
      ) : null}
      {status ? (
        <div
          class={`banner ${status.kind === "saved" ? "banner-ok" : status.kind === "conflict" ? "banner-warn" : "banner-error"}`}
          role={status.kind === "saved" ? "status" : "alert"}
          data-testid="kv-status"
        >
          {status.text}{" "}
          {status.kind === "conflict" && current !== undefined ? (
            <button
              type="button"
              onClick={() => {
                adopt(current);
                setStatus(undefined);
              }}
            >
              Reload
            </button>
          ) : null}
        </div>
      ) : null}
      {opened === null ? <p class="empty">This key does not exist; saving creates it.</p> : null}
      {opened ? (
        <Pairs
          label="Key details"
          pairs={{
            "Modify index": String(opened.ModifyIndex),
            "Create index": String(opened.CreateIndex),
            "Lock index": String(opened.LockIndex),
          }}
        />
      ) : null}
      {decoded.kind === "binary" ? (
        <p class="empty">This value is binary ({decoded.size} bytes) and is not shown or edited here.</p>
      ) : (
        <form class="editor" onSubmit={save} aria-label="Edit the value">
          <fieldset class="toggle">
            <legend class="sr-only">Show the value as</legend>
            {VIEWS.map(([v, label]) => (
              <label key={v}>
                <input type="radio" name="kv-view" checked={view === v} onChange={() => setView(v)} /> {label}
              </label>
            ))}
          </fieldset>
          {view === "text" ? (
            <label>
              <span class="sr-only">Value</span>
              <textarea
                rows={12}
                class="code"
                value={text}
                onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
              />
            </label>
          ) : rendered?.ok ? (
            <pre data-testid="kv-rendered">{rendered.text}</pre>
          ) : (
            <p class="form-error" role="alert">
              {rendered?.error}
            </p>
          )}
          <label class="inline">
            Flags{" "}
            <input
              inputMode="numeric"
              value={flags}
              aria-invalid={!flagsValid}
              onInput={(e) => setFlags((e.currentTarget as HTMLInputElement).value.trim())}
            />
          </label>
          <div class="actions">
            <button type="submit" disabled={busy}>
              Save
            </button>
            {view === "text" ? (
              <button type="button" onClick={formatJson}>
                Format JSON
              </button>
            ) : null}
          </div>
        </form>
      )}
      {opened ? (
        <div class="danger-zone">
          {confirmDelete ? (
            <p role="alert">
              Delete <code>{name}</code>?{" "}
              <button type="button" class="danger" onClick={remove}>
                Delete key
              </button>{" "}
              <button type="button" onClick={() => setConfirmDelete(false)}>
                Cancel
              </button>
            </p>
          ) : (
            <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
              Delete this key…
            </button>
          )}
        </div>
      ) : null}
    </section>
  );
}
