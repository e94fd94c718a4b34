import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { runtime } from './runtime';

/** One row of n8n's execution_entity, with its execution_data parsed. */
export interface ExecutionRecord {
	id: number;
	workflowId: string;
	mode: string;
	status: string;
	finished: boolean;
	startedAt: string | null;
	stoppedAt: string | null;
	/** IRunExecutionData, decoded from n8n's `flatted` storage format. */
	data: RunData;
}

export interface RunData {
	resultData: {
		runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> }; error?: unknown }>>;
		error?: { message?: string; [key: string]: unknown };
		lastNodeExecuted?: string;
	};
	[key: string]: unknown;
}

/** The error an execution ended with (n8n's resultData.error), if any. */
export function executionError(execution: ExecutionRecord): { message?: string; description?: string } | undefined {
	return execution.data.resultData.error as { message?: string; description?: string } | undefined;
}

/** Reads executions from n8n's own records. One implementation per database type. */
export interface ExecutionStore {
	list(workflowId?: string): ExecutionRecord[];
	/** The workflow's static data (what trigger nodes keep between deliveries), unencrypted in its row. */
	staticData(workflowId: string): Record<string, any> | null;
}

// n8n stores execution data with `flatted`; load n8n's own copy rather than adding a dependency.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const flatted = (): { parse(text: string): unknown } => require(join(runtime().n8nModules, 'flatted'));

/** The SQLite database of a user folder, read with Node 24's node:sqlite while n8n runs. */
/** One row of execution_entity joined with its execution_data, as any database driver returns it. */
export function executionRecord(row: Record<string, unknown>): ExecutionRecord {
	return {
		id: Number(row.id),
		workflowId: String(row.workflowId),
		mode: String(row.mode),
		status: String(row.status),
		finished: Boolean(row.finished),
		startedAt: (row.startedAt as string | null) ?? null,
		stoppedAt: (row.stoppedAt as string | null) ?? null,
		data: (row.data ? flatted().parse(String(row.data)) : { resultData: { runData: {} } }) as RunData,
	};
}

export class SqliteExecutionStore implements ExecutionStore {
	constructor(readonly file: string) {}

	private open() {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { DatabaseSync } = require('node:sqlite') as typeof import('node:sqlite');
		return new DatabaseSync(this.file, { readOnly: true });
	}

	staticData(workflowId: string): Record<string, any> | null {
		if (!existsSync(this.file)) return null;
		const db = this.open();
		try {
			const row = db.prepare('SELECT staticData FROM workflow_entity WHERE id = ?').get(workflowId) as { staticData?: string | null } | undefined;
			return row?.staticData ? (JSON.parse(row.staticData) as Record<string, any>) : null;
		} finally {
			db.close();
		}
	}

	list(workflowId?: string): ExecutionRecord[] {
		if (!existsSync(this.file)) return [];
		const db = this.open();
		try {
			const where = workflowId === undefined ? '' : 'WHERE e.workflowId = ?';
			const rows = db
				.prepare(
					`SELECT e.id, e.workflowId, e.mode, e.status, e.finished, e.startedAt, e.stoppedAt, d.data
					 FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id ${where} ORDER BY e.id`,
				)
				.all(...(workflowId === undefined ? [] : [workflowId])) as Array<Record<string, unknown>>;
			return rows.map(executionRecord);
		} finally {
			db.close();
		}
	}
}

/** The json of every item a node output (first output, every run of it), in order. */
export function nodeItems(run: RunData, nodeName: string, output = 0): Array<Record<string, unknown>> {
	const runs = run.resultData.runData[nodeName];
	if (!runs) throw new Error(`node "${nodeName}" did not run; ran: ${Object.keys(run.resultData.runData).join(', ')}`);
	return runs.flatMap((r) => (r.data?.main?.[output] ?? []).map((item) => item.json));
}
