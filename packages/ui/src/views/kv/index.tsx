import "../forms.css";
import type { ViewProps } from "../../router";
import { FolderView } from "./folder";
import { KeyView } from "./key";
import { isFolderKey } from "./tree";

/** `#/kv/<folder>/` lists a folder, `#/kv/<key>` opens a key; keys are segment-encoded in the hash. */
export default function KvView({ params }: ViewProps) {
  const key = params.key ?? "";
  return key === "" || isFolderKey(key) ? <FolderView prefix={key} /> : <KeyView key={key} name={key} />;
}
