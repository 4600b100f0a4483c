// The shape of a grouped statement's plan: which CTEs its execution read more than once. The
// planner counts a CTE as one row, so a CTE joined to another, or read in a subquery per row, is a
// loop whose cost grows with the square of the group (docs/decisions.md, "A refund's settlement
// joins no two CTEs"). Run inside a transaction that is rolled back: EXPLAIN ANALYZE executes.
import type pg from 'pg';

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Every node of a plan, subplans and CTEs included. */
export function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/** Executes `q` under EXPLAIN ANALYZE in a transaction rolled back, and returns its plan's nodes. */
export async function analyzedPlan(pool: pg.Pool, q: { text: string; values: unknown[] }): Promise<PlanNode[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const res = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.text}`, q.values);
    return planNodes((res.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

/** The CTEs a plan scanned more than once, as "name (loops)". */
export const rescannedCtes = (nodes: PlanNode[]): string[] =>
  nodes.filter((n) => n['Node Type'] === 'CTE Scan' && Number(n['Actual Loops']) > 1).map((n) => `${n['CTE Name']} (${n['Actual Loops']} loops)`);
