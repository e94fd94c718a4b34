import { DatabaseSync } from 'node:sqlite';

import { sleep } from '../../harness/n8nProcess';

/** POSTs JSON and returns the status, the text and the wall time in ms. */
export async function postJson(url: string, body: unknown): Promise<{ status: number; text: string; ms: number }> {
	const started = performance.now();
	const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	const text = await response.text();
	return { status: response.status, text, ms: performance.now() - started };
}

/** Runs `work(i)` for i in [0, count) with at most `concurrency` at a time. */
export async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < count) await work(next++);
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** Finished executions of a workflow, counted in n8n's SQLite (read-only, while n8n runs). */
export function countExecutions(dbFile: string, workflowId: string): { done: number; failed: number } {
	const db = new DatabaseSync(dbFile, { readOnly: true });
	try {
		const row = db
			.prepare(
				`SELECT SUM(CASE WHEN status = 'success' THEN 1 ELSE 0 END) AS done,
				        SUM(CASE WHEN status IN ('error', 'crashed') THEN 1 ELSE 0 END) AS failed
				 FROM execution_entity WHERE workflowId = ?`,
			)
			.get(workflowId) as { done: number | null; failed: number | null };
		return { done: Number(row.done ?? 0), failed: Number(row.failed ?? 0) };
	} finally {
		db.close();
	}
}

/** Polls until `count()` reaches `target`; returns the time it did (performance.now()). */
export async function waitForCount(count: () => number, target: number, timeoutMs: number, pollMs = 50): Promise<number> {
	const deadline = performance.now() + timeoutMs;
	for (;;) {
		if (count() >= target) return performance.now();
		if (performance.now() > deadline) throw new Error(`count stayed at ${count()} (wanted ${target}) for ${timeoutMs} ms`);
		await sleep(pollMs);
	}
}
