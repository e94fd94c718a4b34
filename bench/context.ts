import type { N8nInstance } from '../harness/n8nProcess';
import type { BatchOrderFields } from './workflows';
import type { SandboxHandle } from '../harness/sandbox';
import type { LoggedRequest, SandboxClient } from '../harness/sandboxClient';

/** What every section gets: one sandbox process, one n8n with every bench workflow imported. */
export interface BenchContext {
	sandbox: SandboxHandle & { pid: number };
	operator: SandboxClient;
	n8n: N8nInstance;
	credential: { id: string; name: string };
	state: any;
	config: BenchConfig;
	log: (line: string) => void;
	/** The body fields every batch order shares. */
	order: BatchOrderFields;
	/** BENCH_CPU_PROFILE: n8n's inspector port, and where the batch runs' CPU profiles go. */
	profiling?: { inspectorPort: number; dir: string };
}

export interface BenchConfig {
	runs: number;
	/** Payment orders created per batch run. */
	orders: number;
	/** Options → Concurrency of our node and the undici loop's concurrency. */
	concurrency: number;
	/** Payment orders listed by Return All. */
	listed: number;
	pageSize: number;
	/** Signed deliveries per trigger run, and how many are in flight at once. */
	deliveries: number;
	deliveryConcurrency: number;
	/** Sections to run (all by default). */
	sections: string[];
}

/** Requests the sandbox logged since `mark` that match, read in pages (the log can be long). */
export async function loggedSince(operator: SandboxClient, mark: number, match: (r: LoggedRequest) => boolean): Promise<LoggedRequest[]> {
	return (await operator.requests(mark)).filter(match);
}

/** The error of a workflow's last execution, from n8n's database (for a failed run's message). */
export function lastError(ctx: BenchContext, workflowId: string): string {
	const last = ctx.n8n.listExecutions(workflowId).at(-1);
	if (!last) return 'no execution saved';
	const error = last.data.resultData.error as { message?: string; description?: string; node?: { name?: string } } | undefined;
	return `last execution ${last.status}: ${error?.node?.name ?? ''} ${error?.message ?? ''} ${error?.description ?? ''}`;
}
