// Waits on a condition instead of a fixed sleep: resolves as soon as `fn` holds, fails after `ms`.
export async function until(what: string, fn: () => boolean | Promise<boolean>, ms = 20_000, everyMs = 50): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) { if (await fn()) return; await new Promise((r) => setTimeout(r, everyMs)); }
  throw new Error(`timed out waiting for ${what}`);
}
