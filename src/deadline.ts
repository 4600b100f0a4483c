// A bound on any wait: resolves with the value, the error, or `timedOut` when `ms` passed first.
// The promise itself is not cancelled; its late outcome is ignored by the caller.

export type Bounded<T> = { timedOut: false; value?: T; error?: unknown } | { timedOut: true; error?: undefined };

export function withDeadline<T>(p: Promise<T>, ms: number): Promise<Bounded<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timedOut: true }), ms);
    p.then((value) => { clearTimeout(timer); resolve({ timedOut: false, value }); },
      (error: unknown) => { clearTimeout(timer); resolve({ timedOut: false, error }); });
  });
}
