// Group insert: creates that arrive while earlier inserts are in flight are written together in
// one multi-row statement, so Postgres pays its per-statement and per-commit cost once per batch
// rather than once per payment. At low load every create goes alone, with no added wait. Each
// caller still gets its answer only after the statement holding its row has committed.
import type pg from 'pg';
import type { Payment } from '../src/domain/payment.js';
import { insertPayments, type InsertOutcome } from '../src/store/payments-repo.js';

interface Pending { p: Payment; resolve(o: InsertOutcome): void; reject(e: unknown): void }

export class CreateBatcher {
  private queue: Pending[] = [];
  private inflight = 0;

  constructor(private readonly db: pg.Pool, private readonly maxInflight = 4, private readonly maxBatch = 64) {}

  insert(p: Payment): Promise<InsertOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ p, resolve, reject });
      if (this.inflight < this.maxInflight) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.inflight++;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const outcomes = await insertPayments(this.db, batch.map((b) => b.p));
          batch.forEach((b, i) => b.resolve(outcomes[i]));
        } catch (err) {
          batch.forEach((b) => b.reject(err));
        }
      }
    } finally {
      this.inflight--;
    }
  }
}
