// The "now" of an aggregate on a test clock (issue 26): the clock's frozen time, read from Postgres
// at each command (the clock moves outside the actor). Objects not on a clock use the process clock,
// as before, with no extra round trip. A clock deleted meanwhile detached its objects: wall time.
import { clockTime } from '../../src/store/test-clocks-repo.js';
import type { ActorContext } from '../context.js';

export async function clockNow(ctx: ActorContext, testClockId: string): Promise<number> {
  return (await clockTime(ctx.db, testClockId)) ?? ctx.now();
}
