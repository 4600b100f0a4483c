// Which key kind may call which kind of gateway route, for every kind, surface and permission.
import t from 'tap';
import { gatewayAccess, gatewayPrefixOf, grants, PERMISSIONS } from '../../src/domain/permissions.js';

t.test('secret keys pass everywhere; publishable keys only on the widget; merchant keys never', async (t) => {
  for (const surface of ['server', 'widget'] as const) {
    for (const need of [...PERMISSIONS, null]) {
      t.equal(gatewayAccess({ kind: 'secret', permissions: null }, surface, need), 'ok');
      t.equal(gatewayAccess({ kind: 'publishable', permissions: null }, surface, need), surface === 'widget' ? 'ok' : 'publishable_key_not_allowed');
      t.equal(gatewayAccess({ kind: 'merchant', permissions: null }, surface, need), 'key_kind_not_allowed');
    }
  }
});

t.test('restricted keys: exactly what the list grants, write implying read of the same resource', async (t) => {
  for (const held of PERMISSIONS) {
    for (const need of PERMISSIONS) {
      const [hr, ha] = held.split(':');
      const [nr, na] = need.split(':');
      const expected = held === need || (hr === nr && ha === 'write' && na === 'read');
      t.equal(gatewayAccess({ kind: 'restricted', permissions: [held] }, 'server', need), expected ? 'ok' : 'permission_denied', `${held} -> ${need}`);
    }
  }
  t.equal(gatewayAccess({ kind: 'restricted', permissions: [] }, 'server', 'payments:read'), 'permission_denied');
  t.equal(gatewayAccess({ kind: 'restricted', permissions: null }, 'widget', 'payments:write'), 'permission_denied');
  t.notOk(grants(['payments:*'], 'payments:read'), 'no wildcards');
  t.notOk(grants(['payments:read'], 'payments:write'), 'read does not imply write');
});

t.test('prefixes name kind and mode', async (t) => {
  t.same(gatewayPrefixOf('sk_live_abc'), { kind: 'secret', mode: 'live' });
  t.same(gatewayPrefixOf('rk_test_abc'), { kind: 'restricted', mode: 'test' });
  t.same(gatewayPrefixOf('pk_test_abc'), { kind: 'publishable', mode: 'test' });
  t.equal(gatewayPrefixOf('svc_test_abc'), null);
  t.equal(gatewayPrefixOf('sk_prod_abc'), null);
});
