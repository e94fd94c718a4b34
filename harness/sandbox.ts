import { join } from 'node:path';

import { repoRoot } from './runtime';

/** What `startSandbox` returns (URLs without /api/v1, as the credential wants them). */
export interface SandboxHandle {
	mainUrl: string;
	rewardsUrl: string;
	apiKey: string;
	operatorUrl: string;
	close(): Promise<void>;
}

export interface SandboxStartOptions {
	port?: number;
	rewardsPort?: number;
	timeScale?: number;
	allowLoopbackWebhooks?: boolean;
	[key: string]: unknown;
}

/** The sandbox in this process (loaded by path so this library compiles before it exists). */
export async function startSandbox(options: SandboxStartOptions = {}): Promise<SandboxHandle> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const server = require(join(repoRoot, 'sandbox', 'server')) as {
		startSandbox(options: SandboxStartOptions): Promise<SandboxHandle>;
	};
	return await server.startSandbox({ port: 0, rewardsPort: 0, ...options });
}

export interface LoggedRequest {
	seq: number;
	api: 'main' | 'rewards';
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	headers: Record<string, string | string[] | undefined>;
	body: any;
	status: number;
}

/** The operator API under {mainUrl}/sandbox/ (no key). */
export class Operator {
	constructor(readonly sandbox: SandboxHandle) {}

	async call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.sandbox.operatorUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`operator ${method} ${path} → ${response.status} ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	state() {
		return this.call<any>('GET', 'state');
	}

	/** Requests the sandbox received (both APIs), after `since` (a seq) when given. */
	async requests(since?: number): Promise<LoggedRequest[]> {
		const query = since === undefined ? '' : `?since=${since}`;
		return (await this.call<{ requests: LoggedRequest[] }>('GET', `requests${query}`)).requests;
	}

	/** The highest request seq so far (0 when none): pass it to requests() to see only what follows. */
	async mark(): Promise<number> {
		return (await this.call<{ lastSeq: number }>('GET', `requests?since=${Number.MAX_SAFE_INTEGER}`)).lastSeq;
	}

	fault(fault: { method?: string; path: string; count: number; status?: number; retryAfter?: number; delayMs?: number; commitThen500?: boolean }) {
		return this.call('POST', 'faults', fault);
	}

	clearFaults() {
		return this.call('DELETE', 'faults');
	}

	reset() {
		return this.call('POST', 'reset');
	}

	/** Calls the public API with the sandbox key (for arranging state and checking results). */
	async api<T = any>(method: string, path: string, body?: unknown, base: 'main' | 'rewards' = 'main'): Promise<T> {
		const origin = base === 'main' ? this.sandbox.mainUrl : this.sandbox.rewardsUrl;
		const response = await fetch(`${origin.replace(/\/+$/, '')}/api/v1${path}`, {
			method,
			headers: { 'x-api-key': this.sandbox.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	/** A standard order from the demo seed's alice to bob's first wallet, through the public API. */
	async createOrder(amountUsd: number, memo: string, idempotencyKey: string): Promise<any> {
		const {
			users: [alice, bob],
		} = await this.call('GET', '/state');
		const order = await this.api('POST', '/payment', {
			fromUserId: alice.id,
			toAddress: bob.wallets[0].address,
			toChain: bob.wallets[0].chain,
			asset: 'USDC',
			amountUsd,
			expiresAt: new Date(Date.now() + 3600_000).toISOString(),
			memo,
			idempotencyKey,
		});
		return order.paymentOrder;
	}
}

/** The credential data for a sandbox, as `n8n import:credentials` takes it. */
export function sandboxCredential(sandbox: SandboxHandle, id = 'chSandboxCred001', name = 'Clearinghouse sandbox') {
	return {
		id,
		name,
		type: 'clearinghouseApi',
		data: { apiKey: sandbox.apiKey, baseUrl: sandbox.mainUrl, rewardsUrl: sandbox.rewardsUrl },
	};
}
