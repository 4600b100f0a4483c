// The whole OpenAPI document, as /openapi.json serves it, passes Redocly's recommended rules with
// no error and no warning (every endpoint, whoever adds it), through the CLI in node_modules,
// offline. Also: the response headers are components and reach every response; only standard
// string formats; a license and a server URL template.
import t from 'tap';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApi } from '../../src/api/openapi.js';

const run = promisify(execFile);
const doc = buildOpenApi('https://pay.example.org') as any;
const dir = mkdtempSync(path.join(os.tmpdir(), 'pe-openapi-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

interface Problem { ruleId: string; severity: string; message: string; location: { pointer: string }[] }

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');

t.test('redocly lint (recommended, the repository\'s redocly.yaml): no error, no warning; exactly the spec\'s three ambiguous paths ignored', async (t) => {
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  // The committed configuration and its ignore file (which says why each ignored problem is accepted).
  copyFileSync(path.join(root, 'redocly.yaml'), path.join(dir, 'redocly.yaml'));
  copyFileSync(path.join(root, '.redocly.lint-ignore.yaml'), path.join(dir, '.redocly.lint-ignore.yaml'));
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/package.json').replace(/package\.json$/, 'bin/cli.js');
  // Offline: no telemetry, no update check; a proxy that refuses would make any fetch fail loudly.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' };
  const out = await run(process.execPath, [cli, 'lint', '--config', path.join(dir, 'redocly.yaml'), '--format', 'json', file], { cwd: dir, env, maxBuffer: 16 << 20 })
    .catch((err: { stdout?: string; stderr?: string; code?: number }) => ({ stdout: err.stdout ?? '', stderr: `${err.stderr ?? ''} (exit ${err.code})` }));
  let report: { totals: { errors: number; warnings: number; ignored: number }; problems: Problem[] };
  try {
    report = JSON.parse(out.stdout.slice(out.stdout.indexOf('{')));
  } catch {
    t.fail(`redocly gave no JSON report: ${out.stdout.slice(0, 500)} ${out.stderr.slice(0, 1500)}`);
    return;
  }
  const lines = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
  t.same(lines, [], 'no problem at all');
  t.same(report.totals, { errors: 0, warnings: 0, ignored: 3 }, 'the three ambiguous paths of the spec, accepted in .redocly.lint-ignore.yaml, and nothing else');
});

t.test('response headers: components, on every response', async (t) => {
  const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  const names = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed', 'Original-Request'];
  t.same(Object.keys(doc.components.headers).sort(), [...names].sort());
  const all: [string, any][] = [];
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    for (const [m, op] of Object.entries<any>(item)) {
      if (!HTTP_METHODS.has(m)) continue; // path-level servers, parameters, summary
      for (const [status, r] of Object.entries<any>(op.responses)) {
        const resolved = r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r;
        all.push([`${m.toUpperCase()} ${p} ${status}`, { resolved, status, idempotent: (op.parameters ?? []).some((x: any) => x.name === 'Idempotency-Key') }]);
      }
    }
  }
  t.ok(all.length > 20, `${all.length} responses`);
  for (const [where, { resolved, status, idempotent }] of all) {
    const h = resolved.headers ?? {};
    t.same(h['X-Request-Id'], { $ref: '#/components/headers/X-Request-Id' }, `${where}: X-Request-Id`);
    if (status === '429' || status === '503' || status === '409') t.ok(h['Retry-After'], `${where}: Retry-After`);
    if (status === '429') t.ok(h['X-RateLimit-Reset'], `${where}: X-RateLimit-Reset`);
    if (idempotent && status.startsWith('2')) t.ok(h['Idempotent-Replayed'] && h['Original-Request'], `${where}: replay headers`);
  }
});

t.test('only standard formats; a license; a server URL template', async (t) => {
  const standard = new Set(['date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex', 'int32', 'int64', 'float', 'double', 'password', 'byte', 'binary']);
  const formats = new Set<string>();
  JSON.stringify(doc, (k, v) => { if (k === 'format' && typeof v === 'string') formats.add(v); return v; });
  t.ok(formats.has('ipv4') && formats.has('ipv6'), 'the customer ip is ipv4 or ipv6');
  t.same([...formats].filter((f) => !standard.has(f)), [], `formats used: ${[...formats].join(', ')}`);
  t.equal(doc.info.license.identifier, 'MIT');
  t.equal(doc.servers[0].url, '{base_url}/api/v2');
  t.equal(doc.servers[0].variables.base_url.default, 'https://pay.example.org');
});
