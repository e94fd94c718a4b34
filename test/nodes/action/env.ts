/** One sandbox per test file, the node under test, and small readers of the sandbox's operator API. */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { Clearinghouse } from '../../../nodes/Clearinghouse/Clearinghouse.node';
import { startSandbox, type Sandbox } from '../../../sandbox/server';
import { runNode, type RunOptions } from '../../support/n8nContexts';

export const node = new Clearinghouse();

export interface SeenRequest {
	seq: number;
	api: 'main' | 'rewards';
	method: string;
	path: string;
	query: Record<string, unknown>;
	headers: Record<string, string>;
	body: any;
	status: number;
}

export interface Env {
	sb: Sandbox;
	state: any;
	alice: any;
	bob: any;
	run(parameters: INodeParameters, extra?: Partial<RunOptions>): Promise<INodeExecutionData[]>;
	op(method: string, path: string, body?: unknown): Promise<any>;
	/** Requests to the public APIs (not the operator API) since the last `mark()`. */
	requests(): Promise<SeenRequest[]>;
	mark(): Promise<void>;
	reset(): Promise<void>;
}

export async function startEnv(): Promise<Env> {
	const sb = await startSandbox({ port: 0, rewardsPort: 0, allowLoopbackWebhooks: true });
	let since = 0;
	const op = async (method: string, path: string, body?: unknown) => {
		const res = await fetch(`${sb.operatorUrl}${path.replace(/^\/sandbox/, '')}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		const parsed = text ? JSON.parse(text) : null;
		if (res.status >= 300) throw new Error(`operator ${method} ${path}: ${res.status} ${text}`);
		return parsed;
	};
	const env: Env = {
		sb,
		state: undefined,
		alice: undefined,
		bob: undefined,
		op,
		async run(parameters, extra = {}) {
			const [out] = await runNode(node, {
				parameters,
				credentials: { apiKey: sb.apiKey, baseUrl: sb.mainUrl, rewardsUrl: sb.rewardsUrl },
				...extra,
			});
			return out;
		},
		async requests() {
			const { requests } = await op('GET', `/requests?since=${since}`);
			return (requests as SeenRequest[]).filter((r) => !r.path.startsWith('/sandbox'));
		},
		async mark() {
			const { lastSeq } = await op('GET', `/requests?since=${Number.MAX_SAFE_INTEGER}`);
			since = lastSeq;
		},
		async reset() {
			await op('POST', '/reset', {});
			await refresh();
			await env.mark();
		},
	};
	const refresh = async () => {
		env.state = await op('GET', '/state');
		env.alice = env.state.users.find((u: any) => u.label === 'alice');
		env.bob = env.state.users.find((u: any) => u.label === 'bob');
	};
	await refresh();
	await env.mark();
	return env;
}

export const walletOf = (user: any, chain: string): string =>
	user.wallets.find((w: any) => w.chain === chain).address;

/** Parameters of a valid standard payment from alice to bob. */
export function payment(env: Env, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'paymentOrder',
		operation: 'create',
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
	};
}

export const json = (items: INodeExecutionData[]): IDataObject[] => items.map((i) => i.json);
