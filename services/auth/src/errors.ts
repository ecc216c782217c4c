// Domain errors of the auth store; the RPC layer maps them to Connect codes, the keys CLI prints their message.
export class AuthStoreError extends Error {
  constructor(
    readonly kind: "invalid_argument" | "not_found",
    message: string,
  ) {
    super(message);
  }
}

export const invalidArgument = (msg: string) => new AuthStoreError("invalid_argument", msg);
export const notFound = (msg: string) => new AuthStoreError("not_found", msg);
