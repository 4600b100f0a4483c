// timestamptz text to epoch ms agrees with pg's own parser for every form Postgres writes.
import t from 'tap';
import pg from 'pg';
import { timestamptzMs } from '../../src/store/timestamps.js';

const pgParse = pg.types.getTypeParser(1184) as (s: string) => Date | string;

t.test('the same instant as pg\'s parser, fractions truncated to the millisecond', async (t) => {
  const cases = [
    '2026-11-23 15:30:13+00', '2026-11-23 15:30:13.1+00', '2026-11-23 15:30:13.12+00', '2026-11-23 15:30:13.123+00',
    '2026-11-23 15:30:13.123456+00', '2026-11-23 15:30:13.999999+00', '2026-01-01 00:00:00+03', '2026-06-30 23:59:59.5-07',
    '2026-03-10 08:15:00.250+05:30', '1999-12-31 23:59:59.001-09:30', '2026-02-28 12:00:00+05:53:28', '2024-02-29 00:00:00.000001+14',
  ];
  for (const c of cases) t.equal(timestamptzMs(c), (pgParse(c) as Date).getTime(), c);
});

t.test('forms it does not read itself go through pg\'s parser', async (t) => {
  t.equal(timestamptzMs('0044-03-15 12:00:00+00 BC'), (pgParse('0044-03-15 12:00:00+00 BC') as Date).getTime());
  t.ok(Number.isNaN(timestamptzMs('infinity')));
});

t.test('against the live server\'s text output, if there is one', { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL' }, async (t) => {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  t.teardown(() => c.end());
  for (const tz of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Moscow']) {
    await c.query(`SET TIME ZONE '${tz}'`);
    const { rows } = await c.query({ text: "SELECT now()::text AS a, (now() - interval '200 days')::text AS b, '2026-03-29 01:30:00.5+00'::timestamptz::text AS c", rowMode: 'array' });
    for (const s of rows[0] as string[]) t.equal(timestamptzMs(s), (pgParse(s) as Date).getTime(), `${tz}: ${s}`);
  }
});
