// The shape of a grouped statement's plan: which CTEs its execution read more than once. The
// planner counts a CTE as one row, so a CTE joined to another, or read in a subquery per row, is a
// loop whose cost grows with the square of the group (docs/decisions.md, "A refund's settlement
// joins no two CTEs"). Run inside a transaction that is rolled back: EXPLAIN ANALYZE executes.
import type pg from 'pg';

export type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Every node of a plan, subplans and CTEs included. */
export function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/** Executes `q` under EXPLAIN ANALYZE in a transaction rolled back, and returns its plan's root. */
export async function analyzedPlan(pool: pg.Pool, q: { text: string; values: unknown[] }): Promise<PlanNode> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const res = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.text}`, q.values);
    return (res.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan;
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

/** A scan of a table (what drives a loop over a CTE linearly: the planner picks it only for a small table). */
const tableScan = (n: PlanNode): boolean => typeof n['Relation Name'] === 'string' && n['Node Type'] !== 'ModifyTable';

/**
 * The CTEs a plan scanned more than once per row of something other than a table, as
 * "name (loops)": an inner side of a nested loop whose outer side is a CTE, a function scan or a
 * join of them, or a subquery run per row. A CTE rescanned per row of a table's scan is linear in
 * the group (the planner takes that plan only for a table of a few rows, as in a test's database).
 */
export function rescannedCtes(root: PlanNode): string[] {
  const out: string[] = [];
  const visit = (n: PlanNode, drivenByTable: boolean): void => {
    if (n['Node Type'] === 'CTE Scan' && Number(n['Actual Loops']) > 1 && !drivenByTable) out.push(`${n['CTE Name']} (${n['Actual Loops']} loops)`);
    const kids = n.Plans ?? [];
    kids.forEach((k, i) => {
      const inner = n['Node Type'] === 'Nested Loop' && i === 1;
      visit(k, inner ? planNodes(kids[0]).some(tableScan) && !planNodes(kids[0]).some((x) => x['Node Type'] === 'CTE Scan' || x['Node Type'] === 'Function Scan')
        : drivenByTable && k['Parent Relationship'] !== 'SubPlan');
    });
  };
  visit(root, false);
  return out;
}

/** The first statement a repository call sends (the call itself runs against a pool that answers no rows). */
export async function queryOf(call: (db: pg.Pool) => Promise<unknown>): Promise<{ text: string; values: unknown[] }> {
  let first: { text: string; values: unknown[] } | null = null;
  const recorder = { query: async (q: { text: string; values: unknown[] }) => { first ??= q; return { rows: [{}], rowCount: 0 }; } };
  await call(recorder as unknown as pg.Pool).catch(() => {});
  if (!first) throw new Error('the call sent no statement');
  return first;
}
