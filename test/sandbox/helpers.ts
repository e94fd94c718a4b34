/** Sandbox-suite helpers: a sandbox per file with its seeded users, orders and deposits, a webhook receiver. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, Sandbox, SandboxOptions } from '../../sandbox/server';
import { ORDER_STATUSES } from '../../sandbox/state';
import { type Client, SandboxClient } from '../support/sandbox';

export interface Env {
	sb: Sandbox;
	api: Client;
	rewards: Client;
	op: Client;
	state: any;
	alice: any;
	bob: any;
	carol: any;
	sub: any;
}

export async function setup(opts: SandboxOptions = {}): Promise<Env> {
	const sb = await startSandbox({ port: 0, rewardsPort: 0, allowLoopbackWebhooks: true, ...opts });
	const client = new SandboxClient(sb);
	const env = { sb, api: client.main, rewards: client.rewards, op: client.operatorApi } as Env;
	await refresh(env);
	return env;
}

export async function refresh(env: Env): Promise<void> {
	env.state = (await env.op.get('/state')).body;
	env.alice = env.state.users.find((u: any) => u.label === 'alice');
	env.bob = env.state.users.find((u: any) => u.label === 'bob');
	env.carol = env.state.users.find((u: any) => u.label === 'carol');
	env.sub = env.state.subaccounts[0];
}

/** `status` is required on GET /payment-orders (the reference marks it so): every status, comma-separated. */
export const ALL_STATUSES = `status=${ORDER_STATUSES.join(',')}`;
/** The list path with every status and an optional extra query, e.g. orders('limit=1000'). */
export const orders = (query = ''): string => `/payment-orders?${ALL_STATUSES}${query ? `&${query}` : ''}`;

export const wallet = (user: any, chain: string): string => user.wallets.find((w: any) => w.chain === chain).address;
export const future = (ms = 86400_000): string => new Date(Date.now() + ms).toISOString();

export function paymentBody(env: Env, extra: Record<string, unknown> = {}) {
	return {
		fromUserId: env.alice.id,
		toAddress: wallet(env.bob, 'ethereum'),
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: 100,
		expiresAt: future(),
		memo: 'test',
		...extra,
	};
}

export async function createOrder(env: Env, extra: Record<string, unknown> = {}): Promise<any> {
	const r = await env.api.post('/payment', paymentBody(env, extra));
	if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
	return r.body.paymentOrder;
}

/** Simulates a chain transfer from alice and submits its hash; returns the hash. */
export async function fund(env: Env, orderId: string, amountUsd: number, chain = 'ethereum', sender = wallet(env.alice, chain)): Promise<string> {
	const d = await env.op.post('/deposits', { paymentOrderId: orderId, sender, chain, asset: 'USDC', amountUsd });
	if (d.status !== 201) throw new Error(`deposit failed ${JSON.stringify(d.body)}`);
	const t = await env.api.post(`/payment-orders/${orderId}/transactions`, { transactions: [{ hash: d.body.transactionHash, chain }] });
	if (t.status !== 200 || t.body.data.transfersProcessed !== 1) throw new Error(`attribution failed ${JSON.stringify(t.body)}`);
	return d.body.transactionHash;
}

export async function getOrder(env: Env, id: string): Promise<any> {
	return (await env.api.get(`/payment-orders/${id}`)).body;
}

export async function waitFor<T>(
	fn: () => Promise<T | undefined | false | null> | T | undefined | false | null,
	timeoutMs = 8000,
	what = 'condition',
): Promise<T> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const v = await fn();
		if (v) return v as T;
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 20));
	}
}

export async function waitStatus(env: Env, id: string, status: string, timeoutMs = 8000): Promise<any> {
	return waitFor(
		async () => {
			const o = await getOrder(env, id);
			return o.status === status ? o : null;
		},
		timeoutMs,
		`order ${id} to be ${status}`,
	);
}

export interface Received {
	headers: http.IncomingHttpHeaders;
	raw: string;
	body: any;
	at: number;
}

/** A local webhook receiver; `respond` decides the status of each request (default 200), `answer` its JSON body (default the text ok/nope). */
export class Receiver {
	received: Received[] = [];
	respond: (r: Received) => number | 'hang' = () => 200;
	answer?: (r: Received) => unknown;
	private server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', () => {
			const raw = Buffer.concat(chunks).toString('utf8');
			const r: Received = { headers: req.headers, raw, body: raw ? JSON.parse(raw) : null, at: Date.now() };
			this.received.push(r);
			const s = this.respond(r);
			if (s === 'hang') return;
			res.writeHead(s, { 'content-type': this.answer ? 'application/json' : 'text/plain' });
			res.end(this.answer ? JSON.stringify(this.answer(r)) : s >= 200 && s < 300 ? 'ok' : 'nope');
		});
	});
	url = '';
	async start(): Promise<this> {
		await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
		return this;
	}
	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((r) => this.server.close(() => r()));
	}
	orderEvents(orderId: string): any[] {
		return this.received.filter((r) => r.body?.data?.payment_order?.id === orderId).map((r) => r.body);
	}
}

export async function addEndpoint(env: Env, url: string): Promise<{ id: string; secret: string }> {
	const r = await env.api.post('/webhooks/endpoints', { url, description: 'test', eventTypes: ['payment_order'] });
	if (r.status !== 201) throw new Error(`endpoint create failed ${r.status} ${JSON.stringify(r.body)}`);
	return r.body;
}
