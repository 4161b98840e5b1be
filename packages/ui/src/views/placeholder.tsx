import type { ViewModule, ViewProps } from "../router";

/** A view still to be written: says so instead of a blank page. */
export function placeholder(title: string): () => Promise<ViewModule> {
  const View = (_: ViewProps) => (
    <section>
      <h1>{title}</h1>
      <p>This view is not available yet.</p>
    </section>
  );
  return () => Promise.resolve({ default: View });
}
