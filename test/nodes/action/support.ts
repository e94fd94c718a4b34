/** One sandbox per test file and the node under test, with the request log since the last mark. */
import type { IDataObject, INodeExecutionData, INodeParameters, IRunExecutionData } from 'n8n-workflow';
import { createRunExecutionData } from 'n8n-workflow';

import { Clearinghouse } from '../../../nodes/Clearinghouse/Clearinghouse.node';
import { setLeaseSettleMs } from '../../../nodes/shared/endpointRecovery';
import { startSandbox } from '../../../harness/sandbox';
import type { Sandbox, SandboxOptions } from '../../../sandbox/server';
import { fixture } from '../../support/fixture';
import { runNode, type RunOptions } from '../../../harness/n8nContexts';
import { SandboxClient, userOf, walletOf, type LoggedRequest } from '../../../harness/sandboxClient';

export const node = new Clearinghouse();

// Webhook Endpoint → Recover reads its lease marker back 2 s after writing it, for another process's recovery
// writing at the same moment. These tests run one recovery at a time: it reads back after 100 ms (the same
// requests). Two recoveries at once: test/nodes/trigger/recovery.test.ts, with 1 s.
setLeaseSettleMs(100);

export interface NodeEnv {
	sb: Sandbox;
	client: SandboxClient;
	state: any;
	alice: any;
	bob: any;
	run(parameters: INodeParameters, extra?: Partial<RunOptions>): Promise<INodeExecutionData[]>;
	op(method: string, path: string, body?: unknown): Promise<any>;
	/**
	 * Requests to the public APIs (not the operator API, not the Local Sandbox proof read) since the
	 * last `mark()`; without GET /supported-assets unless `withSupportedAssets` (Payment Order → Create
	 * reads it once per run before its first order: its own tests are in serviceErrors.test.ts).
	 */
	requests(options?: { withSupportedAssets?: boolean }): Promise<LoggedRequest[]>;
	mark(): Promise<void>;
	reset(): Promise<void>;
}

export async function startEnv(options: SandboxOptions = {}): Promise<NodeEnv> {
	const sb = await startSandbox({ allowLoopbackWebhooks: true, ...options });
	const client = new SandboxClient(sb);
	let since = 0;
	const op = (method: string, path: string, body?: unknown) => client.call(method, path, body);
	const env: NodeEnv = {
		sb,
		client,
		state: undefined,
		alice: undefined,
		bob: undefined,
		op,
		async run(parameters, extra = {}) {
			const [out] = await runNode(node, {
				parameters,
				credentials: { apiKey: sb.apiKey, baseUrl: sb.mainUrl, rewardsUrl: sb.rewardsUrl, environment: 'sandbox' },
				...extra,
			});
			return out;
		},
		async requests({ withSupportedAssets = false } = {}) {
			// The operations' own requests (the proof read has its own tests: test/unit/transport.test.ts,
			// test/nodes/action/guarantees/rerun.test.ts), less the operator API's.
			return (await client.operationRequests(since)).filter(
				(r) => !r.path.startsWith('/sandbox') && (withSupportedAssets || !(r.method === 'GET' && r.path === '/api/v1/supported-assets')),
			);
		},
		async mark() {
			since = await client.mark();
		},
		async reset() {
			await client.reset();
			await refresh();
			await env.mark();
		},
	};
	const refresh = async () => {
		env.state = await client.state();
		env.alice = userOf(env.state, 'alice');
		env.bob = userOf(env.state, 'bob');
	};
	await refresh();
	await env.mark();
	return env;
}

/**
 * The file's NodeEnv: started before its tests, reset before each (unless `reset: false`: the tests
 * then share one sandbox's state), closed after them.
 */
export function useEnv(options: { reset?: boolean; sandbox?: SandboxOptions } = {}): NodeEnv {
	const env = fixture(
		() => startEnv(options.sandbox),
		(e) => e.sb.close(),
	);
	if (options.reset !== false) beforeEach(() => env.reset());
	return env;
}

/** Parameters of a write operation whose idempotency key is derived (named: version 2 defaults to a Business Key where it has one). */
function derivedKeyWrite(resource: string, operation: string, parameters: INodeParameters): INodeParameters {
	return { resource, operation, idempotencyKeyMode: 'derived', ...parameters };
}

/**
 * Parameters of a valid standard payment from alice to bob. Derived keys, named: version 2 (the node
 * under test) defaults to a Business Key, which these tests give where they mean one.
 */
export function payment(env: NodeEnv, extra: INodeParameters = {}): INodeParameters {
	return derivedKeyWrite('paymentOrder', 'create', {
		mode: 'standard',
		fromUserId: env.alice.id,
		toAddress: walletOf(env.bob, 'ethereum'),
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: '125.5',
		expiry: 'inMinutes',
		expiresInMinutes: 60,
		memo: 'invoice 42',
		...extra,
	});
}

/** Parameters of Set Return Details for an order: alice as the user, her ethereum wallet. */
export function returnDetails(env: NodeEnv, paymentOrderId: string, extra: INodeParameters = {}): INodeParameters {
	return derivedKeyWrite('paymentOrder', 'setReturnDetails', {
		paymentOrderId: { mode: 'id', value: paymentOrderId },
		userId: env.alice.id,
		wallets: { wallet: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }] },
		...extra,
	});
}

/** Parameters of a Receive Ruleset (create) delivering USDC on ethereum to bob. */
export function ruleset(env: NodeEnv, extra: INodeParameters = {}): INodeParameters {
	return derivedKeyWrite('receiveRuleset', 'create', {
		deliveredAsset: 'USDC',
		deliveredChain: 'ethereum',
		toAddress: walletOf(env.bob, 'ethereum'),
		...extra,
	});
}

export const json = (items: INodeExecutionData[]): IDataObject[] => items.map((i) => i.json);

/** How many orders the sandbox holds. */
export const orderCount = async (env: NodeEnv): Promise<number> => (await env.client.state()).counts.orders as number;

/** Input items of a payment batch: one per amount, on `chains[n]` (default ethereum). */
export const batchItems = (amounts: string[], chains: string[] = [], to: string[] = []): INodeExecutionData[] =>
	amounts.map((amount, n) => ({ json: { amount, chain: chains[n] ?? 'ethereum', ...(to[n] ? { to: to[n] } : {}) } }));

/** A wallet no account of the sandbox registered: an order to it is refused by the service alone (the node cannot check it). */
export const UNKNOWN_WALLET = '0x000000000000000000000000000000000000dead';

/** Create Payment Order over a batch, one item at a time: the amount and chain from each item. */
export const paymentBatch = (env: NodeEnv): INodeParameters =>
	payment(env, {
		amountUsd: '={{ $json.amount }}',
		toChain: '={{ $json.chain }}',
		toAddress: `={{ $json.to || "${walletOf(env.bob, 'ethereum')}" }}`,
		options: { concurrency: 1 },
	});

/**
 * n8n's Retry of a batch that failed at its third item (a payee the service does not know: 400 after two orders),
 * as n8n retries: a new execution id, mode "retry", the failed execution's run data, the item fixed.
 * Returns the orders the failed run left, the retry's output and the run data (for a further retry).
 */
export async function retryBatchFailedAtItem3(env: NodeEnv): Promise<{ ordersAfterFailure: number; out: INodeExecutionData[]; data: IRunExecutionData }> {
	const data = createRunExecutionData();
	// Item 3's payee is one only the service can refuse (a row the node can check would stop the whole batch before anything is sent).
	const input = batchItems(['1.25', '2.5', '3.75'], [], ['', '', UNKNOWN_WALLET]);
	await expect(env.run(paymentBatch(env), { items: input, executionId: '1', mode: 'webhook', runExecutionData: data })).rejects.toMatchObject({
		message: expect.stringMatching(/^Row 3 of 3 \(invoice 42\), n8n item 2: Recipient Address "0x0+dead"/),
	});
	const ordersAfterFailure = await orderCount(env);
	const out = await env.run(paymentBatch(env), { items: batchItems(['1.25', '2.5', '3.75']), executionId: '2', mode: 'retry', runExecutionData: data });
	return { ordersAfterFailure, out, data };
}

/**
 * An instant quote (50 USD of USDC on ethereum, to bob's wallet or `to`) made through the node; returns
 * its quoteId. `extra`: more Additional Fields (a Subaccount ID).
 */
export async function instantQuote(env: NodeEnv, extra: INodeParameters = {}, to = walletOf(env.bob, 'ethereum')): Promise<string> {
	const [quote] = await env.run({
		resource: 'quote',
		operation: 'create',
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: '50',
		additionalFields: { toAddress: to, ...extra },
	});
	expect(quote.json.mode).toBe('instant');
	return String(quote.json.quoteId);
}

/** Creates a standard order through the node, marks the request log after it, and returns its id. */
export async function createOrder(env: NodeEnv, extra: INodeParameters = {}): Promise<string> {
	const [item] = await env.run(payment(env, extra));
	await env.mark();
	return item.json.paymentOrderId as string;
}

/** An order of the first subaccount (the node then needs Subaccount ID to reach it). */
export async function createSubaccountOrder(env: NodeEnv): Promise<{ id: string; sub: string }> {
	const sub = env.state.subaccounts[0].id;
	await env.op('POST', '/payment-orders/bulk', { count: 1, subaccountId: sub });
	const page = await fetch(`${env.sb.mainUrl}/api/v1/payment-orders?subaccountId=${sub}&limit=1&status=AWAITING_FUNDS`, {
		headers: { 'x-api-key': env.sb.apiKey },
	});
	return { id: ((await page.json()) as any).paymentOrders[0].id as string, sub };
}

/** A webhook endpoint made through the node (Webhook Endpoint → Create), then a fresh mark: its record, secret included. */
export async function webhookEndpoint(env: NodeEnv): Promise<any> {
	const [item] = await env.run({
		resource: 'webhookEndpoint',
		operation: 'create',
		url: 'https://127.0.0.1:9/hooks',
		description: 'payouts',
		eventTypes: ['payment_order'],
	});
	await env.mark();
	return item.json;
}
