// "No worker resources": nothing alive for that kind/location, or all saturated past the bounded queue.
// The edge answers processing_error (HTTP 400 + Retry-After) for it.
export class NoWorkerError extends Error {
  override readonly name = "NoWorkerError";
  constructor(message: string, readonly retryAfterSeconds = 5) {
    super(message);
  }
}

// The job was accepted but no result came back in time, or every delivery crashed its worker.
export class ScanFailedError extends Error {
  override readonly name = "ScanFailedError";
}
