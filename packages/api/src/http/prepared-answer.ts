import { type KnownForm, VARY_ACCEPT_ENCODING, withKnownForm } from "./known-form.js";

/** A response built once and sent as is, possibly to many requests. */
export interface PreparedAnswer extends KnownForm {
  readonly status: 200 | 404;
  readonly body: Uint8Array<ArrayBuffer> | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly reusable: true;
}

/** `headers` is the answer's from here on (frozen, with Vary added): pass a fresh object. */
export function prepareAnswer(
  status: 200 | 404,
  body: Uint8Array<ArrayBuffer> | string | null,
  headers: Record<string, string>,
): PreparedAnswer {
  return {
    status,
    body: typeof body === "string" ? Buffer.from(body) : body,
    // Vary is set here, once, so the HTTP edge needs not add it to each response (gzip.ts).
    headers: Object.freeze(Object.assign(headers, VARY_ACCEPT_ENCODING)),
    reusable: true,
  };
}

/**
 * The answer as a Response with already-encoded bytes and plain-object headers, bypassing the Context's
 * header set: @hono/node-server writes such a Response straight to Node's ServerResponse, while one built
 * through `c.header()` goes through a WHATWG Headers object and its conversion back to Node headers.
 */
export function sendPrepared(answer: PreparedAnswer): Response {
  return withKnownForm(new Response(answer.body, { status: answer.status, headers: answer.headers }), answer);
}

/**
 * Answers shared per store view. When a change wakes thousands of blocking queries that asked the same
 * question, they all read the same view of the store: the first one encodes the body and headers and the
 * rest send the same bytes. Keyed by the view object, not its index, because a snapshot restore can bring an
 * index back with other data. Everything is dropped when a newer view shows up; the size bound keeps
 * distinct reads between two writes from growing it.
 */
export class AnswerMemo {
  #view: object | undefined;
  readonly #answers = new Map<string, PreparedAnswer>();

  constructor(private readonly limit = 1024) {}

  /** The answer to `question` over the data of `view`, built by `build` unless already known. */
  get(view: object, question: string, build: () => PreparedAnswer): PreparedAnswer {
    if (view !== this.#view) {
      this.#view = view;
      this.#answers.clear();
    }
    let answer = this.#answers.get(question);
    if (answer === undefined) {
      answer = build();
      if (this.#answers.size < this.limit) this.#answers.set(question, answer);
    }
    return answer;
  }
}
