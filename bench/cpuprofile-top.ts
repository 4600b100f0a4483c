// Reads V8 .cpuprofile files (node --cpu-prof) and aggregates self time by function and by file or
// package. CLI: node dist/bench/cpuprofile-top.js <file-or-dir> [top=15]
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export interface Entry { name: string; ms: number; pct: number }
export interface ProfileSummary { file: string; totalMs: number; idleMs: number; byFunction: Entry[]; byPlace: Entry[]; within: Entry[] }

/**
 * Parts of our code whose time is shown inclusively: samples with a frame of that part anywhere on
 * the stack. The sandbox bank stands for a remote acquirer (issue 25: the engine's cost apart from the
 * bank's); what it awaits (its Postgres statements' callbacks) runs on other stacks and is not counted.
 */
export const WITHIN = [{ name: 'sandbox bank (src/connectors/sandbox/, synchronous part)', prefix: 'src/connectors/sandbox/' }];

/** Where code lives: a package under node_modules, our file under dist/, node: internals, or a V8 pseudo-node. */
export function placeOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return `npm:${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 6);
  return url.replace(/^file:\/\//, '');
}

function top(map: Map<string, number>, busyMs: number, n: number): Entry[] {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, n)
    .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, pct: Math.round(us / busyMs) / 10 }));
}

export function summarise(file: string, n = 15): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const parent = new Map<number, number>();
  for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const withinTime = new Map<string, number>();
  /** The WITHIN parts with a frame on the stack of node id (memoised per node). */
  const partsMemo = new Map<number, string[]>();
  const partsOf = (id: number): string[] => {
    let parts = partsMemo.get(id);
    if (parts) return parts;
    const node = byId.get(id)!;
    const place = placeOf(node.callFrame.url, node.callFrame.functionName);
    const up = parent.has(id) ? partsOf(parent.get(id)!) : [];
    const here = WITHIN.filter((w) => place.startsWith(w.prefix)).map((w) => w.name);
    parts = here.length ? [...new Set([...up, ...here])] : up;
    partsMemo.set(id, parts);
    return parts;
  };
  const fnTime = new Map<string, number>();
  const placeTime = new Map<string, number>();
  let idleUs = 0;
  let totalUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const us = p.timeDeltas[i + 1] ?? 0; // the time until the next sample belongs to this one
    const node = byId.get(p.samples[i]);
    if (!node) continue;
    totalUs += us;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') { idleUs += us; continue; }
    const place = placeOf(url, functionName);
    const key = `${functionName || '(anonymous)'}  ${url ? `${place}:${lineNumber + 1}` : ''}`.trim();
    fnTime.set(key, (fnTime.get(key) ?? 0) + us);
    placeTime.set(place, (placeTime.get(place) ?? 0) + us);
    for (const part of partsOf(node.id)) withinTime.set(part, (withinTime.get(part) ?? 0) + us);
  }
  const busyMs = Math.max(1, (totalUs - idleUs) / 1000);
  return {
    file, totalMs: Math.round(totalUs / 1000), idleMs: Math.round(idleUs / 1000),
    byFunction: top(fnTime, busyMs, n), byPlace: top(placeTime, busyMs, n), within: top(withinTime, busyMs, WITHIN.length),
  };
}

export function formatSummary(s: ProfileSummary): string {
  const rows = (title: string, list: Entry[]) => [title, ...list.map((e, i) =>
    `${String(i + 1).padStart(3)}. ${String(e.ms).padStart(9)} ms ${String(e.pct).padStart(5)}%  ${e.name}`)];
  return [
    `${path.basename(s.file)}: ${s.totalMs} ms sampled, ${s.idleMs} ms idle, ${s.totalMs - s.idleMs} ms busy (percentages of busy)`,
    ...rows('  self time by function:', s.byFunction),
    ...rows('  self time by file / package:', s.byPlace),
    ...(s.within.length ? rows('  time with a frame of these parts on the stack:', s.within) : []),
  ].join('\n');
}

export function profileFiles(target: string): string[] {
  if (!statSync(target).isDirectory()) return [target];
  return readdirSync(target).filter((f) => f.endsWith('.cpuprofile')).sort().map((f) => path.join(target, f));
}

const isMain = (() => {
  try { return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url)); } catch { return false; }
})();
if (isMain) {
  const target = process.argv[2];
  if (!target) {
    process.stderr.write('usage: node dist/bench/cpuprofile-top.js <file.cpuprofile|dir> [top=15]\n');
    process.exit(1);
  }
  for (const f of profileFiles(target)) process.stdout.write(formatSummary(summarise(f, Number(process.argv[3] ?? 15))) + '\n\n');
}
