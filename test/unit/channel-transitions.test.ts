// The channel status machine for every (status, default, command), and the id and slug rules.
import t from 'tap';
import { hardDeleteReasons, parseChannelRef, sessionRefusal, slugProblem, transitionChannel, type ChannelCommand, type ChannelStatus } from '../../src/domain/channel.js';

const NOW = 1_700_000_000_000;

t.test('every (status, default, command) pair', async (t) => {
  // [status, isDefault, command] -> next status | refusal. Only active channels can be the default.
  const table: [ChannelStatus, boolean, ChannelCommand, string][] = [
    ['active', false, 'pause', 'paused'], ['active', false, 'resume', 'channel_status_conflict'],
    ['active', false, 'delete', 'deleted'], ['active', false, 'restore', 'channel_status_conflict'],
    ['active', false, 'promote_default', 'active*'],
    ['active', true, 'pause', 'channel_is_default'], ['active', true, 'resume', 'channel_status_conflict'],
    ['active', true, 'delete', 'channel_is_default'], ['active', true, 'restore', 'channel_status_conflict'],
    ['active', true, 'promote_default', 'active*'],
    ['paused', false, 'pause', 'channel_status_conflict'], ['paused', false, 'resume', 'active'],
    ['paused', false, 'delete', 'deleted'], ['paused', false, 'restore', 'channel_status_conflict'],
    ['paused', false, 'promote_default', 'channel_status_conflict'],
    ['deleted', false, 'pause', 'channel_status_conflict'], ['deleted', false, 'resume', 'channel_status_conflict'],
    ['deleted', false, 'delete', 'channel_status_conflict'], ['deleted', false, 'restore', 'active'],
    ['deleted', false, 'promote_default', 'channel_status_conflict'],
  ];
  for (const [status, isDefault, cmd, want] of table) {
    const out = transitionChannel({ status, isDefault }, cmd, NOW);
    const got = typeof out === 'string' ? out : `${out.status}${out.isDefault ? '*' : ''}`;
    t.equal(got, want, `${status}${isDefault ? ' default' : ''} ${cmd}`);
    if (typeof out !== 'string') t.equal(out.deletedAt, out.status === 'deleted' ? NOW : null, 'deleted_at follows the status');
  }
});

t.test('paused and deleted channels refuse new sessions', async (t) => {
  t.equal(sessionRefusal({ status: 'active' }), null);
  t.equal(sessionRefusal({ status: 'paused' }), 'channel_paused');
  t.equal(sessionRefusal({ status: 'deleted' }), 'channel_deleted');
});

t.test('an id is a public id, a UUID or a slug, never ambiguous', async (t) => {
  t.same(parseChannelRef('ch_0123456789abcdefABCD'), { by: 'id', value: 'ch_0123456789abcdefABCD' });
  t.same(parseChannelRef('3F2504E0-4F89-11D3-9A0C-0305E82C3301'), { by: 'uuid', value: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' });
  t.same(parseChannelRef('web-shop'), { by: 'slug', value: 'web-shop' });
  for (const bad of ['', 'Web', 'ch_short', '-web', 'web-', 'a'.repeat(65), 'web shop', 'веб']) t.equal(parseChannelRef(bad), null, bad);
  t.equal(slugProblem('web-shop'), null);
  t.equal(slugProblem('a'.repeat(64)), null);
  t.match(slugProblem('3f2504e0-4f89-11d3-9a0c-0305e82c3301'), /UUID/);
  t.ok(slugProblem('Web'));
});

t.test('hard delete reasons list what references the channel', async (t) => {
  t.same(hardDeleteReasons({ isDefault: false }, { api_keys: 0, webhook_settings: 0, transactions: 0 }), []);
  t.same(hardDeleteReasons({ isDefault: true }, { api_keys: 2, webhook_settings: 0, transactions: 5 }),
    [{ reason: 'default_channel', count: 1 }, { reason: 'api_keys', count: 2 }, { reason: 'transactions', count: 5 }]);
});
