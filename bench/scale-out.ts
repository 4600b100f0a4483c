// Throughput of 1, 2 and 3 server processes behind nginx on one Postgres and a three-master Redis
// Cluster: the scale-out rig (test/rig) as an operator runs it, measured with the create load of
// the main bench (each request its own Idempotency-Key). `npm run build && node dist/bench/scale-out.js`
// (SCALE_PROCESSES "1,2,3", SCALE_WORKERS 1, BENCH_SECONDS 8, BENCH_CONNECTIONS 64). Prints a
// markdown table and the machine's busy share before each run (the machine may be shared).
import { measure } from './load.js';
import { busyPercent } from './quiet.js';
import { createRequest } from './server-scenarios.js';
import { rigMissing, startRig } from '../test/rig/rig.js';

const missing = rigMissing();
if (missing) { process.stderr.write(`scale-out bench: ${missing}\n`); process.exit(1); }
const counts = (process.env.SCALE_PROCESSES ?? '1,2,3').split(',').map(Number);
const workers = Number(process.env.SCALE_WORKERS ?? 1);
const load = { connections: Number(process.env.BENCH_CONNECTIONS ?? 64), seconds: Number(process.env.BENCH_SECONDS ?? 8), warmupSeconds: 2 };
const rows: string[] = [];
for (const n of counts) {
  const rig = await startRig({ replicas: n, workers });
  try {
    const m = await rig.merchant();
    const busy = await busyPercent(1000);
    const f = await measure(rig.url, [createRequest(m.key, `scale-${n}`)], load);
    rows.push(`| ${n} × WORKERS=${workers} | ${f.reqPerSec} | ${f.p50} | ${f.p99} | ${f.non2xx + f.errors} | ${busy} % |`);
    process.stdout.write(`${rows[rows.length - 1]}\n`);
  } finally {
    await rig.close();
  }
}
process.stdout.write(['', `POST /api/v2/payments through nginx, ${load.connections} connections, ${load.seconds} s after ${load.warmupSeconds} s warm-up:`, '',
  '| processes | creates/s | p50 ms | p99 ms | errors + non-2xx | machine busy before |', '|---|---|---|---|---|---|', ...rows, ''].join('\n'));
