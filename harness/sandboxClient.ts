/**
 * The one sandbox client: the public APIs (main and rewards) with the sandbox key, the operator API
 * (state, request log, marks, faults, reset), and raw replies for tests of the API itself. Used
 * in-process (sandbox and node tests) and against a sandbox beside a real n8n (e2e, queue, bench);
 * the tests import it from here.
 */
import { PAYMENT_ORDER_STATUSES } from '../nodes/shared/paymentOrderStatus';
import { SANDBOX_PROOF_HEADER } from '../nodes/shared/transport';
import type { Sandbox } from '../sandbox/server';
import type { LoggedRequest as SandboxLoggedRequest } from '../sandbox/traffic';

/** One entry of the sandbox's request log; tests read its body freely. */
export type LoggedRequest = SandboxLoggedRequest & { body: any };

/** How the request log shows a key (sandbox/traffic.ts): what a test compares a logged `x-api-key` with. */
export { maskedSecret } from '../sandbox/traffic';

/** Where a sandbox answers (what `startSandbox` returns, in this process or another). */
export type SandboxUrls = Pick<Sandbox, 'mainUrl' | 'rewardsUrl' | 'apiKey' | 'operatorUrl'>;

export interface Reply<T = any> {
	status: number;
	body: T;
	headers: Headers;
}

export interface Fault {
	method?: string;
	path: string;
	count: number;
	status?: number;
	retryAfter?: number;
	delayMs?: number;
	commitThen500?: boolean;
}

/** HTTP to one base URL with an optional key: every reply, whatever its status. */
export class Client {
	constructor(
		public base: string,
		public key?: string,
	) {}

	async req<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
		const h: Record<string, string> = { ...headers };
		if (this.key !== undefined) h['x-api-key'] = this.key;
		if (body !== undefined) h['content-type'] = 'application/json';
		const res = await fetch(this.base + path, {
			method,
			headers: h,
			body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
		});
		const text = await res.text();
		return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
	}
	get<T = any>(p: string, h?: Record<string, string>) {
		return this.req<T>('GET', p, undefined, h);
	}
	post<T = any>(p: string, b?: unknown, h?: Record<string, string>) {
		return this.req<T>('POST', p, b ?? {}, h);
	}
	put<T = any>(p: string, b?: unknown, h?: Record<string, string>) {
		return this.req<T>('PUT', p, b ?? {}, h);
	}
	patch<T = any>(p: string, b?: unknown, h?: Record<string, string>) {
		return this.req<T>('PATCH', p, b ?? {}, h);
	}
	del<T = any>(p: string, h?: Record<string, string>) {
		return this.req<T>('DELETE', p, undefined, h);
	}
}

/** A seeded user of the operator's state by label ('alice', 'bob', 'carol' in the demo seed); undefined when the seed has none. */
export function userOf(state: { users: any[] }, label: string): any {
	return state.users.find((u) => u.label === label);
}

/** A user's wallet address on a chain. */
export function walletOf(user: { wallets: Array<{ chain: string; address: string }> }, chain: string): string {
	const wallet = user.wallets.find((w) => w.chain === chain);
	if (!wallet) throw new Error(`no ${chain} wallet for ${JSON.stringify((user as { label?: string }).label ?? user)}`);
	return wallet.address;
}

export class SandboxClient {
	/** The public main API under /api/v1, with the sandbox key. */
	readonly main: Client;
	/** The public rewards API under /api/v1, with the sandbox key. */
	readonly rewards: Client;
	/** The operator API under {mainUrl}/sandbox (no key). */
	readonly operatorApi: Client;

	constructor(readonly sandbox: SandboxUrls) {
		this.main = new Client(`${sandbox.mainUrl}/api/v1`, sandbox.apiKey);
		this.rewards = new Client(`${sandbox.rewardsUrl}/api/v1`, sandbox.apiKey);
		this.operatorApi = new Client(sandbox.operatorUrl.replace(/\/+$/, ''));
	}

	/** The operator API (`state`, `/requests?since=3`, ...); throws unless it answers 2xx. */
	async call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const reply = await this.operatorApi.req<T>(method, `/${path.replace(/^\/+/, '').replace(/^sandbox\//, '')}`, body);
		if (reply.status >= 300) throw new Error(`operator ${method} ${path} → ${reply.status} ${JSON.stringify(reply.body)}`);
		return reply.body;
	}

	/** The public API with the sandbox key (for arranging state and checking results); throws unless 2xx. */
	async api<T = any>(method: string, path: string, body?: unknown, base: 'main' | 'rewards' = 'main'): Promise<T> {
		const reply = await this[base].req<T>(method, path, body);
		if (reply.status >= 300) throw new Error(`${method} ${path} → ${reply.status} ${JSON.stringify(reply.body)}`);
		return reply.body;
	}

	state() {
		return this.call<any>('GET', 'state');
	}

	/** Requests the sandbox received (both public APIs and the operator's), after `since` (a seq) when given. */
	async requests(since?: number): Promise<LoggedRequest[]> {
		const query = since === undefined ? '' : `?since=${since}`;
		return (await this.call<{ requests: LoggedRequest[] }>('GET', `requests${query}`)).requests;
	}

	/**
	 * requests(), less the read a Local Sandbox credential makes before a node run's first write (it
	 * proves the server is the sandbox: nodes/shared/transport.ts): the requests the operations made.
	 */
	async operationRequests(since?: number): Promise<LoggedRequest[]> {
		return (await this.requests(since)).filter((r) => r.headers?.[SANDBOX_PROOF_HEADER] === undefined);
	}

	/** The highest request seq so far (0 when none): pass it to requests() to see only what follows. */
	async mark(): Promise<number> {
		return (await this.call<{ lastSeq: number }>('GET', `requests?since=${Number.MAX_SAFE_INTEGER}`)).lastSeq;
	}

	/** The POST /payment requests the sandbox received after `since` (a seq from mark()). */
	async paymentPosts(since: number): Promise<LoggedRequest[]> {
		return (await this.requests(since)).filter((r) => r.method === 'POST' && r.path === '/api/v1/payment');
	}

	/** How many orders the account holds per memo, for the memos starting with `prefix` (any status; the newest 1000 orders). */
	async ordersByMemo(prefix: string): Promise<Record<string, number>> {
		const { paymentOrders } = await this.api('GET', `/payment-orders?limit=1000&status=${PAYMENT_ORDER_STATUSES.join(',')}`);
		const counts: Record<string, number> = {};
		for (const o of paymentOrders as Array<{ memo?: unknown }>)
			if (String(o.memo).startsWith(prefix)) counts[String(o.memo)] = (counts[String(o.memo)] ?? 0) + 1;
		return counts;
	}

	fault(fault: Fault) {
		return this.call('POST', 'faults', fault);
	}

	clearFaults() {
		return this.call('DELETE', 'faults');
	}

	reset() {
		return this.call('POST', 'reset', {});
	}

	/** A standard order from the demo seed's alice to bob's first wallet, through the public API. */
	async createOrder(amountUsd: number, memo: string, idempotencyKey: string): Promise<any> {
		const {
			users: [alice, bob],
		} = await this.state();
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

	/** A deposit of `amountUsd` USDC from the demo seed's alice (her ethereum wallet) to the order, with its hash submitted; returns the hash. */
	async deposit(paymentOrderId: string, amountUsd: number): Promise<string> {
		const sender = walletOf(userOf(await this.state(), 'alice'), 'ethereum');
		const { transactionHash } = await this.call('POST', 'deposits', { paymentOrderId, sender, chain: 'ethereum', asset: 'USDC', amountUsd });
		const reply = await this.main.req('POST', `/payment-orders/${paymentOrderId}/transactions`, {
			transactions: [{ hash: transactionHash, chain: 'ethereum' }],
		});
		if (reply.status !== 200) throw new Error(`transactions: ${reply.status} ${JSON.stringify(reply.body)}`);
		return transactionHash;
	}
}
