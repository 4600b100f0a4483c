// The memory all request bodies being received may take together. A body reserves its declared
// Content-Length (or, without one, what has arrived so far) before a byte is copied; past the
// budget the request is refused with 503 at once and uWS discards the rest of the body unread.
// One budget per process: readBody is called from the pipeline and from form handlers alike.

export class BodyBudget {
  inUse = 0;
  refusedBusy = 0;
  refusedTooLarge = 0;

  constructor(public limit: number) {}

  /** Takes `bytes` from the budget; false (and nothing taken) when that would exceed it. */
  reserve(bytes: number): boolean {
    if (bytes <= 0) return true;
    if (this.inUse + bytes > this.limit) { this.refusedBusy++; return false; }
    this.inUse += bytes;
    return true;
  }

  release(bytes: number): void {
    this.inUse = Math.max(0, this.inUse - bytes);
  }
}

export const bodyBudget = new BodyBudget(64 * 1024 * 1024);

/** Applies the configured limit (BODY_MEMORY_LIMIT_BYTES); called once when the app is built. */
export function setBodyMemoryLimit(bytes: number): void { bodyBudget.limit = bytes; }
