// Domain errors of the report store; the RPC layer maps them to Connect codes.
export class ReportStoreError extends Error {
  constructor(
    readonly kind: "invalid_argument" | "already_exists",
    message: string,
  ) {
    super(message);
  }
}

export const invalidArgument = (msg: string) => new ReportStoreError("invalid_argument", msg);
export const alreadyExists = (msg: string) => new ReportStoreError("already_exists", msg);
