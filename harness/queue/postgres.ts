import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { executionRecord, type ExecutionRecord, type ExecutionStore } from '../executions';

/** psql of the newest installed PostgreSQL (Debian puts it under /usr/lib/postgresql/<v>/bin). */
function psqlBin(): string {
	const base = '/usr/lib/postgresql';
	if (existsSync(base)) {
		const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
		for (const v of versions) if (existsSync(join(base, v, 'bin', 'psql'))) return join(base, v, 'bin', 'psql');
	}
	return 'psql';
}

/**
 * n8n's PostgreSQL database, read with psql (synchronous, so it fits the harness's ExecutionStore).
 * Columns are camelCase in n8n's schema, hence the quotes.
 */
export class PostgresExecutionStore implements ExecutionStore {
	constructor(readonly port: number) {}

	/** Rows of a query as JSON (the query must return one json value). */
	json<T>(query: string): T {
		const out = execFileSync(
			psqlBin(),
			['-h', '127.0.0.1', '-p', String(this.port), '-U', 'n8n', '-d', 'n8n', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', query],
			{
				encoding: 'utf8',
				maxBuffer: 512 * 1024 * 1024,
				env: { ...process.env, PGCONNECT_TIMEOUT: '5' },
			},
		).trim();
		return (out ? JSON.parse(out) : null) as T;
	}

	/** Runs statements that return nothing (DDL, for example). */
	run(sql: string): void {
		this.json<null>(sql);
	}

	staticData(workflowId: string): Record<string, any> | null {
		const row = this.json<{ staticData: unknown } | null>(
			`SELECT row_to_json(w) FROM (SELECT "staticData" FROM workflow_entity WHERE id = '${sqlString(workflowId)}') w`,
		);
		const value = row?.staticData;
		if (!value) return null;
		return (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, any>;
	}

	list(workflowId?: string): ExecutionRecord[] {
		const where = workflowId === undefined ? '' : `WHERE e."workflowId" = '${sqlString(workflowId)}'`;
		const rows =
			this.json<Array<Record<string, unknown>>>(
				`SELECT coalesce(json_agg(r ORDER BY r.id), '[]') FROM (
				   SELECT e.id, e."workflowId", e.mode, e.status, e.finished, e."startedAt", e."stoppedAt", e."retryOf", d.data
				   FROM execution_entity e LEFT JOIN execution_data d ON d."executionId" = e.id ${where}) r`,
			) ?? [];
		return rows.map((row) => ({
			...executionRecord(row),
			retryOf: (row.retryOf as string | null) ?? null,
		}));
	}
}

function sqlString(value: string): string {
	return value.replace(/'/g, "''");
}
