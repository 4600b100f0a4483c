// docker-compose.yml stays the rig's shape (issue 15): its app service names every setting the
// scale-out rig gives its replicas, and its load balancer renders the same nginx template with
// every placeholder the template has. No servers: reads the files.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NGINX_TEMPLATE, TEMPLATE_VARIABLES, renderTemplate } from '../rig/nginx.js';
import { RIG_APP_SETTINGS } from '../rig/rig.js';

const compose = readFileSync(fileURLToPath(new URL('../../../docker-compose.yml', import.meta.url)), 'utf8');

/** The lines of one top-level service (two-space indent) of the compose file. */
function service(name: string): string[] {
  const lines = compose.split('\n');
  const start = lines.indexOf(`  ${name}:`);
  if (start < 0) return [];
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^ {0,2}\S/.test(l)) break;
    out.push(l);
  }
  return out;
}

/** Keys of a service's `environment:` map. */
function environment(name: string): string[] {
  const lines = service(name);
  const at = lines.findIndex((l) => /^ {4}environment:\s*$/.test(l));
  if (at < 0) return [];
  const keys: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (/^ {0,4}\S/.test(l)) break;
    const m = /^ {6}([A-Z][A-Z0-9_]*):/.exec(l);
    if (m) keys.push(m[1]);
  }
  return keys;
}

t.test('the app service names every setting the rig gives its replicas', async (t) => {
  const env = environment('app');
  t.ok(env.length > 0, 'the app service has an environment');
  for (const s of RIG_APP_SETTINGS) t.ok(env.includes(s), `docker-compose.yml app sets ${s}`);
});

t.test('the load balancer renders deploy/nginx.conf with every placeholder', async (t) => {
  const lb = service('lb').join('\n');
  t.match(lb, /\.\/deploy\/nginx\.conf:\/etc\/nginx\/templates\/[\w.-]+\.conf\.template/, 'compose mounts deploy/nginx.conf as a template');
  const env = environment('lb');
  const template = readFileSync(NGINX_TEMPLATE, 'utf8');
  const used = [...new Set([...template.matchAll(/\$\{([A-Z][A-Z0-9_]*)\}/g)].map((m) => m[1]))].sort();
  t.same(used, [...TEMPLATE_VARIABLES].sort(), 'the template uses exactly the rig\'s placeholders');
  for (const v of TEMPLATE_VARIABLES) t.ok(env.includes(v), `docker-compose.yml lb sets ${v}`);
  t.throws(() => renderTemplate(template, { LB_LISTEN: '80' }), /LB_SERVERS/, 'a missing value is refused, not left in');
});

t.test('nginx lets an idle upstream connection go before the engine closes it', async (t) => {
  // uWS closes a keep-alive connection idle for 10 s, from 8 s on (its timer ticks every 4 s). A POST
  // nginx sends on a connection being closed gets a reset and a 502; nginx never resends a POST.
  const template = readFileSync(NGINX_TEMPLATE, 'utf8');
  const upstream = /^upstream\s+\w+\s*\{\n([\s\S]*?)^\}/m.exec(template)?.[1] ?? ''; // up to its closing line
  const m = /^\s*keepalive_timeout\s+(\d+)(ms|s)?;/m.exec(upstream);
  t.ok(m, 'the upstream block sets keepalive_timeout (nginx\'s default is 60 s)');
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : 1000) : Infinity;
  t.ok(ms < 8000, `the upstream idle timeout (${ms} ms) is under the engine's 8 s`);
});
