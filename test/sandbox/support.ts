/** Sandbox-suite helpers: a sandbox per file with its seeded users, orders and deposits; webhooks to a receiver; the CLI in its own process. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { Receiver } from '../../harness/receiver';
import { startSandbox } from '../../harness/sandbox';
import { waitFor } from '../../harness/wait';
import type { Sandbox, SandboxOptions } from '../../sandbox/server';
import { ORDER_STATUSES } from '../../sandbox/state';
import { type Client, SandboxClient, userOf, walletOf } from '../../harness/sandboxClient';

export interface SandboxEnv {
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

export async function setup(opts: SandboxOptions = {}): Promise<SandboxEnv> {
	const sb = await startSandbox({ allowLoopbackWebhooks: true, ...opts });
	const client = new SandboxClient(sb);
	const env = { sb, api: client.main, rewards: client.rewards, op: client.operatorApi } as SandboxEnv;
	await refresh(env);
	return env;
}

async function refresh(env: SandboxEnv): Promise<void> {
	env.state = (await env.op.get('/state')).body;
	env.alice = userOf(env.state, 'alice');
	env.bob = userOf(env.state, 'bob');
	env.carol = userOf(env.state, 'carol');
	env.sub = env.state.subaccounts[0];
}

/** `status` is required on GET /payment-orders (the reference marks it so): every status, comma-separated. */
export const ALL_STATUSES = `status=${ORDER_STATUSES.join(',')}`;
/** The list path with every status and an optional extra query, e.g. orders('limit=1000'). */
export const orders = (query = ''): string => `/payment-orders?${ALL_STATUSES}${query ? `&${query}` : ''}`;

/** A user's address on a chain (harness/sandboxClient.ts's walletOf). */
export const future = (ms = 86400_000): string => new Date(Date.now() + ms).toISOString();

export function paymentBody(env: SandboxEnv, extra: Record<string, unknown> = {}) {
	return {
		fromUserId: env.alice.id,
		toAddress: walletOf(env.bob, 'ethereum'),
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: 100,
		expiresAt: future(),
		memo: 'test',
		...extra,
	};
}

/** An instant order from alice to bob's wallet on `chain`, priced by the quote; the API's answer. */
export function payWithQuote(env: SandboxEnv, quoteId: string, chain: string, amountUsd: number, extra: Record<string, unknown> = {}) {
	return env.api.post('/payment', {
		fromUserId: env.alice.id,
		toAddress: walletOf(env.bob, chain),
		toChain: chain,
		asset: 'USDC',
		amountUsd,
		mode: 'instant',
		quoteId,
		...extra,
	});
}

export async function createOrder(env: SandboxEnv, extra: Record<string, unknown> = {}): Promise<any> {
	const r = await env.api.post('/payment', paymentBody(env, extra));
	if (r.status !== 201) throw new Error(`create failed ${r.status} ${JSON.stringify(r.body)}`);
	return r.body.paymentOrder;
}

/** Simulates a chain transfer of USDC to the order (from alice on ethereum unless `extra` says otherwise); the operator API's answer. */
export function deposit(env: SandboxEnv, orderId: string, amountUsd: number, extra: Record<string, unknown> = {}) {
	return env.op.post('/deposits', { paymentOrderId: orderId, sender: walletOf(env.alice, 'ethereum'), chain: 'ethereum', asset: 'USDC', amountUsd, ...extra });
}

/** Simulates a chain transfer from alice and submits its hash; returns the hash. */
export async function fund(env: SandboxEnv, orderId: string, amountUsd: number, chain = 'ethereum', sender = walletOf(env.alice, chain)): Promise<string> {
	const d = await deposit(env, orderId, amountUsd, { sender, chain });
	if (d.status !== 201) throw new Error(`deposit failed ${JSON.stringify(d.body)}`);
	const t = await env.api.post(`/payment-orders/${orderId}/transactions`, { transactions: [{ hash: d.body.transactionHash, chain }] });
	if (t.status !== 200 || t.body.data.transfersProcessed !== 1) throw new Error(`attribution failed ${JSON.stringify(t.body)}`);
	return d.body.transactionHash;
}

export async function getOrder(env: SandboxEnv, id: string): Promise<any> {
	return (await env.api.get(`/payment-orders/${id}`)).body;
}

export async function waitStatus(env: SandboxEnv, id: string, status: string, timeoutMs = 8000): Promise<any> {
	return waitFor(
		async () => {
			const o = await getOrder(env, id);
			return o.status === status ? o : null;
		},
		timeoutMs,
		`order ${id} to be ${status}`,
	);
}

/** The order's events a receiver got (payment_order events whose order has this id), in order. */
export function orderEvents(receiver: Receiver, orderId: string): any[] {
	return receiver.received.filter((r) => r.body?.data?.payment_order?.id === orderId).map((r) => r.body);
}

export async function addEndpoint(env: SandboxEnv, url: string): Promise<{ id: string; secret: string }> {
	const r = await env.api.post('/webhooks/endpoints', { url, description: 'test', eventTypes: ['payment_order'] });
	if (r.status !== 201) throw new Error(`endpoint create failed ${r.status} ${JSON.stringify(r.body)}`);
	return r.body;
}

/**
 * Waits for a sandbox CLI process to print SANDBOX_READY, and resolves with its stdout so far (the base
 * URLs and key first). Rejects when it exits before, or is not ready within `timeoutMs`, with the end of its stderr.
 */
export function sandboxReady(child: ChildProcess, timeoutMs = 30_000): Promise<string> {
	return new Promise((resolve, reject) => {
		let out = '';
		let err = '';
		const timer = setTimeout(() => reject(new Error(`the sandbox did not get ready: ${out} ${err}`)), timeoutMs);
		child.stderr!.on('data', (c) => (err = (err + c).slice(-4000)));
		child.stdout!.on('data', (c) => {
			out += c;
			if (!/SANDBOX_READY\r?\n/.test(out)) return;
			clearTimeout(timer);
			resolve(out);
		});
		child.on('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`the sandbox exited ${code}: ${err}`));
		});
	});
}

/** The sandbox CLI of this checkout (`sandbox/main.ts` under ts-node) in its own process, once ready: the child and its stdout so far. */
export async function startCli(args: string[], timeoutMs = 30_000): Promise<{ child: ChildProcess; out: string }> {
	const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'sandbox/main.ts', ...args], {
		cwd: path.resolve(__dirname, '../..'),
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	return { child, out: await sandboxReady(child, timeoutMs) };
}

/** Third-party modules that sandbox/*.ts imports (not node:, not relative): what the package may depend on. */
export function sandboxImports(): string[] {
	const dir = path.resolve(__dirname, '../../sandbox');
	const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
	const names = new Set<string>();
	for (const file of files) {
		for (const m of fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^'.][^']*)'/gm)) {
			if (m[1] || m[2].startsWith('node:')) continue; // type-only imports vanish at run time
			names.add(m[2].split('/')[0]);
		}
	}
	return [...names].sort();
}
