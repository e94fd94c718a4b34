import { randomBytes } from 'node:crypto';

import type { ExecutionRecord } from './executions';
import type { N8nInstance } from './n8nProcess';

/**
 * n8n's internal REST API as the editor uses it: an owner is set up once, then every call carries
 * the session cookie and the same browser-id header (n8n ties the session to it).
 */
export class N8nRest {
	private cookie = '';
	private readonly browserId = randomBytes(8).toString('hex');

	constructor(readonly baseUrl: string) {}

	async setupOwner(email = 'owner@queue.test', password = 'Queue-Suite-Passw0rd'): Promise<void> {
		const response = await fetch(`${this.baseUrl}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': this.browserId },
			body: JSON.stringify({ email, firstName: 'Queue', lastName: 'Suite', password }),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`owner setup → ${response.status} ${text}`);
		const cookie = response.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (!cookie) throw new Error('owner setup set no n8n-auth cookie');
		this.cookie = cookie.split(';')[0];
	}

	async call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.baseUrl}/rest${path}`, {
			method,
			headers: { cookie: this.cookie, 'browser-id': this.browserId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`n8n ${method} ${path} → ${response.status} ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	/** A GET outside /rest with the session, e.g. `/types/nodes.json` (the node types the editor loads). */
	async getJson<T = any>(path: string): Promise<T> {
		const response = await fetch(`${this.baseUrl}${path}`, { headers: { cookie: this.cookie, 'browser-id': this.browserId } });
		const text = await response.text();
		if (!response.ok) throw new Error(`n8n GET ${path} → ${response.status} ${text.slice(0, 300)}`);
		return JSON.parse(text) as T;
	}

	/** The editor's "Retry" of a failed execution (with the workflow as it was then). */
	retryExecution(id: number | string, loadWorkflow = false) {
		return this.call('POST', `/executions/${id}/retry`, { loadWorkflow });
	}

	/**
	 * The executions list's Retry (`loadWorkflow`: "with currently saved workflow"), then the retry's
	 * execution record once n8n has finished it.
	 */
	async retried(n8n: N8nInstance, execution: ExecutionRecord, loadWorkflow: boolean, timeoutMs = 120_000): Promise<ExecutionRecord> {
		const before = n8n.finishedExecutions(execution.workflowId).length;
		await this.retryExecution(execution.id, loadWorkflow);
		const all = await n8n.waitForExecutions(execution.workflowId, before + 1, timeoutMs);
		const latest = all[all.length - 1];
		if (latest.mode !== 'retry') throw new Error(`the execution after Retry of ${execution.id} is ${latest.id} in mode ${latest.mode}, not a retry`);
		return latest;
	}

	/** Publishes a workflow as the editor's Publish button does (its saved version); n8n refuses one whose nodes have issues. */
	async publish(workflowId: string): Promise<any> {
		const { data } = await this.call('GET', `/workflows/${workflowId}`);
		return await this.call('POST', `/workflows/${workflowId}/activate`, { versionId: data.versionId });
	}

	/** Saves a change to a workflow's nodes as the editor does (PATCH with the version it read). */
	async saveNodes(workflowId: string, change: (nodes: any[]) => any[]): Promise<void> {
		const { data: workflow } = await this.call('GET', `/workflows/${workflowId}`);
		await this.call('PATCH', `/workflows/${workflowId}`, { nodes: change(workflow.nodes), versionId: workflow.versionId });
	}
}
