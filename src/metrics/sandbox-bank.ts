// The sandbox bank's share of a shard's time and statements (src/connectors/sandbox/ledger-group.ts
// keeps the figures). The sandbox bank stands for a remote acquirer but runs on this machine and
// this database, so the engine's own cost is what is left once these are taken out (docs/operations.md).
import { Counter, type Registry } from 'prom-client';

export interface SandboxBankFigures { calls: number; callSeconds: number; statements: number; statementSeconds: number; rows: number }

export function sandboxBankMetrics(registers: Registry[], shard: string, f: SandboxBankFigures): void {
  const counter = (name: string, help: string, value: () => number) =>
    new Counter({ name, help, labelNames: ['shard'], registers, collect() { this.reset(); this.inc({ shard }, value()); } });
  counter('sandbox_bank_calls_total', 'Calls of the sandbox bank (operations and status queries) a shard made since it started.', () => f.calls);
  counter('sandbox_bank_call_seconds_total', 'Wall time callers of a shard spent inside sandbox bank calls (decision, grouping wait, ledger statements).', () => f.callSeconds);
  counter('sandbox_bank_statements_total', "Postgres statements the sandbox bank's ledger sent from a shard (grouped: one carries many calls).", () => f.statements);
  counter('sandbox_bank_statement_seconds_total', 'Time spent in those statements, from sending to answer.', () => f.statementSeconds);
  counter('sandbox_bank_statement_rows_total', 'Bank calls those statements carried (÷ statements: the group size).', () => f.rows);
}
