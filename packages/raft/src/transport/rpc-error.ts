/** Why a request did not get a successful answer. */
export type RpcFailure =
  | "timeout" // no answer within the caller's deadline
  | "unreachable" // the connection dropped while the request was outstanding: it may have run
  | "unconnected" // no connection to the peer could be made: the request never left
  | "overloaded" // too many requests already waiting for this peer
  | "no-handler" // the peer has no handler for the method
  | "remote"; // the handler ran and threw

/** A failed exchange with a peer: a snapshot stream here, the agent's server RPC there. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly failure: RpcFailure,
    message: string,
    /** For `remote` failures: the name of the error the handler threw (e.g. "NotLeaderError"). */
    readonly remoteName?: string,
    /** For `remote` failures: the `data` field of the error the handler threw, if any. */
    readonly remoteData?: unknown,
  ) {
    super(message);
  }
}
