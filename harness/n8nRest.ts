import { randomBytes } from 'node:crypto';

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
}
