// `npm run rig` (node dist/test/rig/start.js [replicas]): starts the scale-out rig by hand and keeps
// it up until Ctrl-C, then tears everything down (replicas, nginx, Redis Cluster, the database).
import { RIG_ADMIN, rigMissing, startRig } from './rig.js';

const missing = rigMissing();
if (missing) { process.stderr.write(`rig: cannot start: ${missing}\n`); process.exit(1); }
const replicas = Number(process.argv[2] ?? 3);
const rig = await startRig({ replicas, workers: Number(process.env.WORKERS ?? 1), log: (m) => process.stdout.write(`rig: ${m}\n`) });
process.stdout.write(`rig: up. Operator token ${RIG_ADMIN}; try: curl -s ${rig.url}/v2/health\n`);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  process.stdout.write('rig: tearing down\n');
  rig.close().then(() => process.exit(0), (err) => { process.stderr.write(`rig: teardown failed: ${(err as Error).message}\n`); process.exit(1); });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
